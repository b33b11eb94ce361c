package archivescan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/mediatype"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/inputs/tree"
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

// MaxMembers is the most entries (files, directories, links…) a zip may
// hold: archive/zip reads the header of every member into memory, a few
// hundred bytes each, from a central directory of some 50 bytes a member,
// so a small file could otherwise take all the memory of the machine.
const MaxMembers = 2_000_000

// ErrTooManyMembers reports an archive of more than MaxMembers.
var ErrTooManyMembers = errors.New("the archive holds too many members")

// A Scan reads the members of an archive given as the source, and hashes
// those it publishes: a zip's several at once, a tar's in its order; both
// are sorted on disk.
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

	// Lowered by tests: the most members of a zip and of a tar, and the
	// memory of a tar's sort; 0 means MaxMembers, maxTarMembers and
	// archiveSortMemory.
	maxZip, maxTar, sortMemory int
}

// limit is n, or else the default.
func limit(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

// Run lists and hashes the published members of the archive, and spools
// them sorted by path. A member that cannot be published (a name refused,
// a name two members hold, a method of compression not supported, a hard
// link) is a problem, and unread: it keeps its previous entry rather than
// being announced as deleted. A damaged archive is an error wrapping
// ErrDamaged.
func (sc *Scan) Run(ctx context.Context) (*spill.ResourceSpool, report.Unread, error) {
	sc.unread = report.Unread{}
	a := sc.Archive
	a.members = nil
	if sc.Index {
		a.members = map[string]int{}
	}
	scan := sc.scanTar
	if a.Kind == Zip {
		scan = sc.scanZip
	}
	found, err := scan(ctx, a)
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

// member is one entry of an archive, as scanning sees it.
type member struct {
	raw  string
	mode fs.FileMode
	link bool // a tar hard link
}

// admit decides whether a member is published: it returns the member's
// path, or "" after reporting why not, if that needs reporting.
func (sc *Scan) admit(m member) string {
	name, err := memberName(m.raw)
	if err != nil {
		sc.problem(report.Problem{Path: clipName(displayName(m.raw)), Err: err})
		return ""
	}
	if name == "" || m.mode.IsDir() || sc.Skip != nil && sc.Skip(name) || !sc.Filter.PublishesPath(name) {
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
	return name
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

// resource makes the Resource of a member that was read whole, n bytes
// of digests sum, which the archive says info of.
func (sc *Scan) resource(name string, n int64, sum []byte, head []byte, info fs.FileInfo) (spill.Resource, error) {
	if n != info.Size() {
		return spill.Resource{}, fmt.Errorf("reading from the archive: %w: %d bytes, the archive says %d", ErrDamaged, n, info.Size())
	}
	loc, err := sc.Base.Resolve(name)
	if err != nil {
		return spill.Resource{}, err
	}
	typ := mediatype.ByName(name)
	if typ == "" {
		typ = mediatype.Sniff(head)
	}
	return spill.Resource{Path: name, Loc: loc, Length: n, Modified: info.ModTime().UTC(), Hash: sc.Hashes.Tokens(nil, sum), Type: typ}, nil
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
	return sc.resource(name, n, sum, h.Head(), info)
}
