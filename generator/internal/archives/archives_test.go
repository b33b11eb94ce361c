package archives

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/docs/docstest"
	"github.com/rsgen/rsgen/generator/internal/packages"
	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/testenv"
)

var snapshot = time.Date(2024, 6, 2, 0, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) { testenv.Main(m) }

// contains fails t for each of want that doc (named name) does not hold.
func contains(t *testing.T, name, doc string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(doc, w) {
			t.Errorf("%s has no %s:\n%s", name, w, doc)
		}
	}
}

// notices collects the notices of a test.
type notices []string

func (n *notices) add(s string) { *n = append(*n, s) }

// The first build that archives its Resource List writes it under
// archive/, named by its snapshot time, and the Resource List Archive
// that lists it with its at; resourcelist.xml links to the archive, which
// is advertised.
func TestResourceListArchiveFirst(t *testing.T) {
	t.Parallel()
	d := docstest.Writer(t)
	la := &ResourceLists{Docs: d, Prev: &previous.Site{}, Every: time.Hour, Keep: 24 * time.Hour, At: snapshot, Notice: func(string) {}}
	a, err := la.Plan()
	if err != nil || a == nil || !a.Fresh {
		t.Fatalf("plan %+v, %v; want this build's list archived", a, err)
	}
	if l := a.Link(); len(l) != 1 || l[0].Rel != "archives" || l[0].Href != "https://example.org/resourcesync/"+ResourceListArchiveName {
		t.Errorf("link %v", l)
	}
	locs := []string{"https://example.org/a.txt", "https://example.org/b.txt"}
	err = la.Write(context.Background(), a, d.ResourceListOptions(snapshot, snapshot.Add(time.Minute)), len(locs),
		func(i int, e *rsxml.Entry) { *e = rsxml.Entry{Loc: locs[i]} })
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "the archived list", docstest.Staged(t, d, "archive/resourcelist-20240602T000000Z.xml"),
		`capability="resourcelist" at="2024-06-02T00:00:00Z"`, "<loc>https://example.org/a.txt</loc>", "<loc>https://example.org/b.txt</loc>")
	contains(t, ResourceListArchiveName, docstest.Staged(t, d, ResourceListArchiveName), `capability="resourcelist-archive"`,
		"<loc>https://example.org/resourcesync/archive/resourcelist-20240602T000000Z.xml</loc>", `at="2024-06-02T00:00:00Z"`)
	if len(d.Caps) != 1 || d.Caps[0].MD.Capability != rsxml.CapResourceListArchive {
		t.Errorf("advertised %v, want the archive", d.Caps)
	}
}

// No archive without Every, nor without a previous build; an archive the
// previous build had and this one drops is said so.
func TestResourceListArchiveNone(t *testing.T) {
	t.Parallel()
	prev := &previous.Site{ResourceListArchive: &previous.Archive{Lists: []previous.ArchivedList{{At: snapshot.Add(-time.Hour)}}}}
	var said notices
	for _, la := range []*ResourceLists{
		{Docs: docstest.Writer(t), Prev: prev, At: snapshot, Notice: said.add},
		{Docs: docstest.Writer(t), Every: time.Hour, At: snapshot, Notice: said.add},
	} {
		if a, err := la.Plan(); a != nil || err != nil || a.Link() != nil {
			t.Errorf("plan %+v, %v; want none", a, err)
		}
	}
	if len(said) != 1 || !strings.Contains(said[0], "the Resource List Archive of the previous build (1 Resource List) is no longer published") {
		t.Errorf("notices %q", said)
	}
}

// stagePackages stages n packages of the Resource Dump, each with its
// manifest's copy, as a Pack would.
func stagePackages(t *testing.T, d *docs.Writer, n int) []packages.Package {
	t.Helper()
	var pkgs []packages.Package
	for i := range n {
		p := packages.Package{Name: fmt.Sprintf("resourcedump-%05d.zip", i+1), Manifest: fmt.Sprintf("resourcedump-%05d.manifest.xml", i+1),
			Length: 3, Hash: "md5:00", At: rsxml.FormatTime(snapshot), Completed: rsxml.FormatTime(snapshot.Add(time.Minute))}
		for _, name := range []string{p.Name, p.Manifest} {
			f, err := d.Stage.Create(d.Dir + "/" + name)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("zip")
			f.Close()
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// A Resource Dump due for the archive is archived as one document under
// archive/, whose packages and manifest copies are linked beside it under
// names of its own; the archive lists it with its at and completed.
func TestResourceDumpArchiveFirst(t *testing.T) {
	t.Parallel()
	d := docstest.Writer(t)
	ra := &ResourceDumps{Docs: d, Prev: &previous.Site{}, Every: time.Hour, Keep: 24 * time.Hour, At: snapshot, Notice: func(string) {}}
	a, err := ra.Plan()
	if err != nil || a == nil || !a.Fresh {
		t.Fatalf("plan %+v, %v; want this build's dump archived", a, err)
	}
	if err := ra.Write(context.Background(), a, stagePackages(t, d, 2), snapshot.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	const stem = "archive/resourcedump-20240602T000000Z"
	contains(t, "the archived dump", docstest.Staged(t, d, stem+".xml"), `capability="resourcedump" at="2024-06-02T00:00:00Z" completed="2024-06-02T00:01:00Z"`,
		"<loc>https://example.org/resourcesync/"+stem+"-00001.zip</loc>", `href="https://example.org/resourcesync/`+stem+`-00002.manifest.xml"`)
	for _, name := range []string{stem + "-00001.zip", stem + "-00001.manifest.xml", stem + "-00002.zip", stem + "-00002.manifest.xml"} {
		if got := docstest.Staged(t, d, name); got != "zip" {
			t.Errorf("%s holds %q, want the package's bytes", name, got)
		}
	}
	contains(t, ResourceDumpArchiveName, docstest.Staged(t, d, ResourceDumpArchiveName), `capability="resourcedump-archive"`,
		"<loc>https://example.org/resourcesync/"+stem+".xml</loc>", `at="2024-06-02T00:00:00Z" completed="2024-06-02T00:01:00Z"`)
}

// A Resource Dump whose packages an archived document cannot list, by
// their number or their bytes, fails with a limit error naming what to
// raise.
func TestResourceDumpArchiveLimits(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		limits  listwriter.Limits
		message string
		raise   string
	}{
		{"entries", listwriter.Limits{MaxEntries: 1, MaxBytes: rsxml.MaxBytes}, "the Resource Dump of 2 packages cannot be archived as one document of 1 entries at most", "Limits.MaxEntries"},
		{"bytes", listwriter.Limits{MaxEntries: rsxml.MaxEntries, MaxBytes: 1000}, "the Resource Dump of 2 packages cannot be archived as one document of 1000 bytes at most (it takes", "Limits.MaxBytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := docstest.Writer(t)
			d.Limits = tt.limits
			ra := &ResourceDumps{Docs: d, Prev: &previous.Site{}, Every: time.Hour, Keep: 24 * time.Hour, At: snapshot, Notice: func(string) {}}
			a, err := ra.Plan()
			if err != nil {
				t.Fatal(err)
			}
			err = ra.Write(context.Background(), a, stagePackages(t, d, 2), snapshot.Add(time.Minute))
			var le *docs.LimitError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), tt.message) || !slices.Contains(le.Raise, tt.raise) || !slices.Contains(le.Raise, "Dump.MaxBytes") {
				t.Errorf("error %v, want a limit error naming %s", err, tt.raise)
			}
		})
	}
}

