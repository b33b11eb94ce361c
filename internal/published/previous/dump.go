package previous

import (
	"context"
	"io"
	"math"
	"os"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/rules"
)

// A ChangeDump is the previous build's Change Dump (section 13.1).
type ChangeDump struct {
	URL      string
	Packages []Package // closed packages, chronological
}

// A Package is one ZIP package of a dump, as its entry describes it
// ([Site.OpenPackage] reads it).
type Package struct {
	URL     string
	Rel     string // URL relative to DocsBase, "" if not under it
	Entry   rsxml.Entry
	Length  int64 // -1 if the entry has none
	Hash    []hashing.Token
	From    string // as published
	Until   string
	Content *Document // the copy of the package's manifest (rel="contents"), if linked
	from    int64     // Unix seconds, for the order check
	until   int64
}

// A Document is a document of the previous build, checked.
type Document struct {
	URL string
	Rel string // URL relative to DocsBase, "" if not under it
}

// readChangeDump reads the Change Dump, or its index and dumps, and the
// manifests its packages link to.
func (r *reader) readChangeDump(ctx context.Context) error {
	u := r.site.capability(rsxml.CapChangeDump)
	if u == "" {
		return nil
	}
	doc, entries, _, err := r.fetch(ctx, u, rsxml.CapChangeDump)
	if err != nil {
		return err
	}
	cd := &ChangeDump{URL: u}
	if !doc.Index {
		if err := r.addPackages(ctx, cd, u, doc, entries); err != nil {
			return err
		}
	} else {
		for _, e := range entries {
			ddoc, dentries, _, err := r.fetchPart(ctx, e.Loc, u, rsxml.CapChangeDump)
			if err != nil {
				return err
			}
			if err := r.addPackages(ctx, cd, e.Loc, ddoc, dentries); err != nil {
				return err
			}
		}
	}
	r.site.ChangeDump = cd
	return nil
}

// addPackages checks the packages of one Change Dump and keeps the closed.
func (r *reader) addPackages(ctx context.Context, cd *ChangeDump, u string, doc *rsxml.Doc, entries []*rsxml.Entry) error {
	name := r.src.name(u)
	if msg := rules.RootTimes(rsxml.CapChangeDump, false, &doc.MD); msg != "" {
		return newError(name, 0, ErrInvalid, "%s", msg)
	}
	for _, e := range entries {
		p := Package{URL: e.Loc, Entry: *e, Length: -1, From: e.MD.From, Until: e.MD.Until}
		if p.From == "" || p.Until == "" {
			r.opts.Notice(name + ": package " + e.Loc + " has no from and until; it is not carried forward")
			continue
		}
		from, err := parseTime(name, e.Line, "from", p.From)
		if err != nil {
			return err
		}
		until, err := parseTime(name, e.Line, "until", p.Until)
		if err != nil {
			return err
		}
		if msg := rules.Interval(p.From, p.Until, from, until); msg != "" {
			return newError(name, e.Line, ErrInvalid, "package %s: %s", e.Loc, msg)
		}
		if until.After(r.site.At) {
			return newError(name, e.Line, ErrInvalid, "package covers until %s, after the snapshot time of the Resource List (%s)", p.Until, rsxml.FormatTime(r.site.At))
		}
		if n := len(cd.Packages); n > 0 && from.Unix() < cd.Packages[n-1].until {
			return newError(name, e.Line, ErrInvalid, "package covers from %s, before the end of the package before it: packages must be in chronological order and may not overlap", p.From)
		}
		q, mdoc, err := r.parsePackage(ctx, name, e, rsxml.CapChangeDumpManifest)
		if err != nil {
			return err
		}
		if err := packageTimes(name, doc, &q, mdoc); err != nil {
			return err
		}
		q.From, q.Until = p.From, p.Until
		q.from, q.until = from.Unix(), until.Unix()
		cd.Packages = append(cd.Packages, q)
	}
	return nil
}

// parsePackage reads the entry e of the dump name as a ZIP package and
// fetches the manifest it links to (rel="contents"), if any, of
// capability manifest.
func (r *reader) parsePackage(ctx context.Context, name string, e *rsxml.Entry, manifest string) (Package, *rsxml.Doc, error) {
	p := Package{URL: e.Loc, Entry: *e, Length: -1}
	if t := e.MD.Type; t != "" && t != "application/zip" {
		return p, nil, newError(name, e.Line, ErrInvalid, "package of type %q; rsgen carries forward ZIP packages only", t)
	}
	var err error
	if p.Hash, p.Length, err = hashAndLength(name, e); err != nil {
		return p, nil, err
	}
	if p.Length > r.opts.maxPackageBytes {
		return p, nil, newError(name, e.Line, ErrLimit, "package %s of %d bytes is larger than the %d allowed", e.Loc, p.Length, r.opts.maxPackageBytes)
	}
	p.Rel = r.site.rel(p.URL)
	c := e.Link("contents")
	if c == "" {
		return p, nil, nil
	}
	mdoc, _, _, err := r.fetch(ctx, c, manifest)
	if err != nil {
		return p, nil, err
	}
	p.Content = &Document{URL: c, Rel: r.site.rel(c)}
	return p, mdoc, nil
}

// OpenPackage streams the bytes of a package, refusing more than its
// length (or the limit). Close it.
func (s *Site) OpenPackage(ctx context.Context, p *Package) (io.ReadCloser, error) {
	limit := s.opts.maxPackageBytes
	if p.Length >= 0 {
		limit = p.Length
	}
	return s.src.open(ctx, p.URL, limit)
}

// LocalPath returns the file at u when the build was read from a directory.
func (s *Site) LocalPath(u string) (string, bool) {
	d, ok := s.src.(*dirSource)
	if !ok {
		return "", false
	}
	p, err := d.file(u)
	return p, err == nil
}

// OpenLocal opens the file at u when the build was read from a directory
// (local), as Read opens one.
func (s *Site) OpenLocal(u string) (f *os.File, local bool, err error) {
	d, ok := s.src.(*dirSource)
	if !ok {
		return nil, false, nil
	}
	f, err = d.openFile(u, math.MaxInt64)
	return f, true, err
}

// Name is how errors name the file at u: its path, key or URL.
func (s *Site) Name(u string) string { return s.src.name(u) }
