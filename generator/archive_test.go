package generator

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/zipdump"
)

// archiveMember is one entry written into a test archive.
type archiveMember struct {
	name     string
	body     string
	typeflag byte // tar type; for zip, tar.TypeDir, TypeSymlink and TypeReg are written
	link     string
}

var archiveMtime = time.Date(2024, 5, 1, 8, 30, 15, 0, time.UTC)

// awkwardMembers are what the archive tests hold: good files, and names
// that must be refused or skipped, never written anywhere.
var awkwardMembers = []archiveMember{
	{name: "index.html", body: "<!doctype html><title>home</title>"},
	{name: "docs/", typeflag: tar.TypeDir},
	{name: "./docs/a b & c.txt", body: "spaces"},
	{name: "data.bin", body: "%PDF-1.7 sniffed"},
	{name: "empty", body: ""},
	{name: "../evil.txt", body: "escape"},
	{name: "../../../../tmp/evil2.txt", body: "escape"},
	{name: "/etc/evil3", body: "absolute"},
	{name: "a/../b.txt", body: "dotdot"},
	{name: "a//b.txt", body: "empty segment"},
	{name: "bad\xff.txt", body: "not utf-8"},
	{name: "win\\path.txt", body: "backslash"},
	{name: ".hidden/x.txt", body: "hidden"},
	{name: "drafts/x.tmp", body: "excluded"},
	{name: "dup.txt", body: "one"},
	{name: "dup.txt", body: "two"},
	{name: "link", typeflag: tar.TypeSymlink, link: "index.html"},
	{name: "hard", typeflag: tar.TypeLink, link: "index.html"},
	{name: "fifo", typeflag: tar.TypeFifo},
	{name: "pax_global_header", typeflag: tar.TypeXGlobalHeader},
	{name: "resourcesync/capabilitylist.xml", body: "<old/>"},
	// A file that is also a directory of other members, which no tree
	// holds: both left out, but not "x!", which sorts between them.
	{name: "x", body: "a file"},
	{name: "x!", body: "between"},
	{name: "x/y", body: "under the file"},
	{name: "x/z/w", body: "deeper"},
	{name: "d/", typeflag: tar.TypeDir},
	{name: "d/f", body: "in the directory"},
	{name: "d", body: "a file of the directory's name"},
}

// publishedMembers are the members of awkwardMembers that are published.
var publishedMembers = map[string]string{
	"index.html": "<!doctype html><title>home</title>", "docs/a b & c.txt": "spaces", "data.bin": "%PDF-1.7 sniffed", "empty": "",
	"x!": "between",
}

// refusedMembers are the problems awkwardMembers give.
var refusedMembers = []string{
	`"bad\xff.txt"`, "../../../../tmp/evil2.txt", "../evil.txt", "/etc/evil3", "a/../b.txt", "a//b.txt", "d", "d/f", "dup.txt", "hard", `win\path.txt`,
	"x", "x/y", "x/z/w",
}

