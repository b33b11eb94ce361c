package previous

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/rsgen/rsgen/internal/storage/binrec"
	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/extsort"
)

// ErrUnsorted: a later document of the Resource List is out of key order
// where the first was in order, after [ResourceIter] had returned entries
// in published order. IterOptions.Sort reads such a list.
var ErrUnsorted = errors.New("not in path order")

// IterOptions tune [Site.ResourceIter].
type IterOptions struct {
	// Key maps the loc of an entry to the key the entries come out in
	// ascending byte order of (the build's: the path of the file). A loc
	// without a key (ok false) comes after all others, sorted by loc. Nil
	// keys every entry by its loc.
	Key func(loc string) (key string, ok bool)
	// SpillDir is where the entries are sorted on disk when they are not
	// in key order, and where a document fetched from elsewhere is kept
	// while it is read (and the next fetched ahead). "" sorts in a
	// temporary directory and keeps fetched documents in memory, one at a
	// time, fetched when reached.
	SpillDir string
	// Memory is the bytes of entries the sort holds before it writes a
	// run: extsort.DefaultChunkBytes if zero, at least minIterMemory. An
	// entry of more than half of it cannot be sorted (ErrLimit).
	Memory int
	// Sort sorts the entries whatever their order: for a caller that met
	// ErrUnsorted.
	Sort bool
}

// A ResourceIter reads the entries of the previous Resource List in
// ascending order of their key, then those without a key by loc, checking
// each as Read does. If the first document is in key order (rsgen
// publishes so) the entries stream with the memory of one document's
// parser, and one out of order in a later document ends the pass with
// [ErrUnsorted]; else they go through an external sort ([extsort]). Two
// entries with the same key are an error (ErrInvalid).
//
// Use it as bufio.Scanner: for it.Next() { it.Resource() … }, then
// it.Err(), and Close it. It is not safe for concurrent use.
type ResourceIter struct {
	site *Site
	ctx  context.Context
	opt  IterOptions
	lr   *listReader

	sorted    bool            // reading from sorter, not from lr
	sorter    *extsort.Sorter // the entries without a key (streaming), or all of them (sorted)
	sit       *extsort.Iter
	tempDir   string // made when opt.SpillDir is ""
	maxRecord int

	res     Resource
	key     string
	foreign bool

	have                    bool   // of an entry before, to find duplicates and inversions
	prevKey                 []byte // a tag (tagKey, tagForeign), then the key or the loc
	prevLoc                 string
	tagged, payload, keyBuf []byte
	err                     error
	finished                bool
}

// minIterMemory is the least IterOptions.Memory: the sort's memory grows
// by blocks of a MiB anyway.
const minIterMemory = 1 << 20

// Tags that put the entries with a key before those without.
const (
	tagKey = iota
	tagForeign
)

// ResourceIter starts a pass over the entries of the Resource List,
// reading its first document to decide whether they can stream. Close it.
func (s *Site) ResourceIter(ctx context.Context, opt IterOptions) (*ResourceIter, error) {
	if opt.Key == nil {
		opt.Key = func(loc string) (string, bool) { return loc, true }
	}
	it := &ResourceIter{site: s, ctx: ctx, opt: opt, lr: &listReader{site: s, ctx: ctx, spillDir: opt.SpillDir}}
	if !opt.Sort {
		inOrder, err := it.probe()
		if err != nil {
			it.Close()
			return nil, err
		}
		if inOrder {
			return it, nil
		}
	}
	if err := it.sortAll(); err != nil {
		it.Close()
		return nil, err
	}
	return it, nil
}

// probe reports whether the entries of the first document are in key
// order, then rewinds.
func (it *ResourceIter) probe() (bool, error) {
	lr := it.lr
	lr.onlyOne = true
	var prev, prevLoc string
	have := false
	for {
		ok, err := lr.next()
		if err != nil {
			return false, err
		}
		if !ok {
			break
		}
		key, keyed := it.opt.Key(lr.res.Loc)
		if !keyed {
			continue
		}
		if have {
			if key < prev {
				return false, lr.rewind()
			}
			if key == prev {
				return false, it.duplicate(lr.name, lr.line, lr.res.Loc, prevLoc)
			}
		}
		prev, prevLoc, have = key, lr.res.Loc, true
	}
	return true, lr.rewind()
}

