package generator

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/internal/text/units"
	"github.com/rsgen/rsgen/zipdump"
)

// update (-update) rewrites the golden files; it is declared in golden_test.go.

var (
	dumpAt    = time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	siteMtime = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
)

func dumpConfig(t testing.TB, src, out string) Config {
	t.Helper()
	base, err := ParseBaseURL("https://example.org/")
	if err != nil {
		t.Fatal(err)
	}
	return Config{Source: src, Out: out, BaseURL: base, At: dumpAt, FixedTime: true,
		Dump: Dump{Enabled: true}}
}

// checkDump checks the Resource Dump of the output out against its
// packages, read back with archive/zip, and against the Resource List
// (uniformity, section 9), and returns the manifest entries.
func checkDump(t testing.TB, out string, set hashing.Set) []*rsxml.Entry {
	t.Helper()
	docs := filepath.Join(out, docsDir)
	dump, pkgs := testenv.ReadList(t, docs, "resourcedump.xml")
	if dump.MD.Capability != rsxml.CapResourceDump || dump.MD.At == "" || dump.Link("up") == "" {
		t.Errorf("resourcedump.xml root: %+v %+v", dump.MD, dump.Links)
	}
	var manifests []*rsxml.Entry
	for _, p := range pkgs {
		name := filepath.Base(p.Loc)
		data, err := os.ReadFile(filepath.Join(docs, name))
		if err != nil {
			t.Fatal(err)
		}
		_, sum, _ := hashing.NewHasher(set).Sum(nil, bytes.NewReader(data))
		if p.MD.Type != "application/zip" || p.MD.Length != itoa(int64(len(data))) || p.MD.Hash != set.Format(sum) || p.MD.At == "" || p.MD.Completed == "" {
			t.Errorf("%s: entry %+v; %d bytes, %s", name, p.MD, len(data), set.Format(sum))
		}
		contents := ""
		for _, l := range p.Links {
			if l.Rel == "contents" && l.Type == "application/xml" {
				contents = filepath.Base(l.Href)
			}
		}
		if contents != strings.TrimSuffix(name, ".zip")+".manifest.xml" {
			t.Errorf("%s: rel=contents link to %q", name, contents)
		}
		copyBytes, err := os.ReadFile(filepath.Join(docs, contents))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files := map[string][]byte{}
		for _, f := range zr.File {
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(r)
			r.Close()
			if err != nil {
				t.Fatalf("%s: %s: %v", name, f.Name, err)
			}
			files[f.Name] = b
		}
		if !bytes.Equal(files[zipdump.ManifestName], copyBytes) {
			t.Errorf("%s: its manifest.xml is not %s", name, contents)
		}
		doc, entries, err := rsxml.ReadAll(bytes.NewReader(copyBytes), rsxml.ReadOptions{MaxBytes: rsxml.MaxBytes})
		if err != nil {
			t.Fatalf("%s: %v", contents, err)
		}
		if doc.MD.Capability != rsxml.CapResourceDumpManifest || doc.Link("up") != dump.Link("up") || doc.MD.At != p.MD.At || doc.MD.Completed != p.MD.Completed {
			t.Errorf("%s: root %+v %+v", contents, doc.MD, doc.Links)
		}
		paths := map[string]bool{} // records of an export may share a file
		for _, e := range entries {
			paths[e.MD.Path] = true
		}
		if len(files) != len(paths)+1 {
			t.Errorf("%s: %d files for %d manifest entries at %d paths", name, len(files), len(entries), len(paths))
		}
		for _, e := range entries {
			b, ok := files[strings.TrimPrefix(e.MD.Path, "/")]
			if !ok || !strings.HasPrefix(e.MD.Path, "/") {
				t.Errorf("%s: no bitstream at %q", name, e.MD.Path)
				continue
			}
			_, sum, _ := hashing.NewHasher(set).Sum(nil, bytes.NewReader(b))
			if e.MD.Hash != set.Format(sum) || e.MD.Length != itoa(int64(len(b))) {
				t.Errorf("%s: %s: manifest says %s, %s bytes; holds %s, %d bytes", name, e.MD.Path, e.MD.Hash, e.MD.Length, set.Format(sum), len(b))
			}
		}
		manifests = append(manifests, entries...)
		testenv.Unzip(t, filepath.Join(docs, name))
	}
	// Uniformity: the manifests list exactly the resources of the Resource
	// List, each once. The order may differ: a tar is packaged in its
	// order, an export in the order of its paths.
	_, list := testenv.ReadList(t, docs, "resourcelist.xml")
	if len(list) != len(manifests) {
		t.Fatalf("%d resources listed, %d packaged", len(list), len(manifests))
	}
	byLoc := map[string]*rsxml.Entry{}
	for _, m := range manifests {
		if byLoc[m.Loc] != nil {
			t.Errorf("%s packaged twice", m.Loc)
		}
		byLoc[m.Loc] = m
	}
	for _, r := range list {
		m := byLoc[r.Loc]
		if m == nil {
			t.Errorf("%s is listed, not packaged", r.Loc)
			continue
		}
		if r.Lastmod != m.Lastmod || r.MD.Hash != m.MD.Hash || r.MD.Length != m.MD.Length || r.MD.Type != m.MD.Type {
			t.Errorf("resource %s is listed as %+v, packaged as %+v", r.Loc, r.MD, m.MD)
		}
	}
	return manifests
}

