package archivescan

import (
	"archive/tar"
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/rsgen/rsgen/generator/internal/report"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/binrec"
	"github.com/rsgen/rsgen/internal/extsort"
	"github.com/rsgen/rsgen/internal/mediatype"
	"github.com/rsgen/rsgen/internal/rsxml"
	"github.com/rsgen/rsgen/internal/spool"
	"github.com/rsgen/rsgen/internal/tree"
	"github.com/rsgen/rsgen/internal/uri"
)

// An Archive is a source that is a .tar, .tar.gz, .tgz or .zip file: its
// members are published as the files of the tree it holds, with the same
// URL mapping, filter and hashing, read as a stream and never unpacked to
// disk. Its members' modification times are their lastmod.
//
// Members are refused, each as a Problem, never read, and never written
// anywhere, if their name is absolute, has a "..", "." or empty segment, a
// backslash, a NUL, or is not valid UTF-8; if they are hard links (use tar
// --hard-dereference); or if the archive holds the same name twice (tar
// -r appends a copy; which one is meant cannot be known). Directories,
// devices and FIFOs are skipped; symbolic links are skipped with a notice.
//
// Zip members are hashed in parallel (zip.File.Open reads each one
// independently); a tar is a stream, hashed member after member by the
// goroutine that reads it.
type Archive struct {
	Path string
	Kind Kind
	// members maps the path of each published member to its index in the
	// archive: in zip.Reader.File, or in the order of the tar stream. A
	// scan keeps it only when asked to (Scan.Index), for a Resource Dump.
	members map[string]int
	// emptyHash is the hash attribute of empty content, shared by every
	// empty member.
	emptyHash string
}

// Index returns the position in the archive of the member published as
// name, which Scan.Index kept, and whether it has one.
func (a *Archive) Index(name string) (int, bool) {
	i, ok := a.members[name]
	return i, ok
}

// memberName checks the name of a member and returns it as a path
// relative to the root of the tree, or "" for a directory.
func memberName(raw string) (string, error) {
	switch {
	case !utf8.ValidString(raw):
		return "", errors.New("the name is not valid UTF-8 and has no URL")
	case strings.IndexByte(raw, 0) >= 0:
		return "", errors.New("the name has a NUL character")
	case strings.IndexByte(raw, '\\') >= 0:
		return "", errors.New("the name has a backslash, which some tools read as a separator; refused")
	case strings.HasPrefix(raw, "/") || len(raw) >= 2 && raw[1] == ':' && ('a' <= raw[0]|0x20 && raw[0]|0x20 <= 'z'):
		return "", errors.New("absolute name; refused, never written or read")
	}
	name := raw
	for strings.HasPrefix(name, "./") {
		name = name[2:]
	}
	if name == "" || name == "." || strings.HasSuffix(name, "/") {
		return "", nil
	}
	for seg := range strings.SplitSeq(name, "/") {
		switch seg {
		case "..":
			return "", errors.New("the name has a .. segment, which leaves the archive; refused, never written or read")
		case "", ".":
			return "", fmt.Errorf("the name has an empty or %q segment; refused", ".")
		}
	}
	return name, nil
}

// maxProblemName is the longest member name a problem keeps: a name
// too long for a URL was never published, so none is needed whole, and a
// tar's names may be a MiB each (PAX), which a .tar.gz compresses to a few
// KiB: kept whole, a small archive could take all the memory.
const maxProblemName = 512

// clipName returns name, cut to maxProblemName bytes (at a character) and
// marked with "…" if it is longer.
func clipName(name string) string {
	if len(name) <= maxProblemName {
		return name
	}
	i := maxProblemName
	for i > 0 && !utf8.RuneStart(name[i]) {
		i--
	}
	return strings.Clone(name[:i]) + "…"
}

// displayName quotes a member name that cannot be shown as it is.
func displayName(raw string) string {
	if utf8.ValidString(raw) && !strings.ContainsAny(raw, "\x00\n\r") {
		return raw
	}
	return fmt.Sprintf("%q", raw)
}

// publishes reports whether the member name is published by the filter,
// checking each of its directories as the walker prunes them, and leaving
// out those Scan.Skip names.
func (sc *Scan) publishes(name string) bool {
	if sc.Skip != nil && sc.Skip(name) {
		return false
	}
	f := sc.Filter
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			dir := name[:i]
			if f.PruneDir(dir[strings.LastIndexByte(dir, '/')+1:], dir) {
				return false
			}
		}
	}
	return f.Publishes(name[strings.LastIndexByte(name, '/')+1:], name)
}

