package generator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/generator/internal/exports"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/zipdump"
)

// treeExport writes, into the tree dir, a hidden export (which the tree
// does not publish) with a record for each member: its path as loc and
// as local file, its modification time as lastmod. It returns the export.
func treeExport(t testing.TB, dir string, members []testenv.Member, extra string) string {
	t.Helper()
	var b strings.Builder
	for _, m := range slices.Backward(members) { // the order of the export does not matter
		fmt.Fprintf(&b, `{"loc":%q,"lastmod":%q,"path":%q}`+"\n", m.Name, rsxml.FormatTime(testenv.ArchiveMtime), m.Name)
	}
	b.WriteString(extra)
	p := filepath.Join(dir, ".records.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// An export whose records are the files of a tree, with their URLs and
// times, publishes what the tree publishes, packages included, byte for
// byte, whatever --jobs and however much the sorters spill.
func TestExportResourceDumpLikeTree(t *testing.T) {
	t.Parallel()
	tree, members := dumpTree(t)
	treeCfg := dumpConfig(t, tree, filepath.Join(t.TempDir(), "out"))
	treeCfg.Dump.MaxBytes = 256 << 10 // several packages
	if rep := mustBuild(t, treeCfg); len(rep.Problems) != 0 {
		t.Fatal(rep.Problems)
	}
	want := testenv.ReadTree(t, treeCfg.Out)
	export := treeExport(t, tree, members, "")
	for _, jobs := range []int{1, 3} {
		t.Run(fmt.Sprint("jobs=", jobs), func(t *testing.T) {
			t.Parallel()
			cfg := treeCfg
			cfg.Source, cfg.Export, cfg.Out, cfg.Jobs, cfg.ChangesWindow = "", export, filepath.Join(t.TempDir(), "out"), jobs, -1
			if jobs == 3 {
				cfg.chunk = 512 // every sorter spills
			}
			rep := mustBuild(t, cfg)
			if len(rep.Problems) != 0 || rep.Files != len(members) {
				t.Fatalf("%d records, problems %v", rep.Files, rep.Problems)
			}
			checkDump(t, cfg.Out, hashing.DefaultSet)
			sameFiles(t, "the tree's output", testenv.ReadTree(t, cfg.Out), want)
		})
	}
}

// Records that name the same file share its bitstream; tombstones and
// drafts need none; the Change List of the window is written as without
// a dump.
func TestExportResourceDumpShared(t *testing.T) {
	t.Parallel()
	tree, members := dumpTree(t)
	extra := `{"loc":"elsewhere/home","lastmod":"2024-05-20T00:00:00Z","path":"index.html","links":[{"rel":"canonical","href":"index.html"}]}` + "\n" +
		`{"loc":"https://example.org/also-home","lastmod":"2024-05-21T00:00:00Z","created":"2024-05-21T00:00:00Z","path":"./index.html"}` + "\n" +
		`{"loc":"gone","deleted":"2024-05-25T00:00:00Z"}` + "\n" +
		`{"loc":"draft","status":"draft","lastmod":"2024-05-25T00:00:00Z"}` + "\n"
	export := treeExport(t, tree, members, extra)
	cfg := exportCfg(t, export)
	cfg.Dump.Enabled = true
	rep := mustBuild(t, cfg)
	if len(rep.Problems) != 0 || rep.Files != len(members)+2 {
		t.Fatalf("%d records, problems %v", rep.Files, rep.Problems)
	}
	var home []string
	for _, m := range checkDump(t, cfg.Out, hashing.DefaultSet) {
		if m.MD.Path == "/index.html" {
			home = append(home, m.Loc)
		}
	}
	// In the order of the lines: the record of the file, then the others.
	if want := []string{"https://example.org/index.html", "https://example.org/elsewhere/home", "https://example.org/also-home"}; !slices.Equal(home, want) {
		t.Errorf("the bitstream of index.html is that of %q, want %q", home, want)
	}
	_, changes := testenv.ReadList(t, filepath.Join(cfg.Out, docsDir), "changelist.xml")
	if len(changes) != 3 {
		t.Errorf("%d changes, want 3", len(changes))
	}
	_, caps := testenv.ReadDoc(t, filepath.Join(cfg.Out, docsDir, "capabilitylist.xml"))
	var names []string
	for _, c := range caps {
		names = append(names, c.MD.Capability)
	}
	if !slices.Equal(names, []string{rsxml.CapResourceList, rsxml.CapResourceDump, rsxml.CapChangeList}) {
		t.Errorf("Capability List offers %v", names)
	}
	validateDump(t, cfg.Out)
}

// A listed record without a local file cannot be in a Resource Dump:
// the build fails and publishes nothing, rather than break uniformity.
func TestExportResourceDumpNeedsFiles(t *testing.T) {
	t.Parallel()
	tree, members := dumpTree(t)
	export := treeExport(t, tree, members[:3], `{"loc":"page/1","lastmod":"2024-05-20T00:00:00Z"}`+"\n"+
		`{"loc":"gone","deleted":true,"lastmod":"2024-05-20T00:00:00Z"}`+"\n"+`{"loc":"page/2"}`+"\n")
	cfg := exportCfg(t, export)
	cfg.Dump.Enabled = true
	_, err := Build(context.Background(), cfg)
	var dnf *exports.DumpNeedsFilesError
	if kindOf(err) != KindDumpNeedsFiles || !errors.As(err, &dnf) || dnf.Records != 2 || dnf.First != 4 {
		t.Fatalf("got %v, want 2 records without a path from line 4", err)
	}
	if !strings.Contains(err.Error(), "2 published records of "+export+" have no path (first at line 4)") {
		t.Errorf("message %q", err)
	}
	if _, err := os.Stat(cfg.Out); !os.IsNotExist(err) {
		t.Errorf("%s written", cfg.Out)
	}
}

// A file that changed or vanished after the export was read is left out
// of the dump and of every list (the Change List too), each of its
// records named with its line.
func TestExportResourceDumpChanged(t *testing.T) {
	t.Parallel()
	tree, members := dumpTree(t)
	testenv.WriteFile(t, tree, "odd\\name.txt", "a backslash: no name in a package")
	export := treeExport(t, tree, members, `{"loc":"again/index.html","lastmod":"2024-05-30T00:00:00Z","path":"index.html"}`+"\n"+
		`{"loc":"odd","lastmod":"2024-05-30T00:00:00Z","path":"odd\\name.txt"}`+"\n")
	cfg := exportCfg(t, export)
	cfg.beforeDump = func() {
		os.WriteFile(filepath.Join(tree, "index.html"), []byte("<p>rewritten after it was read</p>"), 0o644)
		os.Remove(filepath.Join(tree, "data", "holdings.csv"))
		big, _ := os.ReadFile(filepath.Join(tree, "data", "big.txt"))
		os.WriteFile(filepath.Join(tree, "data", "big.txt"), []byte(strings.ToUpper(string(big))), 0o644)
	}
	cfg.Dump.Enabled = true
	rep := mustBuild(t, cfg)
	var lines []int
	for _, p := range rep.Problems {
		lines = append(lines, p.Line)
		switch {
		case p.Line == 12:
			if !errors.Is(p.Err, zipdump.ErrName) || !strings.HasPrefix(p.Error(), export+`:12: path odd\name.txt: cannot be packaged under this name`) {
				t.Errorf("%v", p)
			}
		case p.Path != export || !errors.Is(p.Err, zipdump.ErrChanged) || !strings.Contains(p.Err.Error(), "left out of the Resource List and the Resource Dump"):
			t.Errorf("%v", p)
		}
	}
	// The export lists the members backwards: index.html is line 1,
	// data/holdings.csv line 6, data/big.txt line 8; the copy line 11,
	// the odd name line 12.
	if !slices.Equal(lines, []int{1, 6, 8, 11, 12}) || rep.Export.Unpackaged != 5 || rep.Files != len(members)+2-5 {
		t.Errorf("lines %v, %d unpackaged, %d listed", lines, rep.Export.Unpackaged, rep.Files)
	}
	for _, m := range checkDump(t, cfg.Out, hashing.DefaultSet) {
		if m.MD.Path == "/index.html" || m.MD.Path == "/data/holdings.csv" || m.MD.Path == "/data/big.txt" {
			t.Errorf("%s packaged", m.MD.Path)
		}
	}
	if !rep.Export.ChangeList {
		return // nothing in the window (TestExportEmptyWindow)
	}
	_, changes := testenv.ReadList(t, filepath.Join(cfg.Out, docsDir), "changelist.xml")
	for _, c := range changes {
		if strings.HasSuffix(c.Loc, "index.html") {
			t.Errorf("%s is in the Change List", c.Loc)
		}
	}
}