// validateDump runs the official validator over the documents of out.
func validateDump(t testing.TB, out string) {
	t.Helper()
	runOfficial(t, out)
}

func TestResourceDumpGolden(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	rep := mustBuild(t, dumpConfig(t, testenv.CopySite(t, siteMtime), out))
	if len(rep.Problems) != 0 || rep.Files != 9 {
		t.Fatalf("%d files, problems %v", rep.Files, rep.Problems)
	}
	manifests := checkDump(t, out, hashing.DefaultSet)
	if len(manifests) != 9 {
		t.Errorf("%d bitstreams packaged", len(manifests))
	}
	got, err := os.ReadFile(filepath.Join(out, docsDir, "resourcedump-00001.manifest.xml"))
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "dump", "manifest.xml")
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("manifest differs from %s (go test -update rewrites it):\n%s", golden, got)
	}
	_, caps := testenv.ReadDoc(t, filepath.Join(out, docsDir, "capabilitylist.xml"))
	var names []string
	for _, c := range caps {
		names = append(names, c.MD.Capability)
	}
	if !slices.Equal(names, []string{rsxml.CapResourceList, rsxml.CapResourceDump}) {
		t.Errorf("Capability List offers %v", names)
	}
	validateDump(t, out)
}

// A Resource Dump split into one package a file, under an index, is
// valid and matches the Resource List (the other splits are
// dumps.TestResourceDumpSplits).
func TestResourceDumpSplits(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	cfg := dumpConfig(t, testenv.CopySite(t, siteMtime), out)
	cfg.Dump.MaxBytes, cfg.Limits.MaxEntries = units.Size(1), 3
	mustBuild(t, cfg)
	checkDump(t, out, hashing.DefaultSet)
	doc, pkgs := testenv.ReadList(t, filepath.Join(out, docsDir), "resourcedump.xml")
	if len(pkgs) != 9 || !doc.Index {
		t.Errorf("%d packages (index %v), want 9 under an index", len(pkgs), doc.Index)
	}
	validateDump(t, out)
}

