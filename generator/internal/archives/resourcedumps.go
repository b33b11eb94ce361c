package archives

import (
	"context"
	"fmt"
	"os"
	"path"
	"regexp"
	"time"

	"github.com/rsgen/rsgen/generator/internal/changelists"
	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/packages"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/text/units"
)

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
