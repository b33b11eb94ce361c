package dumps

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/packages"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/internal/spill/spilltest"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/testenv"
)

// A carried package keeps the names rsgen gave it and its manifest's
// copy; another is named as rsgen names a package that ends when it ends.
func TestCarriedNames(t *testing.T) {
	t.Parallel()
	d := &docs.Writer{Base: "https://example.org/", Dir: "resourcesync"}
	until := time.Date(2024, 6, 3, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name                  string
		rel, manifest         string // "" for no manifest copy
		wantPkg, wantManifest string
	}{
		{"rsgen's", "resourcesync/changedump-20240602T000000Z-00004.zip", "resourcesync/changedump-20240602T000000Z-00004.manifest.xml",
			"changedump-20240602T000000Z-00004.zip", "changedump-20240602T000000Z-00004.manifest.xml"},
		{"another's", "resourcesync/dumps/part1.zip", "resourcesync/dumps/part1.xml",
			"changedump-20240603T000000Z-00002.zip", "changedump-20240603T000000Z-00002.manifest.xml"},
		{"without a manifest copy", "elsewhere/part1.zip", "", "changedump-20240603T000000Z-00002.zip", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &previous.Package{Rel: tt.rel}
			if tt.manifest != "" {
				p.Content = &previous.Document{Rel: tt.manifest}
			}
			pkg, manifest := carriedNames(d, p, until, 2)
			if pkg != tt.wantPkg || manifest != tt.wantManifest {
				t.Errorf("published as %s and %s, want %s and %s", pkg, manifest, tt.wantPkg, tt.wantManifest)
			}
		})
	}
}

// The Change Dump of a build whose previous one published none (nothing
// to carry forward) is one package of its changes: the new bytes of the
// files created and updated, none for a deletion, and a manifest of all
// three; changedump.xml lists it, with its interval and its manifest's
// copy, and is advertised.
func TestChangeDumpWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	resources := writeFiles(t, dir, map[string]string{"created.txt": "new", "updated.txt": "newer"})
	area := spilltest.Area(t)
	changes, err := area.Changes()
	if err != nil {
		t.Fatal(err)
	}
	from := snapshot.Add(-time.Hour)
	for i, c := range []spill.Change{
		{Resource: resources[0], Change: rsxml.ChangeCreated},
		{Resource: resources[1], Change: rsxml.ChangeUpdated},
		{Resource: spill.Resource{Path: "deleted.txt", Loc: "https://example.org/deleted.txt", Length: -1}, Change: rsxml.ChangeDeleted},
	} {
		c.Datetime = from.Add(time.Duration(i+1) * time.Minute)
		if err := changes.Add(&c); err != nil {
			t.Fatal(err)
		}
	}
	if err := changes.Finish(area); err != nil {
		t.Fatal(err)
	}
	d := &ChangeDump{Packaging: newPackaging(t, dir), Changes: changes, Prev: &previous.Site{}, Report: new(report.ChangeReport)}

	if err := d.Write(context.Background(), from); err != nil {
		t.Fatal(err)
	}
	if problems := d.Problems.Sorted(); len(problems) > 0 || d.Report.Packages != 1 {
		t.Fatalf("problems %v, %d packages reported; want none and 1", problems, d.Report.Packages)
	}
	name := packages.ChangeDumpStem + docs.Stamp(snapshot) + "-00001"
	if got, want := testenv.ZipNames(t, d.Docs.Stage.Path("resourcesync/"+name+".zip")), []string{"created.txt", "updated.txt", "manifest.xml"}; !slices.Equal(got, want) {
		t.Errorf("the package holds %v, want %v", got, want)
	}
	b, err := os.ReadFile(d.Docs.Stage.Path("resourcesync/" + ChangeDumpName))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<rs:md capability="changedump" from="2024-06-01T23:00:00Z" until="2024-06-02T00:00:00Z"/>`,
		"<loc>https://example.org/resourcesync/" + name + ".zip</loc>",
		`<rs:ln rel="contents" href="https://example.org/resourcesync/` + name + `.manifest.xml"`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s has no %s:\n%s", ChangeDumpName, want, b)
		}
	}
	manifest, err := os.ReadFile(d.Docs.Stage.Path("resourcesync/" + name + ".manifest.xml"))
	if err != nil {
		t.Fatalf("the copy of the manifest is not staged: %v", err)
	}
	if n := strings.Count(string(manifest), "<url>"); n != 3 || !strings.Contains(string(manifest), `change="deleted"`) {
		t.Errorf("the manifest lists %d changes, want 3, the deletion too:\n%s", n, manifest)
	}
	if len(d.Docs.Caps) != 1 || d.Docs.Caps[0].MD.Capability != rsxml.CapChangeDump {
		t.Errorf("advertised %v, want the Change Dump", d.Docs.Caps)
	}
}

// The packages of the previous build carried forward are the newest run
// without a gap, which must end where this build's changes start, less
// those that end before the keep window; a notice says what is not.
func TestChangeDumpCarried(t *testing.T) {
	t.Parallel()
	at := func(h int) string { return rsxml.FormatTime(snapshot.Add(time.Duration(h) * time.Hour)) }
	pkg := func(n, from, until int) previous.Package {
		name := fmt.Sprintf("changedump-%s-%05d.zip", docs.Stamp(snapshot.Add(time.Duration(until)*time.Hour)), n)
		return previous.Package{Rel: "resourcesync/" + name, URL: "https://example.org/resourcesync/" + name, From: at(from), Until: at(until), Length: 3}
	}
	for _, tt := range []struct {
		name    string
		pkgs    []previous.Package
		from    int // where this build's changes start
		want    []string
		notices int
	}{
		{"a run", []previous.Package{pkg(1, -3, -2), pkg(2, -2, -1)}, -1,
			[]string{"changedump-20240601T220000Z-00001.zip", "changedump-20240601T230000Z-00002.zip"}, 0},
		{"after a gap", []previous.Package{pkg(1, -5, -4), pkg(2, -2, -1)}, -1, []string{"changedump-20240601T230000Z-00002.zip"}, 1},
		{"out of the keep window", []previous.Package{pkg(1, -30, -26), pkg(2, -26, -1)}, -1, []string{"changedump-20240601T230000Z-00002.zip"}, 0},
		{"ending before the changes", []previous.Package{pkg(1, -3, -2)}, -1, nil, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			changes, err := spilltest.Area(t).Changes()
			if err != nil {
				t.Fatal(err)
			}
			if err := changes.Add(&spill.Change{Resource: spill.Resource{Loc: "https://example.org/a"}, Change: rsxml.ChangeDeleted}); err != nil {
				t.Fatal(err)
			}
			var said []string
			d := &ChangeDump{Packaging: Packaging{Docs: &docs.Writer{Base: "https://example.org/", Dir: "resourcesync"}, At: snapshot, Notice: func(s string) { said = append(said, s) }},
				Changes: changes, Prev: &previous.Site{ChangeDump: &previous.ChangeDump{Packages: tt.pkgs}}, Keep: 24 * time.Hour}
			carried, err := d.carried(snapshot.Add(time.Duration(tt.from) * time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range carried {
				names = append(names, p.Name)
			}
			if !slices.Equal(names, tt.want) || len(said) != tt.notices {
				t.Errorf("carried %v, notices %q; want %v, %d notices", names, said, tt.want, tt.notices)
			}
		})
	}
}
