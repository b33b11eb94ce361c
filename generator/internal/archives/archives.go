package archives

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/rsgen/rsgen/generator/internal/changelists"
	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/packages"
	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/text/units"
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

// ResourceDumpArchiveName lists Resource Dumps kept under archive/, each
// with its packages and manifest copies beside it, named after it
// (archive/resourcedump-<at>-00001.zip, ….manifest.xml), linked if may be.
const ResourceDumpArchiveName = "resourcedump-archive.xml"

// archivedPackageFile matches the packages and manifest copies of an
// archived Resource Dump, and gives its stamp.
var archivedPackageFile = regexp.MustCompile(`^resourcedump-([0-9]{8}T[0-9]{6}Z)-[0-9]{5}\.(zip|manifest\.xml)$`)

// A ResourceDumps publishes the Resource Dump Archive of a build.
type ResourceDumps struct {
	Docs   *docs.Writer
	Prev   *previous.Site // nil for a first build
	Every  time.Duration  // how often the Resource Dump is archived; 0 for no archive
	Keep   time.Duration  // how long an archived one is kept
	At     time.Time      // the snapshot time
	Notice func(string)   // never nil
	Copier *packages.Copier
}

func (ra *ResourceDumps) Plan() (*changelists.Archive, error) {
	return planSnapshots(changelists.Archive{Docs: ra.Docs, Name: ResourceDumpArchiveName, What: "Resource Dump", Capability: rsxml.CapResourceDumpArchive,
		Stem: packages.ResourceDumpStem + "-", Notice: ra.Notice, Listed: func(l *previous.ArchivedList) rsxml.MD {
			return rsxml.MD{At: rsxml.FormatTime(l.At), Completed: formatTimeOrEmpty(l.Completed)}
		}}, ra.Prev, func(p *previous.Site) *previous.Archive { return p.ResourceDumpArchive }, ra.Every, ra.Keep, ra.At)
}

// Write publishes a: this build's Resource Dump of pkgs under archive/ if
// due, the previous build's archived dumps again with their packages, and
// the archive.
func (ra *ResourceDumps) Write(ctx context.Context, a *changelists.Archive, pkgs []packages.Package, completed time.Time) error {
	if a == nil {
		return nil
	}
	_, err := a.Write(ra.At, func(stem string) ([]rsxml.Entry, error) {
		e, err := ra.archiveThis(stem, pkgs, completed)
		return []rsxml.Entry{e}, err
	}, func(c docs.Archived) error { return ra.copyDump(ctx, c) })
	return err
}

// archiveThis writes this build's Resource Dump under archive/ as one
// document, its packages and manifest copies linked beside it, and returns
// its entry in the archive.
func (ra *ResourceDumps) archiveThis(stem string, live []packages.Package, completed time.Time) (rsxml.Entry, error) {
	pkgs := make([]packages.Package, len(live))
	for i, p := range live {
		q := p
		q.Name = fmt.Sprintf("%s-%05d.zip", stem, i+1)
		q.Manifest = fmt.Sprintf("%s-%05d.manifest.xml", stem, i+1)
		for _, l := range [][2]string{{q.Name, p.Name}, {q.Manifest, p.Manifest}} {
			name := ra.Docs.Dir + "/" + l[0]
			if err := ra.Docs.Stage.LinkStaged(name, ra.Docs.Dir+"/"+l[1]); err != nil {
				return rsxml.Entry{}, fmt.Errorf("writing %s: %w", name, err)
			}
		}
		pkgs[i] = q
	}
	md := rsxml.MD{Capability: rsxml.CapResourceDump, At: rsxml.FormatTime(ra.At), Completed: rsxml.FormatTime(completed)}
	doc := rsxml.Doc{MD: md, Links: []rsxml.Link{{Rel: "up", Href: ra.Docs.CapabilityListURL()}}}
	if n := ra.Docs.Limits.MaxEntries; len(pkgs) > n {
		return rsxml.Entry{}, &docs.LimitError{Err: fmt.Errorf("the Resource Dump of %s cannot be archived as one document of %d entries at most", units.Count(len(pkgs), "package"), n),
			Raise: []string{"Limits.MaxEntries", "Dump.MaxBytes"}}
	}
	if err := ra.Docs.Write(stem+".xml", doc, 0, len(pkgs), func(i int, e *rsxml.Entry) { pkgs[i].Entry(ra.Docs, e) }); err != nil {
		return rsxml.Entry{}, err
	}
	if st, err := os.Stat(ra.Docs.Stage.Path(ra.Docs.Dir + "/" + stem + ".xml")); err != nil {
		return rsxml.Entry{}, err
	} else if n := ra.Docs.Limits.MaxBytes; st.Size() > n {
		return rsxml.Entry{}, &docs.LimitError{Err: fmt.Errorf("the Resource Dump of %s cannot be archived as one document of %d bytes at most (it takes %d)", units.Count(len(pkgs), "package"), n, st.Size()),
			Raise: []string{"Limits.MaxBytes", "Dump.MaxBytes"}}
	}
	return rsxml.Entry{Loc: ra.Docs.URL(stem + ".xml"), MD: rsxml.MD{At: md.At, Completed: md.Completed}}, nil
}

