package zipdump

import (
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// Compression says how bitstreams are stored in a package.
type Compression int

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

// defaultLevel is the Deflate level of packages. Measured on 64 MiB of Go
// source (docs/PERFORMANCE.md): compress/flate at level 6 compresses as
// well as Info-ZIP's default, zip -6, to 0.3%, at the same CPU cost per
// byte; level 5 costs a third less for output 1.4% larger, level 4 half
// for 5.5%. Since files are compressed in parallel, level 6 still packages
// faster than zip -r on two cores.
const defaultLevel = 6

// DefaultMaxBytes is the size a package is closed before.
const DefaultMaxBytes = 1 << 30

// ErrChanged reports a file whose bytes are no longer those whose length
// and digests were published: it changed or vanished after it was hashed.
var ErrChanged = errors.New("changed after it was hashed")

// An Item is one bitstream to package: a file whose length and digests
// are already known, from the pass that wrote the Resource List.
type Item struct {
	Name string // its path in the package, and the name Options.Open gets; one a package cannot hold is skipped with ErrName
	Size int64  // its length in bytes
	// Entry is its entry in the manifest: <loc>, <lastmod>, and <rs:md>
	// with hash (Hash, formatted), length and type. Run adds the path
	// attribute.
	Entry rsxml.Entry
	// Hash are its digests, by every algorithm of Options.Hashes: Run
	// checks the bytes it packages against them.
	Hash []hashing.Token
	// Also are the manifest entries of other resources whose bitstream is
	// this one (records of an export that name the same file): each gets
	// the same path, and they go into the same package. Their hash and
	// length must be those of Entry.
	Also []rsxml.Entry
	// NoBitstream makes the item an entry of the manifest only, without
	// bytes or path: a deletion in a Change Dump Manifest (section 13.2).
	// Name and Size are not used, and Open is not called for it.
	NoBitstream bool
}

// Options configure Run.
type Options struct {
	Hashes      hashing.Set // the algorithms of Item.Hash and of Package.Hash
	Compression Compression
	Level       int // Deflate level; defaultLevel if 0
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

	// Open opens the bytes of an item for reading: exactly it.Size bytes,
	// then io.EOF. A reader that has a Stat method (an *os.File, a member
	// of a zip.Reader) must say it is a regular file of it.Size bytes. A
	// reader that is an io.ReaderAt too (an *os.File) has the chunks of a
	// large item read at their offsets in parallel; any other is read from
	// start to end, one chunk after the other, while the chunks are
	// compressed in parallel. Open is called from several goroutines at
	// once, unless Sequential is set.
	Open func(it *Item) (io.ReadCloser, error)
	// Sequential says the items can only be read one after the other, in
	// their order, as the members of a tar stream are: Open is then called
	// in the order of the items, never before the reader of the item
	// before has been read to its end (or given up on and closed), and
	// never from two goroutines at once. Reading is then a single stream;
	// compressing still runs on every worker.
	Sequential bool
	// Create creates an output file (a package or the copy of a manifest)
	// by name, or a file of work (Stem-00001.manifest.xml.part: the entries
	// of a manifest, while its package is written); Remove removes one
	// that ends up unused, and each file of work.
	Create func(name string) (File, error)
	Remove func(name string) error
}

// A Package is one package Run wrote.
type Package struct {
	Name         string // Stem-00001.zip
	ManifestName string // Stem-00001.manifest.xml: a copy of its manifest.xml, byte for byte
	Size         int64
	Hash         []hashing.Token // digests of the package, by Options.Hashes
	Bitstreams   int
	First, End   int // it holds (what was not skipped of) items[First:End]
	At           time.Time
	Completed    time.Time
}

// A Skipped item was left out of every package, and why.
type Skipped struct {
	Index int // its position in the items
	Err   error
}

// A Result says what Run wrote.
type Result struct {
	Packages []Package
	Skipped  []Skipped // in the order of the items
}

// Why returns why each item was left out, by its index.
func (r *Result) Why() map[int]error {
	why := make(map[int]error, len(r.Skipped))
	for _, s := range r.Skipped {
		why[s.Index] = s.Err
	}
	return why
}

// A Seq is what RunSeq packages: items it reads twice, in the same order,
// from one goroutine at a time: first their names alone, to choose the
// name of each in its package (one that would hide manifest.xml is
// renamed), then whole. A caller with millions of items keeps them on disk
// this way rather than in a slice.
type Seq interface {
	// Names calls yield with the Name of every item, in order, until
	// yield returns false. Names must be distinct.
	Names(yield func(name string) bool) error
	// Items calls yield with every item, in order, until yield returns
	// false. yield copies the item: the caller may reuse it.
	Items(yield func(it *Item) bool) error
}

type sliceSeq []Item

func (s sliceSeq) Names(yield func(string) bool) error {
	for i := range s {
		if !yield(s[i].Name) {
			break
		}
	}
	return nil
}

func (s sliceSeq) Items(yield func(*Item) bool) error {
	for i := range s {
		if !yield(&s[i]) {
			break
		}
	}
	return nil
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
// each manifest beside its package. At most about 2*(2*Workers+2) MiB of
// file data is in flight.
//
// An item that changed since it was hashed, or whose name cannot be a
// path in a package, is left out and reported in Result.Skipped. Any
// other error (writing the output) stops Run; the files it created are
// then the caller's to remove.
func Run(ctx context.Context, items []Item, opt Options) (*Result, error) {
	return RunSeq(ctx, sliceSeq(items), opt)
}

// RunSeq is Run for items that a Seq gives: it holds only the items in
// flight, however many there are.
func RunSeq(ctx context.Context, items Seq, opt Options) (*Result, error) {
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	renames, n, err := chooseNames(items.Names)
	if err != nil {
		return nil, err
	}
	p := &packer{opt: &opt, seq: items, n: n, renames: renames, res: &Result{}}
	window := 2*opt.Workers + 2
	p.sem = make(chan struct{}, window)
	p.bufs = make(chan *[]byte, 2*window)
	p.smallBufs = make(chan *[]byte, 2*window)
	p.flates = make(chan *flate.Writer, opt.Workers+1)
	p.probes = make(chan *flate.Writer, opt.Workers+1)
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
	err = g.Wait()
	// Close the readers of split items still queued after a failure.
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
		o.Level = defaultLevel
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

// source is the reader of a split item, shared by its chunks. The first
// chunk's job opens it; the others wait for that.
type source struct {
	opened  chan struct{} // closed once the fields up to method are set
	openErr error         // opening failed: the item is skipped
	rc      io.ReadCloser
	r       io.Reader   // rc, or a bufio.Reader on it that probed its head
	ra      io.ReaderAt // if set, chunks are read at their offsets in parallel
	method  uint16
	// Read from start to end (ra is nil), one chunk at a time:
	readErr error  // a chunk could not be read: the later ones are not
	tail    []byte // the last dictSize bytes read: the next chunk's dictionary
	once    sync.Once
}

func (s *source) close() {
	s.once.Do(func() {
		if s.rc != nil {
			s.rc.Close()
		}
	})
}

// A job is one unit of work: a whole item, or one chunk of a split item.
type job struct {
	item  int   // position in the items
	it    *Item // the item
	name  string
	chunk int  // number of the chunk in its item; 0 for a whole item
	last  bool // the item's last chunk (always, for a whole item)
	whole bool
	src   *source // split items: the reader
	off   int64   // split items: where the chunk's data starts
	n     int64   // split items: the chunk's length

	// Reads that must happen one after the other (a Sequential source,
	// the chunks of an item without io.ReaderAt) form a chain: a job
	// reads once its after is closed, and closes readDone when it has read.
	after    <-chan struct{}
	readDone chan struct{}

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
	i := 0
	var err error
	serr := p.seq.Items(func(given *Item) bool {
		it := new(Item)
		*it = *given
		err = p.queue(ctx, work, ordered, i, it)
		i++
		return err == nil
	})
	switch {
	case err != nil:
		return err
	case serr != nil:
		return serr
	case i != p.n:
		return fmt.Errorf("zipdump: %d items, but %d names", i, p.n)
	}
	return nil
}

func (p *packer) queue(ctx context.Context, work, ordered chan<- *job, i int, it *Item) error {
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
	name := it.Name
	if r, ok := p.renames[name]; ok {
		name = r
	}
	if it.NoBitstream {
		return send(&job{item: i, it: it, last: true, whole: true})
	}
	err := checkName(name)
	if err == nil && it.Size < 0 {
		err = errors.New("its length is unknown")
	}
	if err != nil {
		return send(&job{item: i, it: it, name: name, last: true, whole: true, err: err})
	}
	if it.Size <= chunkSize {
		j := &job{item: i, it: it, name: name, last: true, whole: true, done: make(chan struct{})}
		if p.opt.Sequential {
			p.chain(j)
		}
		return send(j)
	}
	src := &source{opened: make(chan struct{})}
	var prev chan struct{} // the chain of the item's chunks, if not of all items
	for k, off := 0, int64(0); off < it.Size; k, off = k+1, off+chunkSize {
		n := min(chunkSize, it.Size-off)
		j := &job{item: i, it: it, name: name, chunk: k, last: off+n == it.Size, src: src, off: off, n: n, done: make(chan struct{})}
		if p.opt.Sequential {
			p.chain(j)
		} else {
			j.after, j.readDone = prev, make(chan struct{})
			prev = j.readDone
		}
		if err := send(j); err != nil {
			return err
		}
	}
	return nil
}

func (p *packer) chain(j *job) {
	j.after = p.lastRead
	j.readDone = make(chan struct{})
	p.lastRead = j.readDone
}

func (p *packer) abandon() {
	if p.cur != nil {
		p.cur.zw.discard()
		p.cur.f.Close()
		if p.cur.manifest != nil {
			p.cur.manifest.Close()
		}
		p.dropPart(p.cur) // the caller removes what is left
	}
}

// UnmarshalText reads c as ParseCompression does; "" is Auto.
func (c *Compression) UnmarshalText(b []byte) (err error) {
	if len(b) == 0 {
		*c = Auto
		return nil
	}
	*c, err = ParseCompression(string(b))
	return err
}
