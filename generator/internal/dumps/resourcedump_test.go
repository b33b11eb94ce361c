package dumps

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs/docstest"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/internal/spill/spilltest"
	"github.com/rsgen/rsgen/generator/internal/treescan"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/zipdump"
)

var snapshot = time.Date(2024, 6, 2, 0, 0, 0, 0, time.UTC)

// newPackaging is the Packaging of the files of the tree dir, into a
// stage of its own, at the snapshot time.
func newPackaging(t *testing.T, dir string) Packaging {
	t.Helper()
	return Packaging{
		Docs:      docstest.Writer(t),
		Hashes:    hashing.Set{hashing.SHA256},
		Jobs:      2,
		At:        snapshot,
		Completed: func() time.Time { return snapshot.Add(time.Minute) },
		Files: func() (Files, error) {
			f, err := treescan.Tree{Root: dir}.Open()
			if err != nil {
				return nil, err // not a nil *treescan.Files in an interface
			}
			return f, nil
		},
		Problems: new(report.Problems),
		Notice:   func(s string) { t.Log("notice:", s) },
	}
}

// writeFiles writes files (path → content) under dir and returns their
// resources, hashed as a scan hashes them, in the order of their paths.
func writeFiles(t *testing.T, dir string, files map[string]string) []spill.Resource {
	t.Helper()
	var rs []spill.Resource
	for rel, content := range files {
		testenv.WriteFile(t, dir, rel, content)
		sum := sha256.Sum256([]byte(content))
		rs = append(rs, spill.Resource{Path: rel, Loc: "https://example.org/" + rel, Length: int64(len(content)),
			Hash: hashing.Set{hashing.SHA256}.Tokens(nil, sum[:]), Type: "text/plain"})
	}
	slices.SortFunc(rs, func(a, b spill.Resource) int { return strings.Compare(a.Path, b.Path) })
	return rs
}

// Pack writes the files of the resources into packages in the stage,
// each with the copy of its manifest, and keeps their resources; a file
// rewritten after it was hashed (its length is no longer the resource's)
// is left out of the packages and of kept, its loc is dropped, and it is
// a problem. Write then writes resourcedump.xml, which lists the package
// and links its manifest, and advertises it.
func TestResourceDumpPackAndWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	resources := writeFiles(t, dir, map[string]string{"a.txt": "alpha", "b/c.txt": "gamma", "d.txt": "delta"})
	testenv.WriteFile(t, dir, "b/c.txt", "gamma, rewritten since it was hashed")
	area := spilltest.Area(t)
	spool := spilltest.Spool(t, area, resources)
	d := &ResourceDump{Packaging: newPackaging(t, dir), Stats: new(report.Stats), Spill: area}

	kept, dropped, packed, err := d.Pack(context.Background(), spool)
	if err != nil {
		t.Fatal(err)
	}
	var keptPaths []string
	for _, r := range spilltest.Resources(t, kept) {
		keptPaths = append(keptPaths, r.Path)
	}
	if !slices.Equal(keptPaths, []string{"a.txt", "d.txt"}) || !slices.Equal(dropped, []string{"https://example.org/b/c.txt"}) {
		t.Errorf("kept %v and dropped %v, want a.txt and d.txt kept, b/c.txt dropped", keptPaths, dropped)
	}
	problems := d.Problems.Sorted()
	if len(problems) != 1 || problems[0].Path != "b/c.txt" || !errors.Is(problems[0].Err, zipdump.ErrChanged) {
		t.Errorf("problems %v, want one of b/c.txt, changed", problems)
	}
	if len(packed.Packages) != 1 {
		t.Fatalf("%d packages, want 1", len(packed.Packages))
	}
	pkg := packed.Packages[0]
	names := testenv.ZipNames(t, d.Docs.Stage.Path("resourcesync/"+pkg.Name))
	if want := []string{"a.txt", "d.txt", "manifest.xml"}; !slices.Equal(names, want) {
		t.Errorf("the package holds %v, want %v", names, want)
	}
	if _, err := os.Stat(d.Docs.Stage.Path("resourcesync/" + pkg.Manifest)); err != nil {
		t.Errorf("the copy of the manifest is not staged: %v", err)
	}

	if err := d.Write(context.Background(), packed); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(d.Docs.Stage.Path("resourcesync/resourcedump.xml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<rs:md capability="resourcedump"`,
		"<loc>https://example.org/resourcesync/" + pkg.Name + "</loc>",
		`href="https://example.org/resourcesync/` + pkg.Manifest + `"`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("resourcedump.xml has no %s:\n%s", want, b)
		}
	}
	if len(d.Docs.Caps) != 1 || d.Docs.Caps[0].MD.Capability != rsxml.CapResourceDump {
		t.Errorf("advertised %v, want the Resource Dump", d.Docs.Caps)
	}
}

// A Resource Dump is split into packages by size (a package is closed
// before it passes MaxBytes, one file a package at 1 byte) and by the
// entries a manifest may hold, and resourcedump.xml is an index past the
// limits of a document (with generator's TestResourceDumpSplits, which
// builds the index case and checks the dump against the Resource List).
func TestResourceDumpSplits(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	files := map[string]string{}
	for i := range 9 {
		b := make([]byte, 700)
		for j := range b {
			b[j] = byte('a' + rng.IntN(26))
		}
		files[fmt.Sprintf("d%d/f%d.txt", i%3, i)] = string(b)
	}
	dir := t.TempDir()
	resources := writeFiles(t, dir, files)
	for _, tt := range []struct {
		name       string
		maxBytes   int64
		maxEntries int
		packages   int
		index      bool
	}{
		{name: "one file per package", maxBytes: 1, packages: 9},
		{name: "by size", maxBytes: 4 << 10, packages: 3},
		{name: "by entries", maxEntries: 4, packages: 3},
		{name: "under an index", maxBytes: 1, maxEntries: 3, packages: 9, index: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			area := spilltest.Area(t)
			spool := spilltest.Spool(t, area, resources)
			d := &ResourceDump{Packaging: newPackaging(t, dir), Stats: new(report.Stats), Spill: area}
			d.MaxBytes = tt.maxBytes
			if tt.maxEntries != 0 {
				d.Limits.MaxEntries, d.Docs.Limits.MaxEntries = tt.maxEntries, tt.maxEntries
			}
			_, _, packed, err := d.Pack(context.Background(), spool)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Write(context.Background(), packed); err != nil {
				t.Fatal(err)
			}
			members := 0
			for _, p := range packed.Packages {
				names := testenv.ZipNames(t, d.Docs.Stage.Path("resourcesync/"+p.Name))
				members += len(names) - 1
				if tt.maxBytes > 1 && p.Length > tt.maxBytes || tt.maxEntries != 0 && len(names)-1 > tt.maxEntries {
					t.Errorf("%s: %d bytes, %d files: past the limits", p.Name, p.Length, len(names)-1)
				}
			}
			doc, _ := testenv.ReadDoc(t, d.Docs.Stage.Path("resourcesync/resourcedump.xml"))
			if len(packed.Packages) != tt.packages || doc.Index != tt.index || members != len(files) {
				t.Errorf("%d packages of %d files (index %v), want %d of %d (index %v)", len(packed.Packages), members, doc.Index, tt.packages, len(files), tt.index)
			}
		})
	}
}
