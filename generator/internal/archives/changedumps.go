package archives

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"time"

	"github.com/rsgen/rsgen/generator/internal/changelists"
	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/packages"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
)

// ChangeDumpArchiveName lists a closed Change Dump for each build that
// packaged changes, whose packages stay published while one lists them.
const ChangeDumpArchiveName = "changedump-archive.xml"

var archivedDumpFile = regexp.MustCompile(`^changedump-[0-9]{8}T[0-9]{6}Z\.xml$`)

// A ChangeDumps publishes the Change Dump Archive of a build.
type ChangeDumps struct {
	Docs   *docs.Writer
	Prev   *previous.Site
	Keep   time.Duration // how long an archived Change Dump is kept; 0 for no archive
	At     time.Time     // the snapshot time
	Notice func(string)  // never nil
	Copier *packages.Copier
}

// Plan returns the Change Dump Archive this build publishes, or nil, as
// changelists.PlanArchive plans the Change List Archive.
func (da *ChangeDumps) Plan(from time.Time, fresh bool) (*changelists.Archive, error) {
	return changelists.PlanArchive(changelists.Archive{Docs: da.Docs, Name: ChangeDumpArchiveName, What: "Change Dump", Capability: rsxml.CapChangeDumpArchive,
		Stem: packages.ChangeDumpStem, File: archivedDumpFile, Notice: da.Notice}, da.Prev.ChangeDumpArchive, da.Keep, da.At, from, fresh)
}

// Write publishes a: this build's packages (fresh) as a closed Change Dump
// from a.From to At, the previous build's archived dumps again with the
// packages the Change Dump does not carry, and the archive.
func (da *ChangeDumps) Write(ctx context.Context, a *changelists.Archive, fresh, carried []packages.Package) error {
	if a == nil {
		return nil
	}
	published := map[string]*publishedPackage{} // by name
	for i := range fresh {
		published[fresh[i].Name] = &publishedPackage{Package: &fresh[i], fresh: true}
	}
	for i := range carried {
		published[carried[i].Name] = &publishedPackage{Package: &carried[i]}
	}
	_, err := a.Write(da.At, func(stem string) ([]rsxml.Entry, error) {
		md := rsxml.MD{Capability: rsxml.CapChangeDump, From: rsxml.FormatTime(a.From), Until: rsxml.FormatTime(da.At)}
		doc := rsxml.Doc{MD: md, Links: []rsxml.Link{{Rel: "up", Href: da.Docs.CapabilityListURL()}}}
		if err := da.Docs.Write(stem+".xml", doc, 0, len(fresh), func(i int, e *rsxml.Entry) { fresh[i].Entry(da.Docs, e) }); err != nil {
			return nil, err
		}
		return []rsxml.Entry{{Loc: da.Docs.URL(stem + ".xml"), MD: rsxml.MD{From: md.From, Until: md.Until}}}, nil
	}, func(c docs.Archived) error { return da.copyDump(ctx, c, published) })
	return err
}

type publishedPackage struct {
	*packages.Package
	fresh, archived bool
}

// copyDump publishes an archived Change Dump again, and the packages it
// lists not yet published, under their names (it lists them by URL). One
// the Change Dump lists too must be listed alike there; none may be
// listed by two archived dumps, nor have the name of one of this build's.
func (da *ChangeDumps) copyDump(ctx context.Context, c docs.Archived, published map[string]*publishedPackage) error {
	return copyArchived(ctx, da.Docs, c, da.Prev.ReadArchivedDump, func(p *previous.Package) error {
		base, ok := da.Docs.Mine(p.Rel)
		if !ok || !packages.ChangeDumpFile.MatchString(base) {
			return fmt.Errorf("%w: the archived Change Dump %s lists the package %s, which is not where rsgen publishes packages", docs.ErrPrevious, c.List.URL, p.URL)
		}
		dp := packages.Package{Prev: p, Name: base, From: p.From, Until: p.Until, Length: p.Length, Hash: p.Entry.MD.Hash}
		if p.Content != nil {
			mbase, ok := da.Docs.Mine(p.Content.Rel)
			if !ok || !packages.ChangeManifestFile.MatchString(mbase) {
				return fmt.Errorf("%w: the archived Change Dump %s links to the manifest %s, which is not where rsgen publishes manifests", docs.ErrPrevious, c.List.URL, p.Content.URL)
			}
			dp.Manifest = mbase
		}
		if pp, ok := published[base]; ok {
			switch {
			case pp.fresh:
				return fmt.Errorf("%w: the archived Change Dump %s lists the package %s, which has the name of one of this build's", docs.ErrPrevious, c.List.URL, p.URL)
			case pp.archived:
				return fmt.Errorf("%w: the package %s is listed by two archived Change Dumps (%s is one)", docs.ErrPrevious, p.URL, c.List.URL)
			case pp.Length != dp.Length || pp.Hash != dp.Hash || pp.Manifest != dp.Manifest || pp.From != dp.From || pp.Until != dp.Until:
				return fmt.Errorf("%w: the archived Change Dump %s lists the package %s otherwise than the Change Dump does (length, digests, interval or manifest)", docs.ErrPrevious, c.List.URL, p.URL)
			}
			pp.archived = true
			return nil
		}
		published[base] = &publishedPackage{Package: &dp, archived: true}
		return da.Copier.Copy(ctx, &dp)
	})
}

// copyArchived publishes the archived dump c again, byte for byte, once
// publish has published each package it lists.
func copyArchived(ctx context.Context, d *docs.Writer, c docs.Archived, read func(context.Context, *previous.ArchivedList) ([]byte, []previous.Package, error),
	publish func(p *previous.Package) error) error {
	data, pkgs, err := read(ctx, c.List)
	if err != nil {
		return fmt.Errorf("%w: %w", docs.ErrPrevious, err)
	}
	for i := range pkgs {
		if err := publish(&pkgs[i]); err != nil {
			return err
		}
	}
	return d.Copy(c.Name, c.List.URL, io.NopCloser(bytes.NewReader(data)))
}
