package packages

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/text/display"
	"github.com/rsgen/rsgen/zipdump"
)

// resourcedump-00001.zip, … and changedump-<until>-00001.zip, …, each with
// a copy of its manifest beside it (….manifest.xml).
const (
	ResourceDumpStem = "resourcedump"
	ChangeDumpStem   = "changedump-"
)

var (
	ChangeDumpFile     = regexp.MustCompile(`^changedump-[0-9]{8}T[0-9]{6}Z-[0-9]{5}\.zip$`)
	ChangeManifestFile = regexp.MustCompile(`^changedump-[0-9]{8}T[0-9]{6}Z-[0-9]{5}\.manifest\.xml$`)
)

// A Package is a package of a dump, this build's or carried forward.
type Package struct {
	Name, Manifest string // in the documents' directory; Manifest "" if it has no copy
	From, Until    string // a Change Dump's
	At, Completed  string // a Resource Dump's
	Length         int64
	Hash           string
	Prev           *previous.Package // carried forward: where its bytes come from
}

func (p *Package) Entry(d *docs.Writer, e *rsxml.Entry) {
	*e = rsxml.Entry{Loc: d.URL(p.Name), MD: rsxml.MD{Type: "application/zip", Hash: p.Hash, From: p.From, Until: p.Until, At: p.At, Completed: p.Completed}}
	if p.Length >= 0 {
		e.MD.Length = strconv.FormatInt(p.Length, 10)
	}
	if p.Manifest != "" {
		e.Links = []rsxml.Link{{Rel: "contents", Href: d.URL(p.Manifest), Type: "application/xml"}}
	}
}

// A Copier publishes packages of the previous build Prev again.
type Copier struct {
	Docs    *docs.Writer
	Prev    *previous.Site
	NoLinks bool // copy, never link, as from another file system (tests)
}

// Copy publishes a carried package again once checked, and its manifest
// copy from the manifest.xml of the package checked. A copy gets its
// entry's time, so that an upload comparing times does not send it again.
func (c *Copier) Copy(ctx context.Context, p *Package) error {
	prev := c.Prev
	if len(known(p.Prev.Hash)) == 0 {
		return fmt.Errorf("%w: %s: %w, so its bytes cannot be checked: it is not published again unchecked",
			docs.ErrPrevious, prev.Name(p.Prev.URL), errUnverifiable)
	}
	name := c.Docs.Dir + "/" + p.Name
	if err := c.stagePackage(ctx, name, p); err != nil {
		return err
	}
	if p.Manifest == "" {
		return nil
	}
	zr, err := zip.OpenReader(c.Docs.Stage.Path(name))
	if err != nil {
		return fmt.Errorf("%w: %s: %w", docs.ErrPrevious, prev.Name(p.Prev.URL), err)
	}
	defer zr.Close()
	m, err := zr.Open(zipdump.ManifestName)
	if err != nil {
		return fmt.Errorf("%w: %s has no %s to publish beside it: %w", docs.ErrPrevious, prev.Name(p.Prev.URL), zipdump.ManifestName, err)
	}
	return docs.PreviousErr(c.Docs.Copy(p.Manifest, p.Prev.Content.URL, m))
}

func (c *Copier) stagePackage(ctx context.Context, name string, p *Package) error {
	f, local, err := c.Prev.OpenLocal(p.Prev.URL)
	if err != nil {
		return fmt.Errorf("%w: %w", docs.ErrPrevious, err)
	}
	if local {
		defer f.Close()
		return c.link(name, f, p)
	}
	rc, err := c.Prev.OpenPackage(ctx, p.Prev)
	if err != nil {
		return fmt.Errorf("%w: %w", docs.ErrPrevious, err)
	}
	defer rc.Close()
	return c.copy(name, rc, p)
}

func (c *Copier) copy(name string, rc io.Reader, p *Package) error {
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
			return fmt.Errorf("%w: %w", docs.ErrPrevious, docs.Naming(c.Prev.Name(p.Prev.URL), err))
		}
		return fmt.Errorf("copying %s: %w", p.Prev.URL, err)
	}
	if p.Length >= 0 && n != p.Length {
		return fmt.Errorf("%w: %s is %d bytes, its entry says %d", docs.ErrPrevious, c.Prev.Name(p.Prev.URL), n, p.Length)
	}
	p.Length = n
	if t, ok := packageTime(&p.Prev.Entry.MD); ok {
		c.Docs.Stage.Chtimes(name, t) // a time that cannot be set only costs an upload
	}
	return nil
}

// link stages name as a hard link to f, the file of p in the previous
// output, once checked, or a copy of it, checked again.
func (c *Copier) link(name string, f *os.File, p *Package) error {
	src := f.Name()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%w: %s: %w", docs.ErrPrevious, src, display.WithoutPath(err))
	}
	if p.Length >= 0 && st.Size() != p.Length {
		return fmt.Errorf("%w: %s is %d bytes, its entry says %d", docs.ErrPrevious, src, st.Size(), p.Length)
	}
	if c.NoLinks {
		return c.copy(name, f, p)
	}
	if err := checkDigests(f, p.Prev.Hash); err != nil {
		return fmt.Errorf("%w: %s: %w", docs.ErrPrevious, src, err)
	}
	linked, err := c.Docs.Stage.Link(name, f)
	if err != nil {
		return fmt.Errorf("writing %s: %w", p.Name, err)
	}
	if !linked { // another file system
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("reading %s: %w", src, err)
		}
		return c.copy(name, f, p)
	}
	p.Length = st.Size()
	return nil
}

func packageTime(md *rsxml.MD) (time.Time, bool) {
	for _, v := range []string{md.Completed, md.Until, md.At} {
		if t, err := rsxml.ParseTime(v); v != "" && err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

var errDigest = errors.New("not the bytes its entry describes")

var errUnverifiable = errors.New("its entry gives no digest rsgen computes")

func known(tokens []hashing.Token) (set hashing.Set) {
	for _, t := range tokens {
		if a, err := hashing.ParseAlgorithm(t.Alg); err == nil && !set.Has(a) {
			set = append(set, a)
		}
	}
	return set
}

func checkDigests(f *os.File, tokens []hashing.Token) error {
	set := known(tokens)
	if len(set) == 0 {
		return errUnverifiable
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, sum, err := hashing.NewHasher(set).Sum(nil, f)
	if err != nil {
		return err
	}
	if t, got, bad := set.Differ(tokens, sum); bad {
		return fmt.Errorf("%w: its %s digest is %x, not %x", errDigest, t.Alg, got, t.Digest)
	}
	return nil
}