// MaxMembers is the most entries (files, directories, links…) an
// archive may hold. Each published member is held in memory, some 250
// bytes, until the lists are written, and a .tar.gz of empty members
// compresses each to a few bytes: a small file could otherwise take all
// the memory of the machine.
const MaxMembers = 2_000_000

// ErrTooManyMembers reports an archive of more than MaxMembers.
var ErrTooManyMembers = errors.New("the archive holds too many members")

// maxMembers is MaxMembers, lowered by tests.
var maxMembers = MaxMembers

// A Scan reads the members of an archive given as the source, and hashes
// those it publishes: a zip's several at once, a tar's in its order,
// sorted on disk.
type Scan struct {
	Archive *Archive
	Filter  *tree.Filter           // what is published, as of a tree
	Skip    func(name string) bool // members never published (rsgen's own documents); nil: none
	Base    uri.Base               // the URL of the tree the archive holds
	Hashes  hashing.Set            // the digests of each member
	Jobs    int                    // hashing workers for a zip; 0 or less: hashing.DefaultWorkers
	// Index keeps the position of each published member in the archive,
	// for reading them again (Archive.OpenMembers): a Resource Dump.
	Index bool

	Spill    *spill.Area      // where the resources are spooled, and a tar sorted
	Problems *report.Problems // the members that cannot be published
	Stats    *report.Stats    // Found, Hashed, Bytes, WalkDone
	Notice   func(string)     // tells the user what they should know; never nil

	unread report.Unread // the members reported as problems (Run's)
}

// Run lists and hashes the published members of the archive, and spools
// them sorted by path. A member that cannot be published (a name refused,
// a name two members hold, a method of compression not supported, a hard
// link) is a problem, and unread: it keeps its previous entry rather than
// being announced as deleted. A damaged archive is an error wrapping
// ErrDamaged.
func (sc *Scan) Run(ctx context.Context) (*spill.ResourceSpool, report.Unread, error) {
	sc.unread = report.Unread{}
	found, err := sc.run(ctx)
	if err != nil {
		return nil, report.Unread{}, err
	}
	return found, sc.unread, nil
}

// problem reports a member that is not published.
func (sc *Scan) problem(p report.Problem) {
	sc.Problems.Add(p)
	sc.unread.Files = append(sc.unread.Files, p.Path)
}

func (sc *Scan) run(ctx context.Context) (*spill.ResourceSpool, error) {
	a := sc.Archive
	a.members = nil
	if sc.Index {
		a.members = map[string]int{}
	}
	_, empty, err := hashing.NewHasher(sc.Hashes).Sum(nil, strings.NewReader(""))
	if err != nil {
		return nil, err
	}
	a.emptyHash = sc.Hashes.Format(empty)
	if a.Kind == Zip {
		out, err := sc.scanZip(ctx, a)
		if err != nil {
			return nil, err
		}
		return sc.Spill.ResourcesOf(out)
	}
	return sc.scanTar(ctx, a)
}

// sortMembers sorts the resources of an archive by path.
func sortMembers(out []spill.Resource) {
	slices.SortFunc(out, func(x, y spill.Resource) int { return strings.Compare(x.Path, y.Path) })
}

// member is one entry of an archive, as scanning sees it.
type member struct {
	raw   string
	index int
	mode  fs.FileMode
	link  bool // a tar hard link
}

// admit decides whether a member is published: it returns the member's
// path, or "" after reporting why not, if that needs reporting. Each path
// admitted is counted in seen, if it is not nil.
func (sc *Scan) admit(m member, seen map[string]int) string {
	name, err := memberName(m.raw)
	if err != nil {
		sc.problem(report.Problem{Path: clipName(displayName(m.raw)), Err: err})
		return ""
	}
	if name == "" || m.mode.IsDir() || !sc.publishes(name) {
		return ""
	}
	switch {
	case m.link:
		sc.problem(report.Problem{Path: name, Err: errors.New("hard link; not published (make the archive with tar --hard-dereference)")})
		return ""
	case m.mode&fs.ModeSymlink != 0:
		sc.Notice(fmt.Sprintf("%s: symbolic link in the archive, not published", name))
		return ""
	case !m.mode.IsRegular():
		return "" // devices, FIFOs: no bytes to publish
	}
	if seen != nil {
		seen[name]++
	}
	return name
}

