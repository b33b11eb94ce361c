package generator

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rsgen/rsgen/generator/internal/archivescan"
	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/internal/testenv"
)

// awkwardMembers are what the archive tests hold: good files, and names
// that must be refused or skipped, never written anywhere.
var awkwardMembers = []testenv.Member{
	{Name: "index.html", Body: "<!doctype html><title>home</title>"},
	{Name: "docs/", Typeflag: tar.TypeDir},
	{Name: "./docs/a b & c.txt", Body: "spaces"},
	{Name: "data.bin", Body: "%PDF-1.7 sniffed"},
	{Name: "empty", Body: ""},
	{Name: "../evil.txt", Body: "escape"},
	{Name: "../../../../tmp/evil2.txt", Body: "escape"},
	{Name: "/etc/evil3", Body: "absolute"},
	{Name: "a/../b.txt", Body: "dotdot"},
	{Name: "a//b.txt", Body: "empty segment"},
	{Name: "bad\xff.txt", Body: "not utf-8"},
	{Name: "win\\path.txt", Body: "backslash"},
	{Name: ".hidden/x.txt", Body: "hidden"},
	{Name: "drafts/x.tmp", Body: "excluded"},
	{Name: "dup.txt", Body: "one"},
	{Name: "dup.txt", Body: "two"},
	{Name: "link", Typeflag: tar.TypeSymlink, Link: "index.html"},
	{Name: "hard", Typeflag: tar.TypeLink, Link: "index.html"},
	{Name: "fifo", Typeflag: tar.TypeFifo},
	{Name: "pax_global_header", Typeflag: tar.TypeXGlobalHeader},
	{Name: "resourcesync/capabilitylist.xml", Body: "<old/>"},
	// A file that is also a directory of other members, which no tree
	// holds: both left out, but not "x!", which sorts between them.
	{Name: "x", Body: "a file"},
	{Name: "x!", Body: "between"},
	{Name: "x/y", Body: "under the file"},
	{Name: "x/z/w", Body: "deeper"},
	{Name: "d/", Typeflag: tar.TypeDir},
	{Name: "d/f", Body: "in the directory"},
	{Name: "d", Body: "a file of the directory's name"},
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

type notices struct {
	mu   sync.Mutex
	msgs []string
}

func (n *notices) add(msg string) { n.mu.Lock(); n.msgs = append(n.msgs, msg); n.mu.Unlock() }

// TestArchives publishes archives of awkward members: the good ones as a
// tree holding them would be published, byte for byte; the others refused,
// each named, and nothing written anywhere but the output.
func TestArchives(t *testing.T) {
	t.Parallel()
	base, _ := ParseBaseURL("https://example.org/")
	// The tree the archives hold, published as a directory.
	tree := filepath.Join(t.TempDir(), "tree")
	for name, body := range publishedMembers {
		p := filepath.Join(tree, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
		os.Chtimes(p, testenv.ArchiveMtime, testenv.ArchiveMtime)
	}
	treeCfg := Config{Source: tree, Out: filepath.Join(t.TempDir(), "out"), BaseURL: base, At: exportAt, FixedTime: true}
	if _, err := Build(context.Background(), treeCfg); err != nil {
		t.Fatal(err)
	}
	want := testenv.ReadTree(t, treeCfg.Out)

	for _, name := range []string{"site.tar", "site.tar.gz", "site.tgz", "SITE.ZIP"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			dir := filepath.Join(work, "a", "b") // room for ../ to land, if anything wrote it
			os.MkdirAll(dir, 0o755)
			src := filepath.Join(dir, name)
			testenv.WriteArchive(t, src, awkwardMembers)
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
		})
	}
}

func TestArchiveErrors(t *testing.T) {
	t.Parallel()
	base, _ := ParseBaseURL("https://example.org/")
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.tgz")
	os.WriteFile(corrupt, []byte("\x1f\x8b not really"), 0o644)
	truncated := filepath.Join(dir, "truncated.tar")
	testenv.WriteArchive(t, truncated, []testenv.Member{{Name: "a.txt", Body: strings.Repeat("x", 5000)}})
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

// A sparse member declares its size, whatever bytes it holds: a tar of a
// few kilobytes may declare a petabyte of holes, which would be hashed for
// days. One larger than the archive could expand to is skipped, reported,
// and the rest published. GNU tar makes the sparse member.
func TestArchiveSparseMemberTooLarge(t *testing.T) {
	t.Parallel()
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
	if len(rep.Problems) != 1 || rep.Problems[0].Path != "holes" || !errors.Is(rep.Problems[0].Err, archivescan.ErrMemberTooLarge) || rep.Files != 1 {
		t.Errorf("problems %v, %d files; want holes skipped and small.txt published", rep.Problems, rep.Files)
	}
}

// The build keeps the index of an archive's members only for a Resource
// Dump, which reads them again: a tar of many empty members costs the disk
// of its sort, not memory.
func TestArchiveIndexedOnlyForADump(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "site.tar")
	testenv.WriteArchive(t, src, []testenv.Member{{Name: "a.txt", Body: "a"}, {Name: "b.txt", Body: "b"}})
	for _, dump := range []bool{false, true} {
		cfg := testConfig(t, src, filepath.Join(dir, fmt.Sprint("out-", dump)))
		cfg.Dump.Enabled = dump
		b, err := newBuild(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		stg, err := stage.New(cfg.Out, false)
		if err != nil {
			t.Fatal(err)
		}
		b.attach(stg)
		found, err := b.scanArchive(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n := found.Len(); n != 2 {
			t.Errorf("dump %v: %d resources, want 2", dump, n)
		}
		if _, indexed := b.archive.Index("a.txt"); indexed != dump {
			t.Errorf("with a dump %v, the members are indexed: %v", dump, indexed)
		}
		b.spill.Remove()
		stg.Discard()
	}
}