func (it *ResourceIter) sortAll() error {
	it.sorted = true
	for {
		ok, err := it.lr.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if err := it.add(); err != nil {
			return err
		}
	}
	it.lr.close()
	return it.startSorted()
}

// add puts the entry lr just read into the sorter.
func (it *ResourceIter) add() error {
	if it.sorter == nil {
		dir := it.opt.SpillDir
		if dir == "" {
			d, err := confined.MkdirTemp("", "rsgen-previous-*")
			if err != nil {
				return fmt.Errorf("sorting the previous Resource List: %w", err)
			}
			it.tempDir, dir = d, d
		}
		mem := it.opt.Memory
		if mem <= 0 {
			mem = extsort.DefaultChunkBytes
		}
		it.sorter = extsort.New(dir, max(mem, minIterMemory))
		it.maxRecord = max(mem, minIterMemory) / 2
	}
	lr := it.lr
	it.tagged = it.tagged[:0]
	if key, ok := it.opt.Key(lr.res.Loc); ok {
		it.tagged = append(append(it.tagged, tagKey), key...)
	} else {
		it.tagged = append(append(it.tagged, tagForeign), lr.res.Loc...)
	}
	it.payload = encodeEntry(it.payload[:0], lr.part, lr.line, &lr.res)
	if n := len(it.tagged) + len(it.payload); n > it.maxRecord {
		return newError(lr.name, lr.line, ErrLimit, "an entry of %d bytes, more than the %d bytes of memory given to sort the Resource List allow", n, it.maxRecord)
	}
	if err := it.sorter.Add(it.tagged, it.payload); err != nil {
		return fmt.Errorf("sorting the previous Resource List: %w", err)
	}
	return nil
}

func (it *ResourceIter) startSorted() error {
	if it.sorter == nil {
		return nil
	}
	sit, err := it.sorter.Iter()
	if err != nil {
		return fmt.Errorf("sorting the previous Resource List: %w", err)
	}
	it.sit = sit
	return nil
}

// Next moves to the next entry and reports whether there is one: false at
// the end and after an error, which Err returns.
func (it *ResourceIter) Next() bool {
	if it.err != nil || it.finished {
		return false
	}
	if !it.sorted {
		ok, err := it.nextStreamed()
		if err != nil {
			it.err = err
			return false
		}
		if ok {
			return true
		}
		// The entries with a key are done; those without follow, sorted.
		it.sorted = true
		if err := it.startSorted(); err != nil {
			it.err = err
			return false
		}
	}
	ok, err := it.nextSorted()
	if err != nil {
		it.err = err
		return false
	}
	if !ok {
		it.finished = true
	}
	return ok
}

// nextStreamed returns the next entry with a key in published order,
// sending those without one to the sorter.
func (it *ResourceIter) nextStreamed() (bool, error) {
	lr := it.lr
	for {
		ok, err := lr.next()
		if err != nil || !ok {
			return false, err
		}
		key, keyed := it.opt.Key(lr.res.Loc)
		if !keyed {
			if err := it.add(); err != nil {
				return false, err
			}
			continue
		}
		it.keyBuf = append(append(it.keyBuf[:0], tagKey), key...)
		if it.have {
			switch c := bytes.Compare(it.keyBuf, it.prevKey); {
			case c < 0:
				return false, newError(lr.name, lr.line, ErrUnsorted,
					"%s comes after %s, out of order: the first document of the Resource List is in path order, this one is not", lr.res.Loc, it.prevLoc)
			case c == 0:
				return false, it.duplicate(lr.name, lr.line, lr.res.Loc, it.prevLoc)
			}
		}
		it.res, it.key, it.foreign = lr.res, key, false
		it.prevKey, it.keyBuf = it.keyBuf, it.prevKey
		it.prevLoc, it.have = lr.res.Loc, true
		return true, nil
	}
}

