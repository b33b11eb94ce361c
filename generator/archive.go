package generator

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
	"github.com/rsgen/rsgen/zipdump"
)

// An archive is a source that is a .tar, .tar.gz, .tgz or .zip file: its
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
type archive struct {
	path string
	kind archiveKind
	// members maps the path of each published member to its index in the
	// archive: in zip.Reader.File, or in the order of the tar stream.
	members map[string]int
	// emptyHash is the hash attribute of empty content, shared by every
	// empty member.
	emptyHash string
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
// out rsgen's own documents when the archive is served where they are.
func (sc *archiveScan) publishes(name string) bool {
	if sc.cfg.DocsURL == sc.cfg.BaseURL && (name == WellKnownFile || name == DocsDir || strings.HasPrefix(name, DocsDir+"/")) {
		return false
	}
	f := &sc.cfg.Filter
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

// MaxArchiveMembers is the most entries (files, directories, links…) an
// archive may hold. Each published member is held in memory, some 250
// bytes, until the lists are written, and a .tar.gz of empty members
// compresses each to a few bytes: a small file could otherwise take all
// the memory of the machine.
const MaxArchiveMembers = 2_000_000

// ErrTooManyMembers reports an archive of more than MaxArchiveMembers.
var ErrTooManyMembers = errors.New("the archive holds too many members")

// maxArchiveMembers is MaxArchiveMembers, lowered by tests.
var maxArchiveMembers = MaxArchiveMembers

// scanArchive lists and hashes the published members of the archive, and
// spools them sorted by path. The index of each member (archive.members)
// is kept only for a Resource Dump, which reads the members again.
func (b *build) scanArchive(ctx context.Context) (*spill.ResourceSpool, error) {
	a := b.archive
	sc := &archiveScan{cfg: b.cfg, a: a, stats: b.stats, problems: &b.problems, spill: &b.spill, notice: b.notice}
	if b.cfg.Dump.Enabled {
		a.members = map[string]int{}
	}
	_, empty, err := hashing.NewHasher(b.cfg.Hashes).Sum(nil, strings.NewReader(""))
	if err != nil {
		return nil, err
	}
	a.emptyHash = b.cfg.Hashes.Format(empty)
	var found *spill.ResourceSpool
	if a.kind == archiveZip {
		var out []Resource
		if out, err = sc.scanZip(ctx, a); err == nil {
			found, err = b.spill.ResourcesOf(out)
		}
	} else {
		found, err = sc.scanTar(ctx, a)
	}
	if err != nil {
		return nil, err
	}
	// A member reported as a problem (a name two members hold, a method
	// of compression not supported, a hard link) was not published: it
	// keeps its previous entry rather than being announced as deleted.
	var unread []string
	for _, p := range b.problems.Sorted() {
		unread = append(unread, p.Path)
	}
	return b.keepUnread(ctx, found, nil, unread)
}

// An archiveScan reads the members of the archive given as the source
// (a), and hashes those it publishes: a zip's several at once, a tar's in
// its order, sorted on disk.
type archiveScan struct {
	cfg      *Config
	a        *archive
	stats    *Stats
	problems *report.Problems
	spill    *spill.Area
	notice   func(string)
}

// sortMembers sorts the resources of an archive by path.
func sortMembers(out []Resource) {
	slices.SortFunc(out, func(x, y Resource) int { return strings.Compare(x.Path, y.Path) })
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
func (sc *archiveScan) admit(m member, seen map[string]int) string {
	name, err := memberName(m.raw)
	if err != nil {
		sc.problems.Add(Problem{Path: clipName(displayName(m.raw)), Err: err})
		return ""
	}
	if name == "" || m.mode.IsDir() || !sc.publishes(name) {
		return ""
	}
	switch {
	case m.link:
		sc.problems.Add(Problem{Path: name, Err: errors.New("hard link; not published (make the archive with tar --hard-dereference)")})
		return ""
	case m.mode&fs.ModeSymlink != 0:
		sc.notice(fmt.Sprintf("%s: symbolic link in the archive, not published", name))
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
// than once, and reports each such path. seen counts the members of each
// path; if it is nil, every member is in out, which is sorted.
func (sc *archiveScan) dropDuplicates(out []Resource, seen map[string]int) []Resource {
	if seen == nil {
		seen = map[string]int{}
		for i := 1; i < len(out); i++ {
			if out[i].Path == out[i-1].Path {
				seen[out[i].Path] = max(seen[out[i].Path], 1) + 1
			}
		}
	}
	for name, n := range seen {
		if n > 1 {
			sc.problems.Add(Problem{Path: name, Err: fmt.Errorf("the archive holds %d members of this name; none is published", n)})
			delete(sc.a.members, name)
		}
	}
	return slices.DeleteFunc(out, func(r Resource) bool { return seen[r.Path] > 1 })
}

// dirConflicts finds, in paths given in byte order, each file that an
// archive also holds as a directory, with members under it (x, and x/y):
// no tree holds both. Its memory is a chain of paths, each the one before
// it followed by more (a byte up to '/' first): those a later path may
// still lie under. A path is at most MaxLocLength bytes, so the chain is
// at most that many paths long, whatever the archive.
type dirConflicts struct {
	chain []heldPath
	found []dirConflict
}

type heldPath struct {
	path     string
	reported bool
}

// A dirConflict is a path in conflict: a file with members under it, or a
// member under a file (under names that file).
type dirConflict struct {
	path, under string
}

// add takes the next path, after those added before it.
func (d *dirConflicts) add(q string) {
	for len(d.chain) > 0 {
		p := d.chain[len(d.chain)-1].path
		if len(q) > len(p) && q[len(p)] <= '/' && strings.HasPrefix(q, p) {
			break // q, and later paths, may still lie under p
		}
		d.chain = d.chain[:len(d.chain)-1]
	}
	under := ""
	for i := range d.chain {
		h := &d.chain[i]
		if q[len(h.path)] != '/' {
			continue
		}
		if !h.reported {
			h.reported = true
			d.found = append(d.found, dirConflict{path: h.path})
		}
		if under == "" {
			under = h.path
		}
	}
	if under != "" {
		d.found = append(d.found, dirConflict{path: q, under: under})
	}
	d.chain = append(d.chain, heldPath{path: q, reported: under != ""})
}

// dropConflicts reports each path in conflict as not published, and
// returns them as a set.
func (sc *archiveScan) dropConflicts(found []dirConflict) map[string]bool {
	drop := map[string]bool{}
	for _, c := range found {
		err := errors.New("the archive holds this name as a file and as a directory of other members; no tree holds both, and neither is published")
		if c.under != "" {
			err = fmt.Errorf("under %s, which the archive holds as a file too; no tree holds both, and neither is published", c.under)
		}
		sc.problems.Add(Problem{Path: c.path, Err: err})
		delete(sc.a.members, c.path)
		drop[c.path] = true
	}
	return drop
}

// resource makes the Resource of a member that was read.
func (sc *archiveScan) resource(name string, n int64, sum []byte, head []byte, mod fs.FileInfo) (Resource, error) {
	loc, err := sc.cfg.BaseURL.Resolve(name)
	if err != nil {
		return Resource{}, err
	}
	typ := mediatype.ByName(name)
	if typ == "" {
		typ = mediatype.Sniff(head)
	}
	hash := sc.a.emptyHash // one string for every empty member
	if n > 0 {
		hash = sc.cfg.Hashes.Format(sum)
	}
	return Resource{Path: name, Loc: loc, Length: n, Modified: mod.ModTime().UTC(), Hash: hash, Type: typ}, nil
}

// scanZip hashes the members of a zip file with a pool of workers.
func (sc *archiveScan) scanZip(ctx context.Context, a *archive) ([]Resource, error) {
	zr, err := zip.OpenReader(a.path)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", a.path, err)
	}
	defer zr.Close()
	if len(zr.File) > maxArchiveMembers {
		return nil, fmt.Errorf("source %s: %w: %d, more than the %d rsgen holds in memory", a.path, ErrTooManyMembers, len(zr.File), maxArchiveMembers)
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
			sc.stats.Found.Add(1)
		}
	}
	if err := checkOverlap(zr.File, pending); err != nil {
		return nil, fmt.Errorf("reading the archive %s: %w", a.path, damaged(err))
	}
	sc.stats.WalkDone.Store(true)

	results := make([]*Resource, len(zr.File))
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
	pool := &hashing.Pool{Set: sc.cfg.Hashes, Workers: sc.cfg.Jobs, Progress: func(files int, bytes int64) {
		sc.stats.Hashed.Add(int64(files))
		sc.stats.Bytes.Add(bytes)
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
			case errors.Is(err, ErrLocTooLong): // never published: its name is not needed whole
				sc.problems.Add(Problem{Path: clipName(res.Name), Err: err})
			case errors.Is(err, zip.ErrAlgorithm): // its previous entry is kept by its name
				sc.problems.Add(Problem{Path: res.Name, Err: err})
			case err != nil:
				return fmt.Errorf("reading the archive %s: %s: %w", a.path, res.Name, damaged(err))
			default:
				results[i] = &r
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var out []Resource
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
	return slices.DeleteFunc(out, func(r Resource) bool { return drop[r.Path] }), nil
}

// readMember reads and hashes one member, until ctx is done: a member may
// expand to far more than the archive holds (a sparse tar member of a
// petabyte takes a few hundred bytes), so an interrupt must not wait for
// its end.
func (sc *archiveScan) readMember(ctx context.Context, h *hashing.Hasher, name string, info fs.FileInfo, open func() (io.ReadCloser, error)) (Resource, error) {
	rc, err := open()
	if err != nil {
		return Resource{}, fmt.Errorf("reading from the archive: %w", err)
	}
	n, sum, err := h.Sum(make([]byte, 0, sc.cfg.Hashes.SumSize()), ctxReader{ctx, rc})
	if cerr := rc.Close(); err == nil {
		err = cerr
	}
	sc.stats.Hashed.Add(1)
	sc.stats.Bytes.Add(n)
	if err != nil {
		return Resource{}, fmt.Errorf("reading from the archive: %w", err)
	}
	if n != info.Size() {
		return Resource{}, fmt.Errorf("reading from the archive: %w: %d bytes, the archive says %d", ErrDamaged, n, info.Size())
	}
	return sc.resource(name, n, sum, h.Head(), info)
}

// member makes the Resource of a zip member the hashing pool read.
func (sc *archiveScan) member(res hashing.Result, info fs.FileInfo) (Resource, error) {
	if res.Err != nil {
		return Resource{}, fmt.Errorf("reading from the archive: %w", res.Err)
	}
	if n := res.Info.Size; n != info.Size() {
		return Resource{}, fmt.Errorf("reading from the archive: %w: %d bytes, the archive says %d", ErrDamaged, n, info.Size())
	}
	return sc.resource(res.Name, res.Info.Size, res.Sum, res.Head, info)
}

// scanTar hashes the members of a tar stream in the order they come, and
// spools them in the order of their paths through an external sort in the
// stage: its memory is that of the sort, whatever the size of the archive.
// Hashing in this goroutine was measured against handing the bytes to
// another: see BenchmarkScanTar and docs/PERFORMANCE.md.
func (sc *archiveScan) scanTar(ctx context.Context, a *archive) (*spill.ResourceSpool, error) {
	ts, err := openTar(a)
	if err != nil {
		return nil, err
	}
	defer ts.close()
	spillDir, err := sc.spill.Path()
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
	h := hashing.NewHasher(sc.cfg.Hashes)
	var rec []byte
	most := int64(math.MaxInt64) // the most bytes a member can expand to
	if st, err := os.Stat(a.path); err == nil && st.Size() < (math.MaxInt64-maxMemberSlack)/maxExpansion {
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
			return nil, fmt.Errorf("reading the archive %s: %w", a.path, damaged(err))
		}
		if i >= maxTarMembers {
			return nil, fmt.Errorf("source %s: %w: more than %d", a.path, ErrTooManyMembers, maxTarMembers)
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
			sc.problems.Add(Problem{Path: name, Err: fmt.Errorf("%w: it declares %d bytes, more than the %d bytes of the archive can hold, compressed or not (a sparse file?)", ErrMemberTooLarge, hdr.Size, most)})
			continue
		}
		sc.stats.Found.Add(1)
		if a.members != nil {
			a.members[name] = i
		}
		r, err := sc.readMember(ctx, h, name, hdr.FileInfo(), func() (io.ReadCloser, error) { return io.NopCloser(tr), nil })
		if errors.Is(err, ErrLocTooLong) { // read to its end: the stream goes on
			sc.problems.Add(Problem{Path: clipName(name), Err: err})
			continue
		}
		if err != nil {
			// The stream is broken: nothing after this member can be read.
			return nil, fmt.Errorf("reading the archive %s: %s: %w", a.path, name, damaged(err))
		}
		rec = spill.AppendResource(rec[:0], &Resource{}, &r)
		if err := sorter.Add([]byte(name), rec); err != nil {
			return nil, fmt.Errorf("%w: %w", spill.ErrSpool, err)
		}
	}
	if err := ts.end(); err != nil {
		return nil, fmt.Errorf("reading the archive %s: %w", a.path, damaged(err))
	}
	sc.stats.WalkDone.Store(true)
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
func (sc *archiveScan) spoolSorted(sorter *extsort.Sorter) (*spill.ResourceSpool, error) {
	it, err := sorter.Iter()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", spill.ErrSpool, err)
	}
	defer it.Close()
	found, err := sc.spill.Resources()
	if err != nil {
		return nil, err
	}
	var cur Resource
	var dc dirConflicts
	n := 0 // members of cur's path
	flush := func() error {
		switch {
		case n == 1:
			dc.add(cur.Path)
			return found.Add(&cur)
		case n > 1:
			sc.problems.Add(Problem{Path: cur.Path, Err: fmt.Errorf("the archive holds %d members of this name; none is published", n)})
			delete(sc.a.members, cur.Path)
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
		cur = Resource{}
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
	kept, err := sc.spill.Resources()
	if err != nil {
		return nil, err
	}
	drop := sc.dropConflicts(dc.found)
	err = found.Each(func(r *Resource) error {
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

// members reads the bytes of the published members of an archive again,
// for a Resource Dump, without unpacking it: a zip member is opened on
// its own (zip.File.Open), by the index the scan noted, and several may
// be read at once; a tar is a stream, read once more from its start, and
// its members must be opened in the order of the archive.
//
// The archive may have been replaced since it was scanned: a member that
// is no longer at its index, or no longer a regular file of the length
// it had, is ErrChanged; the dump hashes every byte it copies, which
// finds the rest.
type members struct {
	a  *archive
	zr *zip.ReadCloser
	// A tar stream: the member at index next comes next; err is why it
	// cannot be read (the stream ended or broke), for it and all after.
	tr   *tarStream
	next int
	err  error
}

// openMembers opens the archive for reading its members again.
func (a *archive) openMembers() (*members, error) {
	m := &members{a: a}
	if a.kind == archiveZip {
		zr, err := zip.OpenReader(a.path)
		if err != nil {
			return nil, fmt.Errorf("source %s: %w", a.path, err)
		}
		m.zr = zr
		return m, nil
	}
	ts, err := openTar(a)
	if err != nil {
		return nil, err
	}
	m.tr = ts
	return m, nil
}

// sequential reports whether the members must be opened in the order of
// the archive (zipdump.Options.Sequential).
func (m *members) sequential() bool { return m.tr != nil }

func (m *members) close() {
	if m.zr != nil {
		m.zr.Close()
	} else {
		m.tr.close()
	}
}

// open returns the bytes of the member published as it.Name. A zip
// member's reader checks its CRC-32 at its end.
func (m *members) open(it *zipdump.Item) (io.ReadCloser, error) {
	index, ok := m.a.members[it.Name]
	if !ok {
		return nil, fmt.Errorf("%s is not a published member of %s", it.Name, m.a.path)
	}
	if m.zr != nil {
		if index >= len(m.zr.File) {
			return nil, fmt.Errorf("%w: the archive has fewer members since it was read", zipdump.ErrChanged)
		}
		f := m.zr.File[index]
		if err := sameMember(f.Name, f.Mode(), int64(f.UncompressedSize64), it); err != nil {
			return nil, err
		}
		return openZipMember(f)
	}
	if index < m.next {
		return nil, fmt.Errorf("member %d of %s asked for after member %d: a tar can only be read in its order", index, m.a.path, m.next-1)
	}
	for m.err == nil {
		hdr, err := m.tr.tr.Next()
		switch {
		case errors.Is(err, io.EOF):
			m.err = fmt.Errorf("%w: the archive ends before it now", zipdump.ErrChanged)
			continue
		case err != nil:
			m.err = fmt.Errorf("reading the archive %s: %w", m.a.path, err)
			continue
		}
		i := m.next
		m.next++
		if i == index {
			if err := sameMember(hdr.Name, tarMode(hdr.Typeflag), hdr.Size, it); err != nil {
				return nil, err
			}
			return io.NopCloser(m.tr.tr), nil
		}
	}
	return nil, m.err
}

// sameMember checks that a member is still the one published as it.
func sameMember(raw string, mode fs.FileMode, size int64, it *zipdump.Item) error {
	name, err := memberName(raw)
	switch {
	case err != nil || name != it.Name:
		return fmt.Errorf("%w: the archive was replaced since it was read (another member is where it was)", zipdump.ErrChanged)
	case !mode.IsRegular():
		return fmt.Errorf("%w: the archive was replaced since it was read (the member is no longer a file)", zipdump.ErrChanged)
	case size != it.Size:
		return fmt.Errorf("%w: %d bytes now, %d when hashed", zipdump.ErrChanged, size, it.Size)
	}
	return nil
}
