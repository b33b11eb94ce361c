package hashcache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
	"strings"

	"github.com/rsgen/rsgen/internal/storage/binrec"
	"github.com/rsgen/rsgen/internal/storage/regfile"
)

// maxFile bounds the size of a cache file Load reads.
const maxFile = 2 << 30

// The cache held whole in memory, as rsgen kept it before the build read
// it as a stream: the tests' fixture for writing caches, and the oracle the
// Reader is compared with. Production code has one reader (Reader) and one
// writer (Writer).

// A Cache maps paths, relative to a source directory, to entries.
type Cache struct {
	root string
	list []item // sorted by path
	// byPath indexes list for the many lookups of a loaded cache; a cache
	// being filled (in order) finds its entries by binary search.
	byPath map[string]*Entry
}

type item struct {
	path  string
	entry *Entry
}

// New returns an empty cache for the source directory root.
func New(root string) *Cache { return &Cache{root: root} }

// Len returns the number of entries.
func (c *Cache) Len() int { return len(c.list) }

func (c *Cache) search(rel string) (int, bool) {
	return slices.BinarySearchFunc(c.list, rel, func(it item, rel string) int { return strings.Compare(it.path, rel) })
}

// Get returns the entry of the file at rel.
func (c *Cache) Get(rel string) (*Entry, bool) {
	if c.byPath != nil {
		e, ok := c.byPath[rel]
		return e, ok
	}
	if i, ok := c.search(rel); ok {
		return c.list[i].entry, true
	}
	return nil, false
}

// Lookup returns the entry of the file at rel if its stat is st.
func (c *Cache) Lookup(rel string, st Stat) (*Entry, bool) {
	e, ok := c.Get(rel)
	if !ok || e.Stat != st {
		return nil, false
	}
	return e, true
}

// Put stores e as the entry of rel. Putting entries in the order of their
// paths is the fast way to fill a cache.
func (c *Cache) Put(rel string, e *Entry) {
	if c.byPath != nil {
		c.byPath[rel] = e
	}
	if n := len(c.list); n == 0 || c.list[n-1].path < rel {
		c.list = append(c.list, item{rel, e})
		return
	}
	i, ok := c.search(rel)
	if ok {
		c.list[i].entry = e
		return
	}
	c.list = slices.Insert(c.list, i, item{rel, e})
}

// Save writes the cache to path, as a [Writer] does: into a new file
// beside it, synced and renamed over it once complete. It refuses, with
// ErrNotRegular, to replace anything but a regular file. All entries are
// written, settled or not.
func (c *Cache) Save(path string) error {
	w, err := Create(path, c.root)
	if err != nil {
		return err
	}
	for _, it := range c.list {
		w.put(it.path, it.entry) // in order: the list is sorted
	}
	return w.Commit()
}

// Load reads the cache at path, made for the source directory root. A
// missing file is an error that wraps fs.ErrNotExist; a file that is not
// a usable cache one that wraps ErrNotRegular, ErrForeign, ErrVersion,
// ErrCorrupt or ErrOtherDir. It never blocks on a FIFO or a device.
func Load(path, root string) (*Cache, error) {
	// Not os.Open: a FIFO would block it until something writes to it.
	f, st, err := regfile.Open(path)
	if errors.Is(err, regfile.ErrNotRegular) {
		return nil, ErrNotRegular
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() < int64(len(magic))+4 || st.Size() > maxFile {
		return nil, ErrForeign
	}
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	return decode(data, root)
}

// decode parses a whole cache file.
func decode(data []byte, root string) (*Cache, error) {
	if !strings.HasPrefix(string(data[:min(len(data), len(magic))]), magic) {
		return nil, ErrForeign
	}
	d := binrec.NewReader(data[len(magic):], ErrCorrupt)
	if v := d.Uvarint(); d.Err() != nil || v != Version {
		return nil, fmt.Errorf("%w (format %d, this rsgen reads %d)", ErrVersion, v, Version)
	}
	if d.Len() < 4 {
		return nil, ErrCorrupt
	}
	body, sum := data[:len(data)-4], data[len(data)-4:]
	if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(sum) {
		return nil, fmt.Errorf("%w (checksum mismatch)", ErrCorrupt)
	}
	d = binrec.NewReader(data[len(data)-d.Len():len(data)-4], ErrCorrupt) // the rest, but the checksum
	if r := d.String(); d.Err() == nil && r != root {
		return nil, fmt.Errorf("%w (%s)", ErrOtherDir, r)
	}
	n := d.Uvarint()
	if d.Err() != nil || n > uint64(d.Len()) {
		return nil, ErrCorrupt
	}
	c := &Cache{root: root, list: make([]item, 0, n), byPath: make(map[string]*Entry, n)}
	// Paths are rebuilt into one arena, converted to a string once: one
	// allocation for all of them rather than one each.
	arena := make([]byte, 0, d.Len())
	ends := make([]int, 0, n)
	entries := make([]Entry, n)
	prevStart := 0
	for i := range entries {
		shared := d.Uvarint()
		suffix := d.Bytes()
		if d.Err() != nil || shared > uint64(len(arena)-prevStart) {
			return nil, ErrCorrupt
		}
		start := len(arena)
		arena = append(arena, arena[prevStart:prevStart+int(shared)]...)
		arena = append(arena, suffix...)
		prevStart = start
		ends = append(ends, len(arena))
		e := &entries[i]
		e.Size = d.Varint()
		e.Mtime = d.Varint()
		e.Ctime = d.Varint()
		e.Ino = d.Uvarint()
		e.Dev = d.Uvarint()
		e.algs = d.Byte()
		size := 0
		for _, a := range algorithms {
			if e.algs&(1<<a) != 0 {
				size += a.Size()
			}
		}
		if e.algs&^uint8(1<<len(algorithms)-1) != 0 {
			return nil, ErrCorrupt
		}
		e.sums = d.Fixed(size)
		e.Type = string(d.Bytes())
		if d.Err() != nil {
			return nil, ErrCorrupt
		}
	}
	if d.Len() != 0 {
		return nil, ErrCorrupt
	}
	paths := string(arena)
	start := 0
	for i, end := range ends {
		p := paths[start:end]
		if i > 0 && p <= c.list[i-1].path {
			return nil, fmt.Errorf("%w (paths out of order)", ErrCorrupt)
		}
		c.list = append(c.list, item{p, &entries[i]})
		c.byPath[p] = &entries[i]
		start = end
	}
	return c, nil
}

// Len returns the number of entries the cache holds.
func (r *Reader) Len() int { return int(r.count) }

// Lookup returns the entry of the file at rel if its stat is st. Paths
// ascend across calls, as for Find.
func (r *Reader) Lookup(rel string, st Stat) (*Entry, bool) {
	e, ok := r.Find(rel)
	if !ok || e.Stat != st {
		return nil, false
	}
	return e, true
}

// Len returns the number of entries written so far.
func (w *Writer) Len() int { return int(w.n) }