// dropDuplicates removes every resource whose path the archive holds more
// than once, and reports each such path; seen counts the members of each
// path.
func (sc *Scan) dropDuplicates(out []spill.Resource, seen map[string]int) []spill.Resource {
	for name, n := range seen {
		if n > 1 {
			sc.duplicate(name, n)
		}
	}
	return slices.DeleteFunc(out, func(r spill.Resource) bool { return seen[r.Path] > 1 })
}

// duplicate reports the n members of the archive published as name: none
// is published.
func (sc *Scan) duplicate(name string, n int) {
	sc.problem(report.Problem{Path: name, Err: fmt.Errorf("the archive holds %d members of this name; none is published", n)})
	delete(sc.Archive.members, name)
}

// dropConflicts reports each path in conflict as not published, and
// returns them as a set.
func (sc *Scan) dropConflicts(found []dirConflict) map[string]bool {
	drop := map[string]bool{}
	for _, c := range found {
		err := errors.New("the archive holds this name as a file and as a directory of other members; no tree holds both, and neither is published")
		if c.under != "" {
			err = fmt.Errorf("under %s, which the archive holds as a file too; no tree holds both, and neither is published", c.under)
		}
		sc.problem(report.Problem{Path: c.path, Err: err})
		delete(sc.Archive.members, c.path)
		drop[c.path] = true
	}
	return drop
}

// resource makes the Resource of a member that was read.
func (sc *Scan) resource(name string, n int64, sum []byte, head []byte, mod fs.FileInfo) (spill.Resource, error) {
	loc, err := sc.Base.Resolve(name)
	if err != nil {
		return spill.Resource{}, err
	}
	typ := mediatype.ByName(name)
	if typ == "" {
		typ = mediatype.Sniff(head)
	}
	hash := sc.Archive.emptyHash // one string for every empty member
	if n > 0 {
		hash = sc.Hashes.Format(sum)
	}
	return spill.Resource{Path: name, Loc: loc, Length: n, Modified: mod.ModTime().UTC(), Hash: hash, Type: typ}, nil
}