// copyDump publishes an archived Resource Dump again, with its packages
// and manifest copies, which must be where rsgen archives them.
func (ra *ResourceDumps) copyDump(ctx context.Context, c docs.Archived) error {
	at := docs.Stamp(c.List.At)
	seen := map[string]bool{}
	return copyArchived(ctx, ra.Docs, c, ra.Prev.ReadArchivedResourceDump, func(p *previous.Package) error {
		dp := packages.Package{Prev: p, Length: p.Length, Hash: p.Entry.MD.Hash}
		var ok bool
		if dp.Name, ok = ra.archived(p.Rel, at, "zip"); !ok {
			return fmt.Errorf("%w: the archived Resource Dump %s lists the package %s, which is not where rsgen archives its packages", docs.ErrPrevious, c.List.URL, p.URL)
		}
		if p.Content != nil {
			if dp.Manifest, ok = ra.archived(p.Content.Rel, at, "manifest.xml"); !ok {
				return fmt.Errorf("%w: the archived Resource Dump %s links to the manifest %s, which is not where rsgen archives manifests", docs.ErrPrevious, c.List.URL, p.Content.URL)
			}
		}
		for _, n := range []string{dp.Name, dp.Manifest} {
			if n != "" && seen[n] {
				return fmt.Errorf("%w: the archived Resource Dump %s lists %s twice", docs.ErrPrevious, c.List.URL, ra.Docs.URL(n))
			}
			seen[n] = true
		}
		return ra.Copier.Copy(ctx, &dp)
	})
}

// archived returns the name in the documents' directory of rel if it is a
// package (ext "zip") or manifest copy that rsgen archives with the
// Resource Dump of the snapshot at.
func (ra *ResourceDumps) archived(rel, at, ext string) (string, bool) {
	dir, base := path.Split(rel)
	if dir != ra.Docs.Dir+"/"+docs.ArchiveDir+"/" {
		return "", false
	}
	m := archivedPackageFile.FindStringSubmatch(base)
	if m == nil || m[1] != at || m[2] != ext {
		return "", false
	}
	return docs.ArchiveDir + "/" + base, true
}

func formatTimeOrEmpty(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return rsxml.FormatTime(t)
}

// ResourceListArchiveName lists Resource Lists kept under archive/, named
// by their snapshot time (past the limits, an index over its parts).
const ResourceListArchiveName = "resourcelist-archive.xml"

// A ResourceLists publishes the Resource List Archive of a build.
type ResourceLists struct {
	Docs   *docs.Writer
	Prev   *previous.Site // nil for a first build
	Every  time.Duration  // how often the Resource List is archived; 0 for no archive
	Keep   time.Duration  // how long an archived one is kept
	At     time.Time      // the snapshot time
	Notice func(string)   // never nil
}

func (la *ResourceLists) Plan() (*changelists.Archive, error) {
	return planSnapshots(changelists.Archive{Docs: la.Docs, Name: ResourceListArchiveName, What: "Resource List", Capability: rsxml.CapResourceListArchive,
		Stem: "resourcelist-", Notice: la.Notice, Listed: func(l *previous.ArchivedList) rsxml.MD { return rsxml.MD{At: rsxml.FormatTime(l.At)} }},
		la.Prev, func(p *previous.Site) *previous.Archive { return p.ResourceListArchive }, la.Every, la.Keep, la.At)
}

// planSnapshots plans a, an archive of snapshots (docs.PlanSnapshots), from
// the previous build's archive; nil for none.
func planSnapshots(a changelists.Archive, prev *previous.Site, archive func(*previous.Site) *previous.Archive, every, keep time.Duration, at time.Time) (*changelists.Archive, error) {
	var pa *previous.Archive
	if prev != nil {
		pa = archive(prev)
	}
	plan, err := docs.PlanSnapshots(a.Docs, pa, prev != nil, every, keep, at, a.What, strings.TrimSuffix(a.Stem, "-"), a.Notice)
	if plan == nil || err != nil {
		return nil, err
	}
	a.Carried, a.Fresh = plan.Carried, plan.Fresh
	return &a, nil
}

// Write publishes a: this build's Resource List under archive/ if due
// (opt, n and fill wrote resourcelist.xml), the previous build's archived
// lists again, and the archive.
func (la *ResourceLists) Write(ctx context.Context, a *changelists.Archive, opt listwriter.Options, n int, fill func(i int, e *rsxml.Entry)) error {
	if a == nil {
		return nil
	}
	_, err := a.Write(la.At, func(stem string) ([]rsxml.Entry, error) {
		opt.Name = stem
		wl, err := la.Docs.List(opt, n, fill)
		if err != nil { // its longer locs may not fit where resourcelist.xml's did
			return nil, fmt.Errorf("the archived copy of the Resource List: %w", err)
		}
		return []rsxml.Entry{{Loc: la.Docs.URL(wl.Name), MD: rsxml.MD{At: opt.Doc.MD.At}}}, nil
	}, func(c docs.Archived) error { return la.copyList(ctx, c) })
	return err
}

// copyList publishes an archived Resource List again, and its parts.
func (la *ResourceLists) copyList(ctx context.Context, c docs.Archived) error {
	stem := strings.TrimSuffix(c.Name, ".xml")
	parts := 0
	err := la.Prev.ReadArchivedList(ctx, c.List, func(u string, data []byte) error {
		name := c.Name
		if u != c.List.URL {
			parts++
			name = listwriter.PartName(stem, parts) // numbered from 1 in the order of the index
			if u != la.Docs.URL(name) {
				return fmt.Errorf("%w: the archived Resource List %s has the part %s where rsgen archives %s", docs.ErrPrevious, c.List.URL, u, la.Docs.URL(name))
			}
		}
		return la.Docs.Copy(name, u, io.NopCloser(bytes.NewReader(data)))
	})
	return docs.PreviousErr(err)
}