func (it *ResourceIter) nextSorted() (bool, error) {
	if it.sit == nil {
		return false, nil
	}
	if !it.sit.Next() {
		if err := it.sit.Err(); err != nil {
			return false, fmt.Errorf("sorting the previous Resource List: %w", err)
		}
		return false, nil
	}
	tagged := it.sit.Key()
	part, line, err := decodeEntry(it.sit.Value(), &it.res)
	if err != nil || part >= len(it.site.parts) || len(tagged) == 0 {
		return false, errors.New("sorting the previous Resource List: a sorted entry cannot be read back")
	}
	if it.have && bytes.Equal(tagged, it.prevKey) {
		return false, it.duplicate(it.site.src.name(it.site.parts[part]), line, it.res.Loc, it.prevLoc)
	}
	it.prevKey = append(it.prevKey[:0], tagged...)
	it.prevLoc, it.have = it.res.Loc, true
	it.foreign = tagged[0] == tagForeign
	it.key = ""
	if !it.foreign {
		it.key = string(tagged[1:])
	}
	return true, nil
}

func (it *ResourceIter) duplicate(name string, line int, loc, prevLoc string) error {
	if loc == prevLoc {
		return newError(name, line, ErrInvalid, "%s is listed twice", loc)
	}
	return newError(name, line, ErrInvalid, "%s is listed twice: %s names the same file", prevLoc, loc)
}

// Resource returns the current entry, valid until the next call of Next:
// its strings may be kept, but the array of Hash is reused.
func (it *ResourceIter) Resource() *Resource { return &it.res }

// Key returns the key of the current entry, "" if it has none.
func (it *ResourceIter) Key() string { return it.key }

// Foreign reports whether the current entry has no key (see
// IterOptions.Key).
func (it *ResourceIter) Foreign() bool { return it.foreign }

// Err returns the error that ended the pass, if any.
func (it *ResourceIter) Err() error { return it.err }

// Close ends the pass and removes the files of the sort.
func (it *ResourceIter) Close() error {
	var errs []error
	if it.lr != nil {
		errs = append(errs, it.lr.close())
	}
	it.sit = nil
	if it.sorter != nil {
		errs = append(errs, it.sorter.Close())
		it.sorter = nil
	}
	if it.tempDir != "" {
		errs = append(errs, confined.RemoveAll(it.tempDir))
		it.tempDir = ""
	}
	it.finished = true
	return errors.Join(errs...)
}

// encodeEntry appends the record of a sorted entry: its document, line
// and resource.
func encodeEntry(b []byte, part, line int, r *Resource) []byte {
	b = binary.AppendUvarint(b, uint64(part))
	b = binary.AppendUvarint(b, uint64(line))
	return AppendResource(b, r)
}

var errRecord = errors.New("corrupt record")

func decodeEntry(b []byte, r *Resource) (part, line int, err error) {
	d := binrec.NewReader(b, errRecord)
	part, line = int(d.Uvarint()), int(d.Uvarint())
	if err := ReadResource(d, r); err != nil || d.Len() != 0 {
		return 0, 0, errRecord
	}
	return part, line, nil
}

// AppendResource appends r to b as a binary record (package binrec);
// ReadResource reads it back.
func AppendResource(b []byte, r *Resource) []byte {
	b = binrec.AppendBytes(b, r.Loc)
	b = binrec.AppendTime(b, r.Lastmod)
	b = binary.AppendVarint(b, r.Length)
	b = binrec.AppendBytes(b, r.Type)
	return binrec.AppendTokens(b, r.Hash)
}

// ReadResource reads a record of AppendResource from d into r, reusing
// r.Hash.
func ReadResource(d *binrec.Reader, r *Resource) error {
	*r = Resource{Loc: d.String(), Hash: r.Hash[:0]}
	r.Lastmod = d.Time()
	r.Length = d.Varint()
	r.Type = d.String()
	if r.Hash = d.Tokens(r.Hash); len(r.Hash) == 0 {
		r.Hash = nil
	}
	return d.Err()
}
