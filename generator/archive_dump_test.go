package generator

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/zipdump"
)

// dumpTree is a tree for the archive dump tests: the example site, and a
// text file over 1 MiB that is packaged in chunks, every file modified at
// testenv.ArchiveMtime. It returns the tree and its files as archive members, in
// the order of their paths.
func dumpTree(t testing.TB) (string, []testenv.Member) {
	t.Helper()
	dir := testenv.CopySite(t, siteMtime)
	big := strings.Repeat("a line of text that compresses, more or less, in chunks\n", 25000)
	if err := os.WriteFile(filepath.Join(dir, "data", "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	var members []testenv.Member
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") { // hidden: not published
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		members = append(members, testenv.Member{Name: filepath.ToSlash(rel), Body: string(b)})
		if err == nil {
			err = os.Chtimes(p, testenv.ArchiveMtime, testenv.ArchiveMtime)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(members, func(a, b testenv.Member) int { return strings.Compare(a.Name, b.Name) })
	return dir, members
}

// TestArchiveResourceDump packages archives: a zip in the order of its
// paths, as the tree it holds is packaged, whatever the order of its
// members; a tar in its own order. Every package is read back and checked
// against its manifest and the Resource List, and the output does not
// depend on --jobs. An archive in the order of the paths gives the tree's
// output, byte for byte.
func TestArchiveResourceDump(t *testing.T) {
	t.Parallel()
	tree, members := dumpTree(t)
	treeCfg := dumpConfig(t, tree, filepath.Join(t.TempDir(), "out"))
	treeCfg.Dump.MaxBytes = 256 << 10 // several packages
	treeCfg.Jobs = 3
	if rep := mustBuild(t, treeCfg); len(rep.Problems) != 0 {
		t.Fatal(rep.Problems)
	}
	want := testenv.ReadTree(t, treeCfg.Out)
	reversed := slices.Clone(members)
	slices.Reverse(reversed)

	for _, name := range []string{"site.tar", "site.tgz", "site.zip"} {
		for _, order := range []string{"sorted", "reversed"} {
			t.Run(name+"/"+order, func(t *testing.T) {
				t.Parallel()
				src := filepath.Join(t.TempDir(), name)
				if order == "sorted" {
					testenv.WriteArchive(t, src, members)
				} else {
					testenv.WriteArchive(t, src, reversed)
				}
				// An output that is the tree's (built with --jobs 3) shows
				// already that it does not depend on --jobs.
				likeTree := order == "sorted" || strings.HasSuffix(name, ".zip")
				jobsList := []int{1, 3}
				if likeTree {
					jobsList = jobsList[:1]
				}
				var first map[string]string
				for _, jobs := range jobsList {
					cfg := treeCfg
					cfg.Source, cfg.Out, cfg.Jobs = src, filepath.Join(t.TempDir(), "out"), jobs
					rep := mustBuild(t, cfg)
					if len(rep.Problems) != 0 || rep.Files != len(members) {
						t.Fatalf("--jobs %d: %d files, problems %v", jobs, rep.Files, rep.Problems)
					}
					manifests := checkDump(t, cfg.Out, hashing.DefaultSet)
					got := testenv.ReadTree(t, cfg.Out)
					if first == nil {
						first = got
						if got["resourcesync/resourcelist.xml"] != want["resourcesync/resourcelist.xml"] {
							t.Errorf("the Resource List differs from the tree's:\n%s", got["resourcesync/resourcelist.xml"])
						}
						// The order of the packages: a tar's, or the paths'.
						var paths, wantPaths []string
						for _, m := range manifests {
							paths = append(paths, strings.TrimPrefix(m.MD.Path, "/"))
						}
						for _, m := range members {
							wantPaths = append(wantPaths, m.Name)
						}
						if order == "reversed" && !strings.HasSuffix(name, ".zip") {
							slices.Reverse(wantPaths)
						}
						if !slices.Equal(paths, wantPaths) {
							t.Errorf("packaged in the order %q\nwant %q", paths, wantPaths)
						}
						if likeTree {
							sameFiles(t, "the tree's output", got, want)
						}
						if name == "site.tgz" && order == "reversed" {
							validateDump(t, cfg.Out)
						}
						continue
					}
					sameFiles(t, "the output of --jobs 1", got, first)
				}
			})
		}
	}
}

// An archive replaced between the scan and the packaging: members whose
// bytes differ are left out of the dump and the Resource List; so are all
// after a member that is gone, in a tar, whose order is lost.
func TestArchiveResourceDumpChanged(t *testing.T) {
	t.Parallel()
	_, members := dumpTree(t)
	edit := func(ms []testenv.Member, name string, fn func(*testenv.Member) bool) []testenv.Member {
		out := make([]testenv.Member, 0, len(ms))
		for _, m := range ms {
			if m.Name == name && !fn(&m) {
				continue
			}
			out = append(out, m)
		}
		return out
	}
	upper := func(m *testenv.Member) bool { m.Body = strings.ToUpper(m.Body); return true }
	longer := func(m *testenv.Member) bool { m.Body += "!"; return true }
	gone := func(*testenv.Member) bool { return false }
	tests := []struct {
		name    string
		archive string
		change  func([]testenv.Member) []testenv.Member
		dropped []string
	}{
		{"tar: same length, other bytes", "site.tar", func(ms []testenv.Member) []testenv.Member {
			return edit(edit(ms, "index.html", upper), "data/big.txt", upper)
		}, []string{"data/big.txt", "index.html"}},
		{"tgz: longer", "site.tgz", func(ms []testenv.Member) []testenv.Member { return edit(ms, "data/holdings.csv", longer) },
			[]string{"data/holdings.csv"}},
		{"tgz: gone", "site.tgz", func(ms []testenv.Member) []testenv.Member { return edit(ms, "images/logo.png", gone) },
			[]string{"images/logo.png", "images/photo #1.png", "index.html"}},
		{"zip: other bytes and gone", "site.zip", func(ms []testenv.Member) []testenv.Member {
			return edit(edit(ms, "data/big.txt", upper), "data/empty.txt", gone)
		}, []string{"data/big.txt", "data/empty.txt", "data/holdings.csv", "data/records.jsonl", "docs/annual report/README", "images/logo.png", "images/photo #1.png", "index.html"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := filepath.Join(t.TempDir(), tt.archive)
			testenv.WriteArchive(t, src, members)
			cfg := dumpConfig(t, src, filepath.Join(t.TempDir(), "out"))
			cfg.beforeDump = func() { testenv.WriteArchive(t, src, tt.change(members)) }
			cfg.Jobs = 3
			rep := mustBuild(t, cfg)
			var dropped []string
			for _, p := range rep.Problems {
				dropped = append(dropped, p.Path)
				if !errors.Is(p.Err, zipdump.ErrChanged) {
					t.Errorf("%s: %v, want ErrChanged", p.Path, p.Err)
				}
			}
			if !slices.Equal(dropped, tt.dropped) {
				t.Errorf("dropped %q\nwant    %q", dropped, tt.dropped)
			}
			if rep.Files != len(members)-len(tt.dropped) {
				t.Errorf("%d files published", rep.Files)
			}
			for _, m := range checkDump(t, cfg.Out, hashing.DefaultSet) {
				if slices.Contains(tt.dropped, strings.TrimPrefix(m.MD.Path, "/")) {
					t.Errorf("%s packaged", m.MD.Path)
				}
			}
		})
	}
}
