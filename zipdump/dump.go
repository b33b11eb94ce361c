package zipdump

import (
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// Compression says how bitstreams are stored in a package. Auto stores
// media already compressed (mediatype.IsCompressed) and content that
// Deflate cannot shrink by 2% (judged on its first 64 KiB).
type Compression int

const (
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

// UnmarshalText reads "auto" (or ""), "store" or "deflate".
func (c *Compression) UnmarshalText(b []byte) error {
	for i, n := range compressionNames {
		if string(b) == n || len(b) == 0 {
			*c = Compression(i)
			return nil
		}
	}
	return fmt.Errorf("%q is not a compression (auto, store or deflate)", b)
}

// defaultLevel: on 64 MiB of Go source (docs/PERFORMANCE.md) level 6
// compresses as well as zip -6 (to 0.3%) at the same CPU per byte; level 5
// costs a third less for 1.4% more output, level 4 half for 5.5% more.
const defaultLevel = 6

const DefaultMaxBytes = 1 << 30 // the size a package is closed before

// ErrChanged reports a file whose bytes are no longer those whose length
// and digests were published: it changed or vanished after it was hashed.
var ErrChanged = errors.New("changed after it was hashed")

// An Item is one bitstream to package, whose length and digests the pass
// that wrote the Resource List found.
type Item struct {
	Name  string          // its path in the package; one a package cannot hold is skipped with ErrName
	Size  int64           // its length in bytes
	Entry rsxml.Entry     // its manifest entry; Run adds the path attribute
	Hash  []hashing.Token // by every algorithm of Options.Hashes: the bytes packaged are checked against them
	// Also are the entries of other resources with this bitstream (records
	// of an export naming the same file), of the same hash and length.
	Also []rsxml.Entry
	// NoBitstream makes the item a manifest entry without bytes or path:
	// a deletion in a Change Dump Manifest (section 13.2).
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

	Stem     string    // names the files: Stem-00001.zip, Stem-00001.manifest.xml, …
	Manifest rsxml.Doc // the root of every manifest (its links); Run sets its <rs:md>
	// At is the snapshot time and every entry's modification time; with
	// Now nil it is also every package's at and completed, so that the
	// same files give the same bytes.
	At  time.Time
	Now func() time.Time

	// ManifestMD, if set, gives the root <rs:md> (whole seconds) of the
	// manifest of a package holding items[first:end]: that of a Change Dump
	// Manifest. By default it is a Resource Dump Manifest's.
	ManifestMD func(first, end int) rsxml.MD

	// Open opens exactly it.Size bytes of an item. A reader with a Stat
	// method must be a regular file of it.Size bytes; one that is an
	// io.ReaderAt has a large item's chunks read in parallel.
	Open func(it *Item) (io.ReadCloser, error)
	// Sequential says the items can only be read in their order (a tar):
	// Open is then called in order, from one goroutine, once the reader of
	// the item before is done. Compressing still runs on every worker.
	Sequential bool
	// Create creates a package, a manifest copy or a file of work
	// (Stem-00001.manifest.xml.part); Remove removes one left unused.
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

// A Seq is what RunSeq packages, read twice in the same order from one
// goroutine: first the (distinct) names, to rename one that would hide
// manifest.xml, then the items, which yield copies. Millions of items can
// so stay on disk.
type Seq interface {
	Names(yield func(name string) bool) error
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

// A file larger than chunkSize is split, and its chunks compressed in
// parallel and joined into one Deflate stream as pigz does: each but the
// last ends with a sync flush, each but the first has the 32 KiB before
// it as dictionary. Boundaries depend only on offsets, not on workers.
const (
	chunkSize = 1 << 20
	dictSize  = 32 << 10
	probeSize = 64 << 10
)

// Run packages items, in order, into as many packages as the limits
// require, each with its manifest.xml, a copy of which goes beside it. At
// most about 2*(2*Workers+2) MiB of file data is in flight. An item that
// changed since it was hashed, or whose name a package cannot hold, is
// reported in Result.Skipped; any other error stops Run, leaving the files
// it created to the caller to remove.
func Run(ctx context.Context, items []Item, opt Options) (*Result, error) {
	return RunSeq(ctx, sliceSeq(items), opt)
}

// RunSeq is Run for the items of a Seq: it holds only those in flight.
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
	for j := range ordered { // readers of split items queued when it failed
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

// source is the reader of a split item, which its first chunk's job
// opens for all of them.
type source struct {
	opened  chan struct{} // closed once the fields up to method are set
	openErr error
	rc      io.ReadCloser
	r       io.Reader   // rc, or a bufio.Reader on it that probed its head
	ra      io.ReaderAt // if set, chunks are read at their offsets in parallel
	method  uint16
	readErr error  // read from start to end: a chunk failed, so do the later ones
	tail    []byte // read from start to end: the next chunk's dictionary
	once    sync.Once
}

func (s *source) close() {
	s.once.Do(func() {
		if s.rc != nil {
			s.rc.Close()
		}
	})
}

// A job is one unit of work: a whole item, or (src set) a chunk of one.
type job struct {
	item  int // position in the items
	it    *Item
	name  string
	chunk int  // number of the chunk in its item
	last  bool // the item's last chunk (always, for a whole item)
	src   *source
	off   int64 // where the chunk's data starts
	n     int64 // the chunk's length

	// Reads that must be in order (Sequential, or chunks without
	// io.ReaderAt) are chained: a job reads once after is closed.
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

// dispatch queues the jobs in item order, each holding a token of the
// window until the writer has written it.
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
		if j.done == nil { // nothing to do: the job carries its error
			return nil
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
		return send(&job{item: i, it: it, last: true})
	}
	err := checkName(name)
	if err == nil && it.Size < 0 {
		err = errors.New("its length is unknown")
	}
	if err != nil {
		return send(&job{item: i, it: it, name: name, last: true, err: err})
	}
	if it.Size <= chunkSize {
		j := &job{item: i, it: it, name: name, last: true, done: make(chan struct{})}
		if p.opt.Sequential {
			p.chain(j)
		}
		return send(j)
	}
	src := &source{opened: make(chan struct{})}
	var prev chan struct{} // the chain of the item's chunks, unless of all items
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

const ManifestName = "manifest.xml" // at the top level of a package (section 11.2)

// ErrName reports a path that cannot be an entry of a package.
var ErrName = errors.New("cannot be packaged under this name")

// checkName reports whether name can be the path of a bitstream in a
// package: relative, without empty, "." or ".." segments, UTF-8 of at most
// 65,535 bytes, without what XML or the path attribute's pattern
// "/.*[^/]" cannot carry, nor a backslash (APPNOTE.TXT 4.4.17).
func checkName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: the path is empty", ErrName)
	case len(name) > 0xffff:
		return fmt.Errorf("%w: the path is longer than ZIP allows (65,535 bytes)", ErrName)
	case !utf8.ValidString(name):
		return fmt.Errorf("%w: the path is not valid UTF-8", ErrName)
	case name[0] == '/':
		return fmt.Errorf("%w: the path is absolute", ErrName)
	}
	for seg := range strings.SplitSeq(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("%w: the path has an empty, \".\" or \"..\" segment", ErrName)
		}
	}
	for _, r := range name {
		switch {
		case r == '\n' || r == '\r':
			return fmt.Errorf("%w: the name has a line break, which the path attribute of a manifest cannot hold (schema pattern \"/.*[^/]\"); rename the file", ErrName)
		case r < 0x20 && r != '\t':
			return fmt.Errorf("%w: the name has control character %U, which a manifest (XML) cannot hold; rename the file", ErrName, r)
		case r == 0xfffe || r == 0xffff:
			return fmt.Errorf("%w: the name has %U, which XML cannot hold; rename the file", ErrName, r)
		case r == '\\':
			return fmt.Errorf("%w: the name has a backslash, which ZIP forbids in entry names and some extractors read as a directory separator; rename the file", ErrName)
		}
	}
	return nil
}

// chooseNames returns the renames of the items' names, and their number.
// A top-level ManifestName in any letter case (it would hide the manifest
// on a case-insensitive file system) gets underscores before it until it
// matches no other path nor directory. Only the names that could be in
// the way (ManifestName behind underscores) are kept in memory.
func chooseNames(names func(yield func(string) bool) error) (map[string]string, int, error) {
	var taken []string   // first segments in the way, as files or directories
	var pending []string // names to rename, in order
	n := 0
	err := names(func(name string) bool {
		n++
		seg, _, _ := strings.Cut(name, "/")
		if !strings.EqualFold(strings.TrimLeft(seg, "_"), ManifestName) {
			return true
		}
		if seg == name && strings.EqualFold(name, ManifestName) {
			pending = append(pending, name)
		}
		taken = append(taken, seg)
		return true
	})
	if err != nil || len(pending) == 0 {
		return nil, n, err
	}
	slices.Sort(taken)
	renames := make(map[string]string, len(pending))
	for _, name := range pending {
		c := name
		for {
			c = "_" + c
			if _, found := slices.BinarySearch(taken, c); !found {
				break
			}
		}
		i, _ := slices.BinarySearch(taken, c)
		taken = slices.Insert(taken, i, c)
		renames[name] = c
	}
	return renames, n, nil
}