// scanZip hashes the members of a zip file with a pool of workers.
func (sc *Scan) scanZip(ctx context.Context, a *Archive) ([]spill.Resource, error) {
	zr, err := zip.OpenReader(a.Path)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", a.Path, err)
	}
	defer zr.Close()
	if len(zr.File) > maxMembers {
		return nil, fmt.Errorf("source %s: %w: %d, more than the %d rsgen holds in memory", a.Path, ErrTooManyMembers, len(zr.File), maxMembers)
	}
	seen := map[string]int{}
	var pending []int
	names := make([]string, len(zr.File))
	for i, f := range zr.File {
		m := member{raw: f.Name, index: i, mode: f.Mode()}
		if names[i] = sc.admit(m, seen); names[i] != "" {
			pending = append(pending, i)
			if a.members != nil {
				a.members[names[i]] = i
			}
			sc.Stats.Found.Add(1)
		}
	}
	if err := checkOverlap(zr.File, pending); err != nil {
		return nil, fmt.Errorf("reading the archive %s: %w", a.Path, damaged(err))
	}
	sc.Stats.WalkDone.Store(true)

	results := make([]*spill.Resource, len(zr.File))
	jobs := make(chan hashing.Job, 256)
	done := make(chan hashing.Result, 256)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(jobs)
		for _, i := range pending {
			f := zr.File[i]
			// ctx, not gctx: an interrupt stops the member under way.
			open := func() (io.ReadCloser, error) {
				rc, err := openZipMember(f)
				if err != nil {
					return nil, err
				}
				return struct {
					io.Reader
					io.Closer
				}{ctxReader{ctx, rc}, rc}, nil
			}
			job := hashing.Job{Name: names[i], Seq: uint64(i), Sniff: true, Open: open}
			select {
			case jobs <- job:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	pool := &hashing.Pool{Set: sc.Hashes, Workers: sc.Jobs, Progress: func(files int, bytes int64) {
		sc.Stats.Hashed.Add(int64(files))
		sc.Stats.Bytes.Add(bytes)
	}}
	g.Go(func() error {
		defer close(done)
		return pool.Run(gctx, jobs, done)
	})
	g.Go(func() error {
		for res := range done {
			i := int(res.Seq)
			r, err := sc.member(res, zr.File[i].FileInfo())
			switch {
			case errors.Is(err, uri.ErrLocTooLong): // never published: its name is not needed whole
				sc.problem(report.Problem{Path: clipName(res.Name), Err: err})
			case errors.Is(err, zip.ErrAlgorithm): // its previous entry is kept by its name
				sc.problem(report.Problem{Path: res.Name, Err: err})
			case err != nil:
				return fmt.Errorf("reading the archive %s: %s: %w", a.Path, res.Name, damaged(err))
			default:
				results[i] = &r
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var out []spill.Resource
	for _, r := range results {
		if r != nil {
			out = append(out, *r)
		}
	}
	sortMembers(out)
	out = sc.dropDuplicates(out, seen)
	var dc dirConflicts
	for i := range out {
		dc.add(out[i].Path)
	}
	drop := sc.dropConflicts(dc.found)
	return slices.DeleteFunc(out, func(r spill.Resource) bool { return drop[r.Path] }), nil
}

// readMember reads and hashes one member, until ctx is done: a member may
// expand to far more than the archive holds (a sparse tar member of a
// petabyte takes a few hundred bytes), so an interrupt must not wait for
// its end.
func (sc *Scan) readMember(ctx context.Context, h *hashing.Hasher, name string, info fs.FileInfo, open func() (io.ReadCloser, error)) (spill.Resource, error) {
	rc, err := open()
	if err != nil {
		return spill.Resource{}, fmt.Errorf("reading from the archive: %w", err)
	}
	n, sum, err := h.Sum(make([]byte, 0, sc.Hashes.SumSize()), ctxReader{ctx, rc})
	if cerr := rc.Close(); err == nil {
		err = cerr
	}
	sc.Stats.Hashed.Add(1)
	sc.Stats.Bytes.Add(n)
	if err != nil {
		return spill.Resource{}, fmt.Errorf("reading from the archive: %w", err)
	}
	if n != info.Size() {
		return spill.Resource{}, fmt.Errorf("reading from the archive: %w: %d bytes, the archive says %d", ErrDamaged, n, info.Size())
	}
	return sc.resource(name, n, sum, h.Head(), info)
}

// member makes the Resource of a zip member the hashing pool read.
func (sc *Scan) member(res hashing.Result, info fs.FileInfo) (spill.Resource, error) {
	if res.Err != nil {
		return spill.Resource{}, fmt.Errorf("reading from the archive: %w", res.Err)
	}
	if n := res.Info.Size; n != info.Size() {
		return spill.Resource{}, fmt.Errorf("reading from the archive: %w: %d bytes, the archive says %d", ErrDamaged, n, info.Size())
	}
	return sc.resource(res.Name, res.Info.Size, res.Sum, res.Head, info)
}

// scanTar hashes the members of a tar stream in the order they come, and
// spools them in the order of their paths through an external sort in the
// stage: its memory is that of the sort, whatever the size of the archive.
// Hashing in this goroutine was measured against handing the bytes to
// another: see BenchmarkScanArchive and docs/PERFORMANCE.md.
func (sc *Scan) scanTar(ctx context.Context, a *Archive) (*spill.ResourceSpool, error) {
	ts, err := openTar(a)
	if err != nil {
		return nil, err
	}
	defer ts.close()
	spillDir, err := sc.Spill.Path()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(spillDir, "archive-")
	if err != nil {
		return nil, err
	}
	sorter := extsort.New(dir, archiveSortMemory)
	defer sorter.Close()
	tr := ts.tr
	h := hashing.NewHasher(sc.Hashes)
	var rec []byte
	most := int64(math.MaxInt64) // the most bytes a member can expand to
	if st, err := os.Stat(a.Path); err == nil && st.Size() < (math.MaxInt64-maxMemberSlack)/maxExpansion {
		most = st.Size()*maxExpansion + maxMemberSlack
	}
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the archive %s: %w", a.Path, damaged(err))
		}
		if i >= maxTarMembers {
			return nil, fmt.Errorf("source %s: %w: more than %d", a.Path, ErrTooManyMembers, maxTarMembers)
		}
		m := member{raw: hdr.Name, index: i, mode: tarMode(hdr.Typeflag), link: hdr.Typeflag == tar.TypeLink}
		name := sc.admit(m, nil) // every member admitted is read, and is sorted
		if name == "" {
			continue
		}
		if hdr.Size > most {
			// A sparse member (GNU or PAX) says how large it is, whatever
			// bytes it holds: a few hundred bytes may declare a petabyte of
			// holes, which would be hashed for days. tar.Reader.Next skips
			// its data, not its holes.
			sc.problem(report.Problem{Path: name, Err: fmt.Errorf("%w: it declares %d bytes, more than the %d bytes of the archive can hold, compressed or not (a sparse file?)", ErrMemberTooLarge, hdr.Size, most)})
			continue
		}
		sc.Stats.Found.Add(1)
		if a.members != nil {
			a.members[name] = i
		}
		r, err := sc.readMember(ctx, h, name, hdr.FileInfo(), func() (io.ReadCloser, error) { return io.NopCloser(tr), nil })
		if errors.Is(err, uri.ErrLocTooLong) { // read to its end: the stream goes on
			sc.problem(report.Problem{Path: clipName(name), Err: err})
			continue
		}
		if err != nil {
			// The stream is broken: nothing after this member can be read.
			return nil, fmt.Errorf("reading the archive %s: %s: %w", a.Path, name, damaged(err))
		}
		rec = spill.AppendResource(rec[:0], &spill.Resource{}, &r)
		if err := sorter.Add([]byte(name), rec); err != nil {
			return nil, fmt.Errorf("%w: %w", spill.ErrSpool, err)
		}
	}
	if err := ts.end(); err != nil {
		return nil, fmt.Errorf("reading the archive %s: %w", a.Path, damaged(err))
	}
	sc.Stats.WalkDone.Store(true)
	return sc.spoolSorted(sorter)
}

// ErrMemberTooLarge reports a member of a tar larger than the archive
// could expand to: a sparse file of mostly holes, or a hostile one.
var ErrMemberTooLarge = errors.New("member too large")

// maxExpansion and maxMemberSlack bound the size of a tar member by the
// size of the archive: Deflate cannot expand data more than 1,032 times,
// so a member larger than maxExpansion times the archive, give or take the
// slack, is one whose size is not its bytes (a sparse file).
const (
	maxExpansion   = 1100
	maxMemberSlack = 1 << 20
)

// archiveSortMemory is the memory of the sort of a tar's members.
var archiveSortMemory = 32 << 20 // a variable for the tests

// maxTarMembers bounds the members of a tar: the most resources the spec
// lets a Resource List index (50,000 lists of 50,000). A tar is sorted on
// disk, so this bounds the time and the disk a hostile archive of empty
// members can take, not the memory.
var maxTarMembers = rsxml.MaxEntries * rsxml.MaxEntries

// spoolSorted spools the members of an archive that sorter holds, keyed
// by path, leaving out and reporting every path that several members have.
func (sc *Scan) spoolSorted(sorter *extsort.Sorter) (*spill.ResourceSpool, error) {
	it, err := sorter.Iter()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", spill.ErrSpool, err)
	}
	defer it.Close()
	found, err := sc.Spill.Resources()
	if err != nil {
		return nil, err
	}
	var cur spill.Resource
	var dc dirConflicts
	n := 0 // members of cur's path
	flush := func() error {
		switch {
		case n == 1:
			dc.add(cur.Path)
			return found.Add(&cur)
		case n > 1:
			sc.duplicate(cur.Path, n)
		}
		return nil
	}
	intern := func(t []byte) string { return string(t) }
	for it.Next() {
		if n > 0 && string(it.Key()) == cur.Path {
			n++
			continue
		}
		if err := flush(); err != nil {
			return nil, err
		}
		cur = spill.Resource{}
		if err := spill.ReadResource(binrec.NewReader(it.Value(), spool.ErrCorrupt), &cur, intern); err != nil {
			return nil, fmt.Errorf("%w: %w", spill.ErrSpool, err)
		}
		n = 1
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", spill.ErrSpool, err)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(dc.found) == 0 {
		return found, nil
	}
	// Rare, and only in an archive no tree could be unpacked from: spooled
	// again without the paths in conflict.
	defer found.Close()
	kept, err := sc.Spill.Resources()
	if err != nil {
		return nil, err
	}
	drop := sc.dropConflicts(dc.found)
	err = found.Each(func(r *spill.Resource) error {
		if drop[r.Path] {
			return nil
		}
		return kept.Add(r)
	})
	if err != nil {
		return nil, err
	}
	return kept, nil
}

// ctxReader reads r until ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// tarMode is the type of a tar member, by its type flag alone: the type
// bits of its mode may say otherwise, and a pax global header (which git
// archive writes) is no file.
func tarMode(flag byte) fs.FileMode {
	switch flag {
	case tar.TypeReg, tar.TypeCont, tar.TypeGNUSparse, tar.TypeLink:
		return 0
	case tar.TypeDir:
		return fs.ModeDir
	case tar.TypeSymlink:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular // devices, FIFOs, pax global headers, volume labels
}
