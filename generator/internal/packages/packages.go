package packages

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/display"
	"github.com/rsgen/rsgen/internal/previous"
	"github.com/rsgen/rsgen/internal/regfile"
	"github.com/rsgen/rsgen/internal/rsxml"
	"github.com/rsgen/rsgen/internal/stage"
)

// The names rsgen gives the packages of dumps: the Resource Dump's
// resourcedump-00001.zip, …, and each build's Change Dump packages,
// changedump-<until>-00001.zip, …, each with a copy of its manifest beside
// it (….manifest.xml).
const (
	ResourceDumpStem = "resourcedump"
	ChangeDumpStem   = "changedump-"
)

var (
	// ChangeDumpFile matches the names of Change Dump packages.
	ChangeDumpFile = regexp.MustCompile(`^changedump-[0-9]{8}T[0-9]{6}Z-[0-9]{5}\.zip$`)
	// ChangeManifestFile matches the names of their manifests' copies.
	ChangeManifestFile = regexp.MustCompile(`^changedump-[0-9]{8}T[0-9]{6}Z-[0-9]{5}\.manifest\.xml$`)
)

// A Package is a package listed in the Change Dump: carried forward
// from the previous build, or written by this one.
type Package struct {
	Name, Manifest string // in the documents' directory; Manifest "" if it has no copy
	From, Until    string
	Length         int64
	Hash           string
	Prev           *previous.Package // carried forward: where its bytes come from
}

func (p *Package) Entry(d *docs.Writer, e *rsxml.Entry) {
	*e = rsxml.Entry{Loc: d.URL(p.Name), MD: rsxml.MD{Type: "application/zip", Hash: p.Hash, From: p.From, Until: p.Until}}
	if p.Length >= 0 {
		e.MD.Length = strconv.FormatInt(p.Length, 10)
	}
	if p.Manifest != "" {
		e.Links = []rsxml.Link{{Rel: "contents", Href: d.URL(p.Manifest), Type: "application/xml"}}
	}
}

// A Copier publishes packages of the previous build Prev again, through
// the document writer Docs.
type Copier struct {
	Docs *docs.Writer
	Prev *previous.Site

	dir    string // the previous output directory, absolute, links resolved: once
	dirErr error
}

// prevDir returns the previous output directory, absolute, with its
// symbolic links resolved, as given (relative to the working directory).
func (c *Copier) prevDir() (string, error) {
	if c.dir == "" && c.dirErr == nil {
		c.dir, c.dirErr = filepath.Abs(c.Prev.Location)
		if c.dirErr == nil {
			c.dir, c.dirErr = filepath.EvalSymlinks(c.dir)
		}
	}
	return c.dir, c.dirErr
}

// Copy publishes a carried package and its manifest copy again, as
// they were published: linked to the previous output's files when it is a
// directory on the same file system (a hard link shares the bytes that
// were published, which are checked by their length), else copied and
// checked against the length and digests its entry gives. A copy gets the
// time its entry gives as its modification time, so that an upload that
// compares times (the S3 script) does not send it again.
func (c *Copier) Copy(ctx context.Context, p *Package) error {
	prev := c.Prev
	if p.Manifest != "" {
		mrc, err := prev.OpenDocument(ctx, p.Prev.Content)
		if err != nil {
			return fmt.Errorf("%w: %w", docs.ErrPrevious, err)
		}
		if err := docs.PreviousErr(c.Docs.Copy(p.Manifest, p.Prev.Content.URL, mrc)); err != nil {
			return err
		}
	}
	name := c.Docs.Dir + "/" + p.Name
	var rc io.ReadCloser
	var err error
	if src, ok := prev.LocalPath(p.Prev.URL); ok {
		linked, err := c.link(name, src, p)
		if err != nil || linked {
			return err
		}
		f, _, err := regfile.Open(src)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", docs.ErrPrevious, src, display.WithoutPath(err))
		}
		rc = f
	} else if rc, err = prev.OpenPackage(ctx, p.Prev); err != nil {
		return fmt.Errorf("%w: %w", docs.ErrPrevious, err)
	}
	defer rc.Close()
	f, err := c.Docs.Stage.Create(name)
	if err != nil {
		return fmt.Errorf("writing %s: %w", p.Name, err)
	}
	n, err := io.Copy(f, rc)
	if err == nil {
		err = checkDigests(f, p.Prev.Hash)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		var pe *previous.Error
		if errors.As(err, &pe) || errors.Is(err, errDigest) {
			return fmt.Errorf("%w: %w", docs.ErrPrevious, docs.Naming(p.Prev.URL, err))
		}
		return fmt.Errorf("copying %s: %w", p.Prev.URL, err)
	}
	if p.Length >= 0 && n != p.Length {
		return fmt.Errorf("%w: %s is %d bytes, its entry says %d", docs.ErrPrevious, p.Prev.URL, n, p.Length)
	}
	p.Length = n
	if t, ok := packageTime(&p.Prev.Entry.MD); ok {
		os.Chtimes(c.Docs.Stage.Path(name), t, t) // a time that cannot be set only costs an upload
	}
	return nil
}