func TestResourceDumpSameBytesWhateverJobs(t *testing.T) {
	t.Parallel()
	src := testenv.CopySite(t, siteMtime)
	// Files split into chunks, compressed in parallel.
	big := bytes.Repeat([]byte("a line of text that compresses, more or less, "), 80000)
	if err := os.WriteFile(filepath.Join(src, "data", "big.txt"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(filepath.Join(src, "data", "big.txt"), siteMtime, siteMtime)
	var first map[string]string
	for _, jobs := range []int{1, 2, 8} {
		out := t.TempDir()
		cfg := dumpConfig(t, src, out)
		cfg.Jobs = jobs
		cfg.Dump.MaxBytes = 4 << 10
		mustBuild(t, cfg)
		got := testenv.ReadTree(t, out)
		if first == nil {
			first = got
			continue
		}
		sameFiles(t, fmt.Sprintf("--jobs %d against --jobs 1", jobs), got, first)
	}
}

// A build that fails while packaging (interrupted, or the disk full)
// leaves the output as it was, and no staging directory.
func TestResourceDumpFailureLeavesOldOutput(t *testing.T) {
	t.Parallel()
	src := testenv.CopySite(t, siteMtime)
	tests := []struct {
		name string
		wrap func(cancel context.CancelFunc) func(zipdump.File) zipdump.File
		want error
	}{
		{name: "interrupted", want: context.Canceled, wrap: func(cancel context.CancelFunc) func(zipdump.File) zipdump.File {
			n := 0
			return func(f zipdump.File) zipdump.File {
				if n++; n == 3 {
					cancel()
				}
				return f
			}
		}},
		{name: "disk full", want: syscall.ENOSPC, wrap: func(context.CancelFunc) func(zipdump.File) zipdump.File {
			n := 0
			return func(f zipdump.File) zipdump.File {
				if n++; n == 3 {
					return &fullFile{File: f, left: 100}
				}
				return f
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			cfg := dumpConfig(t, src, out)
			cfg.Dump.MaxBytes = 2 << 10
			mustBuild(t, cfg)
			before := testenv.ReadTree(t, out)

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cfg.dumpFile = tt.wrap(cancel)
			cfg.At = dumpAt.Add(time.Hour)
			_, err := Build(ctx, cfg)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if tt.want == syscall.ENOSPC && !strings.Contains(err.Error(), "resourcedump-0000") {
				t.Errorf("%q does not name the file", err)
			}
			sameFiles(t, "the output after the failure", testenv.ReadTree(t, out), before)
		})
	}
}

// fullFile is a file on a disk that fills up after left more bytes.
type fullFile struct {
	zipdump.File
	left int
}

func (f *fullFile) Write(p []byte) (int, error) {
	if len(p) > f.left {
		n, _ := f.File.Write(p[:f.left])
		f.left = 0
		return n, &fs.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}
	}
	f.left -= len(p)
	return f.File.Write(p)
}

func TestResourceDumpLeavesOutChangedFiles(t *testing.T) {
	t.Parallel()
	src := testenv.CopySite(t, siteMtime)
	out := t.TempDir()
	cfg := dumpConfig(t, src, out)
	cfg.beforeDump = func() {
		os.WriteFile(filepath.Join(src, "index.html"), []byte("<p>rewritten after it was hashed</p>"), 0o644)
		os.Remove(filepath.Join(src, "data", "holdings.csv"))
	}
	rep := mustBuild(t, cfg)
	var problems []string
	for _, p := range rep.Problems {
		problems = append(problems, p.Path)
		if !errors.Is(p.Err, zipdump.ErrChanged) {
			t.Errorf("%s: %v", p.Path, p.Err)
		}
	}
	if !slices.Equal(problems, []string{"data/holdings.csv", "index.html"}) || rep.Files != 7 {
		t.Errorf("%d files published, problems %v", rep.Files, rep.Problems)
	}
	for _, m := range checkDump(t, out, hashing.DefaultSet) { // the Resource List matches the dump
		if strings.HasSuffix(m.Loc, "index.html") || strings.HasSuffix(m.Loc, "holdings.csv") {
			t.Errorf("%s published", m.Loc)
		}
	}
}

func TestResourceDumpNames(t *testing.T) {
	t.Parallel()
	src := testenv.CopySite(t, siteMtime)
	for _, name := range []string{"line\nbreak.txt", "manifest.xml"} {
		if err := os.WriteFile(filepath.Join(src, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	rep := mustBuild(t, dumpConfig(t, src, out))
	if len(rep.Problems) != 1 || rep.Problems[0].Path != "line\nbreak.txt" || !errors.Is(rep.Problems[0].Err, zipdump.ErrName) {
		t.Errorf("problems %v", rep.Problems)
	}
	var paths []string
	for _, m := range checkDump(t, out, hashing.DefaultSet) {
		paths = append(paths, m.MD.Path)
	}
	if !slices.Contains(paths, "/_manifest.xml") || slices.Contains(paths, "/manifest.xml") {
		t.Errorf("paths %q", paths)
	}
	validateDump(t, out)

	// Without a dump, the name is fine in a Resource List.
	cfg := dumpConfig(t, src, t.TempDir())
	cfg.Dump.Enabled = false
	if rep := mustBuild(t, cfg); len(rep.Problems) != 0 || rep.Files != 11 {
		t.Errorf("without a dump: %d files, problems %v", rep.Files, rep.Problems)
	}
}

func TestResourceDumpFollowsSymlinks(t *testing.T) {
	t.Parallel()
	src := testenv.CopySite(t, siteMtime)
	if err := os.Symlink("data", filepath.Join(src, "linked")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	os.Symlink(filepath.Join(src, "index.html"), filepath.Join(src, "absolute.html"))
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("secret"), 0o644)
	os.Symlink(outside, filepath.Join(src, "outside.txt"))
	out := t.TempDir()
	cfg := dumpConfig(t, src, out)
	cfg.FollowSymlinks = true
	rep := mustBuild(t, cfg)
	if len(rep.Problems) != 0 {
		t.Fatalf("problems %v", rep.Problems)
	}
	var paths []string
	for _, m := range checkDump(t, out, hashing.DefaultSet) {
		paths = append(paths, m.MD.Path)
	}
	for _, want := range []string{"/absolute.html", "/linked/holdings.csv", "/data/holdings.csv"} {
		if !slices.Contains(paths, want) {
			t.Errorf("%s not packaged: %q", want, paths)
		}
	}
	if slices.Contains(paths, "/outside.txt") {
		t.Error("a link leading outside the source was packaged")
	}
}

// A symbolic link swapped in after the walk, leading outside the source,
// is never followed by the dump, even to bytes identical to those hashed
// (which the digest check alone would let through).
func TestResourceDumpRefusesLinkSwappedIn(t *testing.T) {
	t.Parallel()
	src := testenv.CopySite(t, siteMtime)
	outside := t.TempDir()
	for _, name := range []string{"index.html", "café & crème.html", "first-article.html"} {
		from := filepath.Join(src, name)
		if name != "index.html" {
			from = filepath.Join(src, "articles", name)
		}
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(outside, name), b, 0o644)
	}
	out := t.TempDir()
	cfg := dumpConfig(t, src, out)
	cfg.beforeDump = func() {
		os.Rename(filepath.Join(src, "articles"), filepath.Join(src, "articles.old"))
		os.Symlink(outside, filepath.Join(src, "articles"))
		os.Remove(filepath.Join(src, "index.html"))
		os.Symlink(filepath.Join(outside, "index.html"), filepath.Join(src, "index.html"))
	}
	rep := mustBuild(t, cfg)
	var problems []string
	for _, p := range rep.Problems {
		problems = append(problems, p.Path)
		t.Log(p)
	}
	want := []string{"articles/café & crème.html", "articles/first-article.html", "index.html"}
	if !slices.Equal(problems, want) {
		t.Errorf("problems %v, want %q", rep.Problems, want)
	}
	checkDump(t, out, hashing.DefaultSet)
}
