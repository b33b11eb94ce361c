package zipdump

import (
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/rsxml"
)

// Compression says how bitstreams are stored in a package.
type Compression int

// The compression policies of --dump-compression.
const (
	// Auto stores media that are already compressed (by their type, see
	// mediatype.IsCompressed) and content that Deflate cannot shrink by 2%
	// (judged on its first 64 KiB), and deflates the rest.
	Auto Compression = iota
	Store
	Deflate
)

var compressionNames = [...]string{"auto", "store", "deflate"}

func (c Compression) String() string {
	if c >= 0 && int(c) < len(compressionNames) {
		return compressionNames[c]
	}
	return fmt.Sprintf("Compression(%d)", int(c))
}

// ParseCompression reads "auto", "store" or "deflate".
func ParseCompression(s string) (Compression, error) {
	for i, n := range compressionNames {
		if s == n {
			return Compression(i), nil
		}
	}
	return 0, fmt.Errorf("%q is not a compression (auto, store or deflate)", s)
}

// DefaultLevel is the Deflate level of packages. Measured on 64 MiB of Go
// source (docs/PERFORMANCE.md): compress/flate at level 6 compresses as
// well as Info-ZIP's default, zip -6, to 0.3%, at the same CPU cost per
// byte; level 5 costs a third less for output 1.4% larger, level 4 half
// for 5.5%. Since files are compressed in parallel, level 6 still packages
// faster than zip -r on two cores.
const DefaultLevel = 6

// DefaultMaxBytes is the size a package is closed before (--dump-max-bytes).
const DefaultMaxBytes = 1 << 30

// ErrChanged reports a file whose bytes are no longer those whose length
// and digests were published: it changed or vanished after it was hashed.
var ErrChanged = errors.New("changed after it was hashed")

// An Item is one bitstream to package: a file whose length and digests
// are already known, from the pass that wrote the Resource List.
type Item struct {
	Name string // its path in the package, and the name Options.Open gets; see CheckName
	Size int64  // its length in bytes
	// Entry is its entry in the manifest: <loc>, <lastmod>, and <rs:md>
	// with hash (the digests, in the format of Options.Hashes), length and
	// type. Run adds the path attribute.
	Entry rsxml.Entry
	// NoBitstream makes the item an entry of the manifest only, without
	// bytes or path: a deletion in a Change Dump Manifest (section 13.2).
	// Name and Size are not used, and Open is not called for it.
	NoBitstream bool
}

// Options configure Run.
type Options struct {
	Hashes      hashing.Set // the algorithms of Item.Entry.MD.Hash and of Package.Hash
	Compression Compression
	Level       int // Deflate level; DefaultLevel if 0
	Workers     int // files read and compressed at once; hashing.DefaultWorkers() if 0

	MaxBytes       int64 // a package is closed before it would pass this size; DefaultMaxBytes if 0
	MaxEntries     int   // bitstreams per package, at most rsxml.MaxEntries (the default)
	MaxManifestLen int64 // bytes of a manifest, at most rsxml.MaxBytes (the default)

	// Stem names the files: Stem-00001.zip, Stem-00001.manifest.xml, …
	Stem string
	// Manifest is the root of every manifest: its links (rel="up"). Run
	// sets the capability and the at and completed times.
	Manifest rsxml.Doc
	// At is the time of the snapshot, and the modification time of every
	// entry of every package. If Now is nil, it is also the at and
	// completed time of every package, so that the same files give the
	// same bytes; otherwise Now gives those.
	At  time.Time
	Now func() time.Time

	// ManifestMD, if set, gives the root <rs:md> of the manifest of a
	// package that holds items[first:end]: the capability and the from and
	// until of a Change Dump Manifest (section 13.2). By default the root
	// is that of a Resource Dump Manifest, with the package's at and
	// completed times. Its datetimes must be whole seconds.
	ManifestMD func(first, end int) rsxml.MD

	// Open opens the file of an item for reading. It is called from
	// several goroutines at once.
	Open func(it *Item) (*os.File, error)
	// Create creates an output file (a package or the copy of a manifest)
	// by name; Remove removes one that ends up unused.
	Create func(name string) (File, error)
	Remove func(name string) error
}

// A Package is one package Run wrote.
type Package struct {
	Name         string // Stem-00001.zip
	ManifestName string // Stem-00001.manifest.xml: a copy of its manifest.xml, byte for byte
	Size         int64
	Hash         string // digests of the package, in the format of Options.Hashes
	Bitstreams   int
	First, End   int // it holds (what was not skipped of) items[First:End]
	At           time.Time
	Completed    time.Time
}

// A Skipped item was left out of every package, and why.
type Skipped struct {
	Index int // in the items given to Run
	Err   error
}

// A Result says what Run wrote.
type Result struct {
	Packages []Package
	Skipped  []Skipped // in the order of the items
}

// Sizes of the work units. chunkSize is how much of a file one job reads
// and compresses: files up to this size are one job, larger ones are split
// and their chunks compressed in parallel, then joined into one Deflate
// stream as pigz does: every chunk but the last ends with a sync flush,
// and every chunk but the first is compressed with the 32 KiB before it
// as its dictionary, so that splitting costs next to nothing in size. The
// boundaries depend on nothing but the offsets, so the bytes do not
// depend on the number of workers.
const (
	chunkSize = 1 << 20
	dictSize  = 32 << 10
	probeSize = 64 << 10
)