// link stages name as a hard link to src, the file of the carried
// package p in the previous output directory, if it is a regular file
// inside that directory of the length its entry gives and the file
// systems allow the link; linked reports whether it was linked.
func (c *Copier) link(name, src string, p *Package) (linked bool, err error) {
	// Lstat, and only a regular file: a symbolic link would be linked as
	// a link (published, it leads wherever it points) or copied from its
	// target. And inside the previous output: a directory of it replaced
	// by a link to elsewhere would lead outside.
	st, err := os.Lstat(src)
	if err != nil {
		return false, fmt.Errorf("%w: %s: %w", docs.ErrPrevious, src, display.WithoutPath(err))
	}
	if !st.Mode().IsRegular() {
		return false, fmt.Errorf("%w: %s is %s, not the package its entry describes", docs.ErrPrevious, src, stage.TypeName(st.Mode()))
	}
	dir, err1 := c.prevDir()
	real, err2 := filepath.EvalSymlinks(src)
	if err2 == nil {
		real, err2 = filepath.Abs(real)
	}
	if rel, err := filepath.Rel(dir, real); err1 != nil || err2 != nil || err != nil || !filepath.IsLocal(rel) {
		return false, fmt.Errorf("%w: %s leads outside the previous output directory", docs.ErrPrevious, src)
	}
	if p.Length >= 0 && st.Size() != p.Length {
		return false, fmt.Errorf("%w: %s is %d bytes, its entry says %d", docs.ErrPrevious, src, st.Size(), p.Length)
	}
	if !HardLinks {
		return false, nil
	}
	if err := c.Docs.Stage.HardLink(name, real); err != nil {
		return false, nil // another file system: copied, and checked
	}
	p.Length = st.Size()
	return true, nil
}

// HardLinks is false in tests that have packages copied, as from another
// file system.
var HardLinks = true

// packageTime is the time a package's entry gives: when its packaging
// completed, else the end of the changes it holds, else its snapshot.
func packageTime(md *rsxml.MD) (time.Time, bool) {
	for _, v := range []string{md.Completed, md.Until, md.At} {
		if t, err := rsxml.ParseTime(v); v != "" && err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

var errDigest = errors.New("not the bytes its entry describes")

// checkDigests reads f from its start through the algorithms of tokens
// that rsgen knows and compares the digests.
func checkDigests(f *os.File, tokens []hashing.Token) error {
	var set hashing.Set
	var want []string
	for _, t := range tokens {
		if a, err := hashing.ParseAlgorithm(t.Alg); err == nil && !set.Has(a) {
			set = append(set, a)
			want = append(want, t.Digest)
		}
	}
	if len(set) == 0 {
		return nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, sum, err := hashing.NewHasher(set).Sum(nil, f)
	if err != nil {
		return err
	}
	for i, a := range set {
		if got := hex.EncodeToString(sum[:a.Size()]); got != want[i] {
			return fmt.Errorf("%w: its %s digest is %s, not %s", errDigest, a, got, want[i])
		}
		sum = sum[a.Size():]
	}
	return nil
}