// archivedDump is an entry of the previous build's Change Dump Archive.
func archivedDump(name string, from, until time.Time) previous.ArchivedList {
	return previous.ArchivedList{URL: "https://example.org/resourcesync/archive/" + name, Rel: "resourcesync/archive/" + name, From: from, Until: until}
}

// This build's packages are archived as a closed Change Dump from where
// the previous archive ends to the snapshot time, named by its end; the
// Change Dump Archive lists it.
func TestChangeDumpArchiveFresh(t *testing.T) {
	t.Parallel()
	d := docstest.Writer(t)
	da := &ChangeDumps{Docs: d, Prev: &previous.Site{}, Keep: 24 * time.Hour, At: snapshot, Notice: func(string) {}}
	from := snapshot.Add(-time.Hour)
	a, err := da.Plan(from, true)
	if err != nil || a == nil || !a.Fresh || !a.From.Equal(from) {
		t.Fatalf("plan %+v, %v; want this build's packages from %v", a, err, from)
	}
	fresh := []packages.Package{{Name: "changedump-20240602T000000Z-00001.zip", Manifest: "changedump-20240602T000000Z-00001.manifest.xml",
		From: rsxml.FormatTime(from), Until: rsxml.FormatTime(snapshot), Length: 3, Hash: "md5:00"}}
	if err := da.Write(context.Background(), a, fresh, nil); err != nil {
		t.Fatal(err)
	}
	contains(t, "the archived dump", docstest.Staged(t, d, "archive/changedump-20240602T000000Z.xml"),
		`capability="changedump" from="2024-06-01T23:00:00Z" until="2024-06-02T00:00:00Z"`,
		"<loc>https://example.org/resourcesync/changedump-20240602T000000Z-00001.zip</loc>")
	contains(t, ChangeDumpArchiveName, docstest.Staged(t, d, ChangeDumpArchiveName), `capability="changedump-archive"`,
		"<loc>https://example.org/resourcesync/archive/changedump-20240602T000000Z.xml</loc>", `from="2024-06-01T23:00:00Z" until="2024-06-02T00:00:00Z"`)
	if l := a.Link(); len(l) != 1 || l[0].Href != "https://example.org/resourcesync/"+ChangeDumpArchiveName {
		t.Errorf("link %v", l)
	}
}

// Without ArchiveKeep there is no Change Dump Archive, and one the
// previous build had is said to be dropped; an archived dump of the
// previous build named as this build's is the previous build's fault.
func TestChangeDumpArchiveRefused(t *testing.T) {
	t.Parallel()
	prev := &previous.Site{ChangeDumpArchive: &previous.Archive{Lists: []previous.ArchivedList{
		archivedDump("changedump-20240602T000000Z.xml", snapshot.Add(-2*time.Hour), snapshot)}}}
	var said notices
	da := &ChangeDumps{Docs: docstest.Writer(t), Prev: prev, At: snapshot, Notice: said.add}
	if a, err := da.Plan(snapshot.Add(-time.Hour), true); a != nil || err != nil {
		t.Errorf("without ArchiveKeep: plan %+v, %v; want none", a, err)
	}
	if len(said) != 1 || !strings.Contains(said[0], "the Change Dump Archive of the previous build (1 Change Dump) is no longer published") {
		t.Errorf("notices %q", said)
	}

	da.Keep = 24 * time.Hour
	a, err := da.Plan(snapshot.Add(-time.Hour), true)
	if err != nil || len(a.Carried) != 1 || !a.From.Equal(snapshot) {
		t.Fatalf("plan %+v, %v; want the archived dump carried, this build's from where it ends", a, err)
	}
	err = da.Write(context.Background(), a, nil, nil)
	if !errors.Is(err, docs.ErrPrevious) || !strings.Contains(err.Error(), "its archived Change Dump archive/changedump-20240602T000000Z.xml has the name of this build's") {
		t.Errorf("error %v, want the previous build's", err)
	}
}