// Run packages items, in their order, into as many packages as the
// limits require, each holding its manifest.xml, and writes a copy of
// each manifest beside its package. It never holds a whole file in
// memory: at most about 2*(2*Workers+2) MiB of file data is in flight.
//
// An item whose file no longer has the published length and digests (it
// changed or vanished after it was hashed), or whose name cannot be a
// path in a package, is left out of the packages and of their manifests,
// and reported in Result.Skipped. Any other error (writing the output)
// stops Run; the files it created are then the caller's to remove.
func Run(ctx context.Context, items []Item, opt Options) (*Result, error) {
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	names := make([]string, len(items))
	for i := range items {
		names[i] = items[i].Name
	}
	names = entryNames(names)

	p := &packer{opt: &opt, items: items, names: names, res: &Result{}}
	window := 2*opt.Workers + 2
	p.sem = make(chan struct{}, window)
	p.bufs = make(chan *[]byte, 2*window)
	g, gctx := errgroup.WithContext(ctx)
	work := make(chan *job, window)
	ordered := make(chan *job, window)
	g.Go(func() error {
		defer close(work)
		defer close(ordered)
		return p.dispatch(gctx, work, ordered)
	})
	for range opt.Workers {
		g.Go(func() error { return p.work(gctx, work) })
	}
	g.Go(func() error { return p.write(gctx, ordered) })
	err := g.Wait()
	// Close the files of split items still queued after a failure.
	for j := range ordered {
		if j.src != nil {
			j.src.close()
		}
	}
	if err != nil {
		p.abandon()
		return nil, err
	}
	return p.res, nil
}

func (o *Options) defaults() error {
	if len(o.Hashes) == 0 {
		return errors.New("zipdump: no hash algorithm")
	}
	if o.Open == nil || o.Create == nil || o.Remove == nil || o.Stem == "" {
		return errors.New("zipdump: Open, Create, Remove and Stem are required")
	}
	if o.Level == 0 {
		o.Level = DefaultLevel
	}
	if o.Level < flate.BestSpeed || o.Level > flate.BestCompression {
		return fmt.Errorf("zipdump: Deflate level %d is not 1-9", o.Level)
	}
	if o.Workers <= 0 {
		o.Workers = hashing.DefaultWorkers()
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxEntries <= 0 || o.MaxEntries > rsxml.MaxEntries {
		o.MaxEntries = rsxml.MaxEntries
	}
	if o.MaxManifestLen <= 0 || o.MaxManifestLen > rsxml.MaxBytes {
		o.MaxManifestLen = rsxml.MaxBytes
	}
	return nil
}

// source is the open file of a split item, shared by its chunks.
type source struct {
	f    *os.File
	once sync.Once
}

func (s *source) close() { s.once.Do(func() { s.f.Close() }) }

// A job is one unit of work: a whole item, or one chunk of a split item.
type job struct {
	item  int
	chunk int  // number of the chunk in its item; 0 for a whole item
	last  bool // the item's last chunk (always, for a whole item)
	whole bool
	src   *source // split items: the open file
	off   int64   // split items: where the chunk's data starts
	n     int64   // split items: the chunk's length

	done   chan struct{} // closed when the fields below are set
	method uint16
	raw    *[]byte // bytes read; for a split chunk, dict bytes then data
	dict   int     // how many leading bytes of raw are the dictionary
	comp   *[]byte // Deflate output, if method is Deflate
	crc    uint32  // whole items: CRC-32 of raw
	err    error   // the item cannot be packaged (ErrChanged, ErrName, opening…)
}

// dispatch queues the jobs, in item order, holding one token of the
// window per job: the writer returns it once the job's bytes are written.
func (p *packer) dispatch(ctx context.Context, work, ordered chan<- *job) error {
	t := newTools(p.opt)
	send := func(j *job) error {
		select {
		case p.sem <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case ordered <- j:
		case <-ctx.Done():
			return ctx.Err()
		}
		if j.done == nil {
			return nil // nothing to do: the job carries its error
		}
		select {
		case work <- j:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for i := range p.items {
		it := &p.items[i]
		if it.NoBitstream {
			if err := send(&job{item: i, last: true, whole: true}); err != nil {
				return err
			}
			continue
		}
		err := CheckName(p.names[i])
		if err == nil && it.Size < 0 {
			err = errors.New("its length is unknown")
		}
		if err != nil {
			if err := send(&job{item: i, last: true, whole: true, err: err}); err != nil {
				return err
			}
			continue
		}
		if it.Size <= chunkSize {
			if err := send(&job{item: i, last: true, whole: true, done: make(chan struct{})}); err != nil {
				return err
			}
			continue
		}
		src, method, err := p.openSplit(t, it)
		if err != nil {
			if err := send(&job{item: i, last: true, whole: true, err: err}); err != nil {
				return err
			}
			continue
		}
		for k, off := 0, int64(0); off < it.Size; k, off = k+1, off+chunkSize {
			n := min(chunkSize, it.Size-off)
			j := &job{item: i, chunk: k, last: off+n == it.Size, src: src, off: off, n: n, method: method, done: make(chan struct{})}
			if err := send(j); err != nil {
				if k == 0 {
					src.close()
				}
				return err
			}
		}
	}
	return nil
}

// openSplit opens the file of an item too large for one job and chooses
// how to store it.
func (p *packer) openSplit(t *tools, it *Item) (*source, uint16, error) {
	f, err := p.open(it)
	if err != nil {
		return nil, 0, err
	}
	method := p.method(it)
	if method == probeNeeded {
		head := make([]byte, probeSize)
		if _, err := f.ReadAt(head, 0); err != nil {
			f.Close()
			return nil, 0, changed(err)
		}
		method = t.decide(head)
	}
	return &source{f: f}, method, nil
}

// abandon closes what is open after a failure.
func (p *packer) abandon() {
	if p.cur != nil {
		p.cur.zw.discard()
		p.cur.f.Close()
		if p.cur.manifest != nil {
			p.cur.manifest.Close()
		}
	}
}
