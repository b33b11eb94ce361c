package archivescan

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/internal/treescan"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/inputs/tree"
	"github.com/rsgen/rsgen/internal/storage/binrec"
	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/extsort"
)

// Kind is the format of an archive source.
type Kind int

// The formats of an archive source.
const (
	Tar   Kind = iota + 1 // .tar
	TarGz                 // .tar.gz, .tgz
	Zip                   // .zip
)

// KindOf returns the kind of archive the name of source says, or 0 if it
// names none.
func KindOf(source string) Kind {
	name := strings.ToLower(source)
	switch {
	case strings.HasSuffix(name, ".tar"):
		return Tar
	case strings.HasSuffix(name, ".tar.gz"), strings.HasSuffix(name, ".tgz"):
		return TarGz
	case strings.HasSuffix(name, ".zip"):
		return Zip
	}
	return 0
}

// An Archive is a .tar, .tar.gz, .tgz or .zip file given as the source.
// Members are refused, each as a Problem, never read, and never written
// anywhere, if their name is absolute, has a "..", "." or empty segment, a
// backslash, a NUL, or is not valid UTF-8; if they are hard links (use tar
// --hard-dereference); or if the archive holds the same name twice (tar
// -r appends a copy; which one is meant cannot be known). Directories,
// devices and FIFOs are skipped; symbolic links are skipped with a notice.
type Archive struct {
	Path string
	Kind Kind
	// members maps the path of each published member to its index in the
	// archive (in zip.Reader.File, or in the tar stream), kept only when
	// Scan.Index asks for it.
	members map[string]int
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

// maxProblemName is the longest member name a problem keeps: a name too
// long for a URL was never published, and a tar's names may be a MiB
// each (PAX), which a .tar.gz compresses to a few KiB: kept whole, a small
// archive could take all the memory.
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

// MaxMembers is the most entries (files, directories, links…) a zip may
// hold: archive/zip reads the header of every member into memory, a few
// hundred bytes each, from a central directory of some 50 bytes a member,
// so a small file could otherwise take all the memory of the machine.
const MaxMembers = 2_000_000

// ErrTooManyMembers reports an archive of more than MaxMembers.
var ErrTooManyMembers = errors.New("the archive holds too many members")

// A Scan is the scan of an archive, a Source of the scan of package
// treescan. A tar's members are hashed as the stream comes (measured
// against handing the bytes to another goroutine: BenchmarkScanArchive,
// docs/PERFORMANCE.md), a zip's by the scan's pool, several at once.
type Scan struct {
	Archive *Archive
	Filter  *tree.Filter           // what is published, as of a tree
	Skip    func(name string) bool // members never published (rsgen's own documents); nil: none
	Base    uri.Base               // the URL of the tree the archive holds
	Hashes  hashing.Set
	Jobs    int  // hashing workers for a zip; 0 or less: hashing.DefaultWorkers
	Index   bool // keep the position of each published member, to read them again for a Resource Dump

	Spill    *spill.Area      // where the resources are spooled, and the members sorted
	Problems *report.Problems // the members that cannot be published
	Stats    *report.Stats    // Found, Hashed, Bytes, WalkDone
	Notice   func(string)     // tells the user what they should know; never nil

	ctx    context.Context // Run's: an interrupt stops the member under way
	zip    *zip.ReadCloser // a zip, open during Run
	unread report.Unread   // the members reported as problems

	// Lowered by tests: the most members of a zip and of a tar, and the
	// memory of the sort; 0 means MaxMembers, maxTarMembers and 32 MiB.
	maxZip, maxTar, sortMemory int
}

func limit(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

// Run lists and hashes the published members of the archive, and spools
// them sorted by path. A member that cannot be published is a problem,
// and unread: it keeps its previous entry rather than being announced as
// deleted. A damaged archive is an error wrapping ErrDamaged.
func (sc *Scan) Run(ctx context.Context) (*spill.ResourceSpool, report.Unread, error) {
	sc.ctx, sc.unread = ctx, report.Unread{}
	a := sc.Archive
	a.members = nil
	if sc.Index {
		a.members = map[string]int{}
	}
	if a.Kind == Zip {
		zr, err := zip.OpenReader(a.Path)
		if err != nil {
			return nil, report.Unread{}, fmt.Errorf("source %s: %w", a.Path, err)
		}
		defer zr.Close()
		sc.zip = zr
	}
	ts := &treescan.Scan{Source: sc, Jobs: sc.Jobs, Hashes: sc.Hashes, Base: sc.Base,
		Spill: sc.Spill, Problems: sc.Problems, Stats: sc.Stats,
		ReadFailed: func(name string, err error) error {
			return fmt.Errorf("reading the archive %s: %s: %w", a.Path, name, damaged(err))
		}}
	found, _, err := ts.Run(ctx)
	if err != nil {
		return nil, report.Unread{}, err
	}
	return found, sc.unread, nil
}

func (sc *Scan) problem(name string, err error) {
	sc.Problems.Add(report.Problem{Path: name, Err: err})
	sc.unread.Files = append(sc.unread.Files, name)
}

// admit returns the path of a member if it is published, or "" after
// reporting why not, if that needs reporting.
func (sc *Scan) admit(raw string, mode fs.FileMode, hardLink bool) string {
	name, err := memberName(raw)
	if err != nil {
		sc.problem(clipName(displayName(raw)), err)
		return ""
	}
	switch {
	case name == "" || mode.IsDir() || sc.Skip != nil && sc.Skip(name) || !sc.Filter.PublishesPath(name):
	case hardLink:
		sc.problem(name, errors.New("hard link; not published (make the archive with tar --hard-dereference)"))
	case mode&fs.ModeSymlink != 0:
		sc.Notice(fmt.Sprintf("%s: symbolic link in the archive, not published", name))
	case mode.IsRegular():
		return name
	}
	return "" // and devices, FIFOs: no bytes to publish
}

// unreadable returns why a member cannot be read, if it cannot, before
// it is: a URL too long, a time a lastmod cannot write.
func (sc *Scan) unreadable(name string, modified time.Time) error {
	if len(sc.Base.String())+uri.EscapedPathLen(name) > uri.MaxLocLength {
		return uri.ErrLocTooLong
	}
	if y := modified.UTC().Year(); y < 0 || y > 9999 {
		return ErrTimeOutOfRange
	}
	return nil
}

// refuse reports a member that is not read; it still counts among the
// members of its name.
func (sc *Scan) refuse(sorter *extsort.Sorter, name string, err error) error {
	if errors.Is(err, uri.ErrLocTooLong) {
		name = clipName(name)
	}
	sc.problem(name, err)
	return addMember(sorter, name, nil)
}

// ErrTimeOutOfRange reports a member whose modification time has no
// four-digit year, which a W3C Datetime (its lastmod) cannot write.
var ErrTimeOutOfRange = errors.New("its modification time is not in the years 0000 to 9999, which a lastmod can write")

// List reads the members into a sort by path, and gives those published
// to the scan in that order, leaving out and reporting every name that
// several members hold, and every file that is also a directory of others.
func (sc *Scan) List(_ context.Context, emit func(*treescan.Entry) error) error {
	spillDir, err := sc.Spill.Path()
	if err != nil {
		return err
	}
	dir, err := confined.MkdirTemp(spillDir, "archive-*")
	if err != nil {
		return err
	}
	sorter := extsort.New(dir, limit(sc.sortMemory, 32<<20))
	defer sorter.Close()
	if sc.zip != nil {
		err = sc.readZip(sorter)
	} else {
		err = sc.readTar(sorter)
	}
	if err != nil {
		return err
	}
	var dc dirConflicts
	err = eachName(sorter, func(name string, n int, rec []byte) error {
		switch {
		case n > 1:
			sc.problem(name, fmt.Errorf("the archive holds %d members of this name; none is published", n))
		case len(rec) > 0:
			dc.add(name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	drop := map[string]bool{}
	for _, c := range dc.found {
		err := errors.New("the archive holds this name as a file and as a directory of other members; no tree holds both, and neither is published")
		if c.under != "" {
			err = fmt.Errorf("under %s, which the archive holds as a file too; no tree holds both, and neither is published", c.under)
		}
		sc.problem(c.path, err)
		drop[c.path] = true
	}
	return eachName(sorter, func(name string, n int, rec []byte) error {
		if n > 1 || len(rec) == 0 || drop[name] {
			return nil
		}
		e := &entry{}
		e.Path, e.Handle = name, e
		e.decode(rec)
		if sc.Archive.members != nil {
			sc.Archive.members[name] = e.index
		}
		return emit(&e.Entry)
	})
}

// eachName calls fn with each name of the sort, in order, the number of
// members that hold it and the record of the first: empty for a member
// not published that still counts among those of its name.
func eachName(sorter *extsort.Sorter, fn func(name string, n int, rec []byte) error) error {
	it, err := sorter.Iter()
	if err != nil {
		return fmt.Errorf("%w: %w", spill.ErrSpool, err)
	}
	var name string
	var rec []byte
	n := 0
	for it.Next() {
		if n > 0 && string(it.Key()) == name {
			n++
			continue
		}
		if n > 0 {
			if err := fn(name, n, rec); err != nil {
				return err
			}
		}
		name, rec, n = string(it.Key()), append(rec[:0], it.Value()...), 1
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("%w: %w", spill.ErrSpool, err)
	}
	if n > 0 {
		return fn(name, n, rec)
	}
	return nil
}

func addMember(sorter *extsort.Sorter, name string, rec []byte) error {
	if err := sorter.Add([]byte(name), rec); err != nil {
		return fmt.Errorf("%w: %w", spill.ErrSpool, err)
	}
	return nil
}

// appendMember appends the record of a published member: its index in
// the archive, length and time, and, for a tar's, read already, its
// digests and the media type its first bytes say.
func appendMember(b []byte, index int, size int64, modified time.Time, sum []byte, typ string) []byte {
	b = binary.AppendUvarint(b, uint64(index))
	b = binary.AppendVarint(b, size)
	b = binrec.AppendTime(b, modified) // not in nanoseconds: a tar may date a member in any year
	b = binrec.AppendBytes(b, sum)
	return append(b, typ...)
}

// An entry is a member in flight in the scan, its own Handle.
type entry struct {
	treescan.Entry
	index int
}

// decode fills e from the record appendMember wrote.
func (e *entry) decode(rec []byte) {
	r := binrec.NewReader(rec, binrec.ErrCorrupt)
	e.index = int(r.Uvarint())
	e.Key.Size = r.Varint()
	e.Modified = r.Time()
	e.Key.Mtime = e.Modified.UnixNano()
	if sum := r.Bytes(); len(sum) > 0 {
		e.Sum = bytes.Clone(sum)
	}
	e.Type = string(r.Fixed(r.Len()))
}

func (*Scan) Stat(*treescan.Entry) bool { return true }

func (*Scan) Drop(*treescan.Entry) {}

// Reads keeps as many reads of a zip in flight as workers hash; a tar's
// members are read already (Entry.Sum).
func (sc *Scan) Reads(workers int) (int, bool) {
	if sc.zip == nil {
		return 1, false
	}
	return workers, false
}

// Job reads a zip member until Run's context is done: a member may
// expand to far more than the archive holds, so an interrupt must not
// wait for its end.
func (sc *Scan) Job(te *treescan.Entry) hashing.Job {
	f := sc.zip.File[te.Handle.(*entry).index]
	return hashing.Job{Open: func() (io.ReadCloser, error) {
		rc, err := openZipMember(f)
		if err != nil {
			return nil, err
		}
		return struct {
			io.Reader
			io.Closer
		}{ctxReader{sc.ctx, rc}, rc}, nil
	}}
}

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