func writeTestArchive(t testing.TB, path string, members []archiveMember) {
	t.Helper()
	var buf bytes.Buffer
	if strings.HasSuffix(strings.ToLower(path), ".zip") {
		zw := zip.NewWriter(&buf)
		for _, m := range members {
			if m.typeflag == tar.TypeLink || m.typeflag == tar.TypeFifo || m.typeflag == tar.TypeXGlobalHeader {
				continue
			}
			h := &zip.FileHeader{Name: m.name, Modified: archiveMtime, Method: zip.Deflate}
			switch m.typeflag {
			case tar.TypeDir:
				h.SetMode(fs.ModeDir | 0o755)
			case tar.TypeSymlink:
				h.SetMode(fs.ModeSymlink | 0o777)
				m.body = m.link
			default:
				h.SetMode(0o644)
			}
			w, err := zw.CreateHeader(h)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(w, m.body)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	} else {
		var w io.Writer = &buf
		var zw *gzip.Writer
		if strings.HasSuffix(path, "gz") {
			zw = gzip.NewWriter(&buf)
			w = zw
		}
		tw := tar.NewWriter(w)
		for _, m := range members {
			flag := m.typeflag
			if flag == 0 {
				flag = tar.TypeReg
			}
			h := &tar.Header{Name: m.name, Typeflag: flag, Linkname: m.link, Mode: 0o644, ModTime: archiveMtime, Size: int64(len(m.body)), Format: tar.FormatPAX}
			if flag != tar.TypeReg {
				h.Size = 0
			}
			if flag == tar.TypeXGlobalHeader { // as git archive writes it
				h = &tar.Header{Name: m.name, Typeflag: flag, PAXRecords: map[string]string{"comment": "0123abcd"}, Format: tar.FormatPAX}
			}
			if err := tw.WriteHeader(h); err != nil {
				t.Fatal(err)
			}
			io.WriteString(tw, m.body)
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		if zw != nil {
			zw.Close()
		}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

type notices struct {
	mu   sync.Mutex
	msgs []string
}

func (n *notices) add(msg string) { n.mu.Lock(); n.msgs = append(n.msgs, msg); n.mu.Unlock() }

// TestArchives publishes archives of awkward members: the good ones as a
// tree holding them would be published, byte for byte; the others refused,
// each named, and nothing written anywhere but the output.
func TestArchives(t *testing.T) {
	base, _ := ParseBaseURL("https://example.org/")
	// The tree the archives hold, published as a directory.
	tree := filepath.Join(t.TempDir(), "tree")
	for name, body := range publishedMembers {
		p := filepath.Join(tree, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
		os.Chtimes(p, archiveMtime, archiveMtime)
	}
	treeCfg := Config{Source: tree, Out: filepath.Join(t.TempDir(), "out"), BaseURL: base, At: exportAt, FixedTime: true}
	if _, err := Build(context.Background(), treeCfg); err != nil {
		t.Fatal(err)
	}
	want := testenv.ReadTree(t, treeCfg.Out)

	for _, name := range []string{"site.tar", "site.tar.gz", "site.tgz", "SITE.ZIP"} {
		t.Run(name, func(t *testing.T) {
			work := t.TempDir()
			dir := filepath.Join(work, "a", "b") // room for ../ to land, if anything wrote it
			os.MkdirAll(dir, 0o755)
			src := filepath.Join(dir, name)
			writeTestArchive(t, src, awkwardMembers)
			var log notices
			cfg := Config{Source: src, Out: filepath.Join(dir, "out"), BaseURL: base, At: exportAt, FixedTime: true,
				Filter: Filter{Exclude: []string{"drafts/**"}}, Notice: log.add, Jobs: 3}
			rep, err := Build(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := testenv.ReadTree(t, cfg.Out)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("the archive's documents differ from the tree's:\n%s", got["resourcesync/resourcelist.xml"])
			}
			var problems []string
			for _, p := range rep.Problems {
				problems = append(problems, p.Path)
			}
			wantProblems := refusedMembers
			if strings.HasSuffix(name, ".ZIP") {
				wantProblems = slices.DeleteFunc(slices.Clone(refusedMembers), func(s string) bool { return s == "hard" })
			}
			if !slices.Equal(problems, wantProblems) {
				t.Errorf("problems %q\nwant     %q", problems, wantProblems)
			}
			if len(log.msgs) != 1 || !strings.Contains(log.msgs[0], "link: symbolic link in the archive, not published") {
				t.Errorf("notices %q", log.msgs)
			}
			var stray []string
			filepath.WalkDir(work, func(p string, d fs.DirEntry, err error) error {
				if rel, _ := filepath.Rel(dir, p); err == nil && !d.IsDir() && rel != name && !strings.HasPrefix(rel, "out"+string(filepath.Separator)) {
					stray = append(stray, p)
				}
				return nil
			})
			for _, evil := range []string{"/tmp/evil2.txt", "/etc/evil3"} {
				if _, err := os.Lstat(evil); err == nil {
					stray = append(stray, evil)
				}
			}
			if len(stray) > 0 {
				t.Errorf("files written outside the output: %q", stray)
			}

			// What the Resource Dump reads: the bytes of exactly the
			// published members, again, in the order of the archive.
			cfg.DocsURL = base
			cfg.Dump.Enabled = true // the index of the members is kept for a dump only
			b := archiveBuild(t, &cfg, &archive{path: src, kind: archiveKindOf(src)})
			scannedArchive(t, b, context.Background())
			m, err := b.archive.openMembers()
			if err != nil {
				t.Fatal(err)
			}
			defer m.close()
			if m.sequential() == strings.HasSuffix(name, ".ZIP") {
				t.Errorf("sequential: %v", m.sequential())
			}
			paths := slices.Collect(maps.Keys(b.archive.members))
			slices.SortFunc(paths, func(x, y string) int { return b.archive.members[x] - b.archive.members[y] })
			seen := map[string]string{}
			for _, p := range paths {
				r, err := m.open(&zipdump.Item{Name: p, Size: int64(len(publishedMembers[p]))})
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				data, err := io.ReadAll(r)
				if err != nil {
					t.Fatal(err)
				}
				seen[p] = string(data)
				r.Close()
			}
			if fmt.Sprint(seen) != fmt.Sprint(publishedMembers) {
				t.Errorf("read again %q", seen)
			}
		})
	}
}

func TestArchiveErrors(t *testing.T) {
	base, _ := ParseBaseURL("https://example.org/")
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.tgz")
	os.WriteFile(corrupt, []byte("\x1f\x8b not really"), 0o644)
	truncated := filepath.Join(dir, "truncated.tar")
	writeTestArchive(t, truncated, []archiveMember{{name: "a.txt", body: strings.Repeat("x", 5000)}})
	data, _ := os.ReadFile(truncated)
	os.WriteFile(truncated, data[:2000], 0o644)
	notZip := filepath.Join(dir, "not.zip")
	os.WriteFile(notZip, []byte("PK nothing"), 0o644)
	for _, src := range []string{corrupt, truncated, notZip, filepath.Join(dir, "missing.zip")} {
		cfg := Config{Source: src, Out: filepath.Join(dir, "out"), BaseURL: base}
		if _, err := Build(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), filepath.Base(src)) {
			t.Errorf("%s: error %v, want one naming it", filepath.Base(src), err)
		}
		if _, err := os.Stat(cfg.Out); err == nil {
			t.Errorf("%s: output left behind", filepath.Base(src))
		}
	}
}

func TestMemberName(t *testing.T) {
	tests := []struct{ raw, want, err string }{
		{"a/b.txt", "a/b.txt", ""},
		{"./a", "a", ""},
		{"././a", "a", ""},
		{"dir/", "", ""},
		{".", "", ""},
		{"./", "", ""},
		{"..", "", ".. segment"},
		{"a/..", "", ".. segment"},
		{"/a", "", "absolute"},
		{"C:/a", "", "absolute"},
		{"c:", "", "absolute"},
		{"a\\b", "", "backslash"},
		{"a\x00b", "", "NUL"},
		{"a/./b", "", "segment"},
		{"\xc3", "", "UTF-8"},
		{"ab:c", "ab:c", ""},
	}
	for _, tc := range tests {
		got, err := memberName(tc.raw)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("memberName(%q) = %q, %v; want %q, %q", tc.raw, got, err, tc.want, tc.err)
		}
	}
}

// dirConflicts finds every file that is also a directory of a later path,
// and every path under one, once each, whatever sorts between them.
func TestDirConflicts(t *testing.T) {
	for _, tt := range []struct {
		paths []string
		want  string
	}{
		{[]string{"a", "a-b", "a.c", "a0", "b"}, ""},
		{[]string{"a", "a!", "a!/b", "a/c"}, "a! a!/b<a! a a/c<a"},
		{[]string{"x", "x/y", "x/y/z"}, "x x/y<x x/y/z<x"},
		{[]string{"x", "x\x00", "x\x01/q", "x/y"}, "x x/y<x"},
		{[]string{"d/e", "d/e!", "d/e/f", "d/e0"}, "d/e d/e/f<d/e"},
	} {
		var d dirConflicts
		for _, p := range tt.paths {
			d.add(p)
		}
		var got []string
		for _, c := range d.found {
			s := c.path
			if c.under != "" {
				s += "<" + c.under
			}
			got = append(got, s)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("%q: %q, want %q", tt.paths, strings.Join(got, " "), tt.want)
		}
	}
	// The chain holds the paths a later one may lie under, no more: 3,000
	// names each the one before it and "!" (a byte below "/").
	var d dirConflicts
	name := "n"
	for range 3000 {
		d.add(name)
		name += "!"
	}
	d.add("o")
	if len(d.chain) != 1 || len(d.found) != 0 {
		t.Errorf("chain of %d, %d found after a path past them all", len(d.chain), len(d.found))
	}
}

// A sparse member declares its size, whatever bytes it holds: a tar of a
// few kilobytes may declare a petabyte of holes, which would be hashed for
// days. One larger than the archive could expand to is skipped, reported,
// and the rest published. GNU tar makes the sparse member.
func TestArchiveSparseMemberTooLarge(t *testing.T) {
	gnutar, err := exec.LookPath("tar")
	if err != nil {
		t.Skip("no tar to make a sparse member with:", err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.MkdirAll(src, 0o755)
	f, err := os.Create(filepath.Join(src, "holes"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Skip("no sparse file here:", err)
	}
	f.Close()
	os.WriteFile(filepath.Join(src, "small.txt"), []byte("small"), 0o644)
	archive := filepath.Join(dir, "s.tar")
	if out, err := exec.Command(gnutar, "--sparse", "-cf", archive, "-C", src, "holes", "small.txt").CombinedOutput(); err != nil {
		t.Skipf("tar --sparse: %v\n%s", err, out)
	}
	if st, err := os.Stat(archive); err != nil || st.Size() > 1<<20 {
		t.Skipf("tar did not make a sparse member (%v)", err)
	}
	cfg := testConfig(t, archive, filepath.Join(dir, "out"))
	rep, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Path != "holes" || !errors.Is(rep.Problems[0].Err, ErrMemberTooLarge) || rep.Files != 1 {
		t.Errorf("problems %v, %d files; want holes skipped and small.txt published", rep.Problems, rep.Files)
	}
}
