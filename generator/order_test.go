package generator

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/testenv"
)

// The walk gives files in byte order of their paths, which the scan
// keeps whatever order the workers finish in: nothing sorts them after.
// A name that sorts between a directory's name and its files ("a-b"
// between "a" and "a/x"), and a followed link to a directory, are where
// a walk in order of names would go wrong; the scan then fails. The
// same holds of directories too large to sort in memory.
func TestScanKeepsThePathOrder(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for _, rel := range []string{"a", "a-b", "a.b", "a0", "b/c", "b-c/d", "b0", "z/a/b", "z/a-b", "z/a0"} {
		files[rel] = "file " + rel
	}
	files["dir/a-b"], files["dir/x/y"], files["dir/x0"] = "1", "2", "3"
	tr := acNewTree(t, files, acT0)
	// Links that sort as the directories they lead to: "l" before "l-",
	// while the name "l" alone sorts before "l-" too, but "m" (a link to
	// a directory) must come after "m-x" and before "m0".
	for _, l := range []string{"m", "l"} {
		if err := os.Symlink("dir", tr.path(l)); err != nil {
			t.Skip("no symbolic links:", err)
		}
	}
	tr.write("m-x", "m-x", acT0)
	tr.write("m0", "m0", acT0)

	want := func(out string) []string {
		t.Helper()
		_, entries := testenv.ReadDoc(t, filepath.Join(out, docsDir, "resourcelist.xml"))
		var locs []string
		for _, e := range entries {
			locs = append(locs, strings.TrimPrefix(e.Loc, "https://example.org/"))
		}
		return locs
	}
	var golden map[string]string
	for _, window := range []int{4096, 1, 2, 3, 7} {
		for _, jobs := range []int{1, 3, 16} {
			big := 0 // tree.DefaultBigDir
			if jobs == 3 {
				big = 2 // every directory sorted on disk
			}
			t.Run(fmt.Sprintf("window %d, %d jobs, directories of %d in memory", window, jobs, big), func(t *testing.T) {
				out := t.TempDir()
				cfg := acConfig(tr.dir, out, acDay(1))
				cfg.scanWindow, cfg.bigDir = window, big
				cfg.FollowSymlinks, cfg.Jobs = true, jobs
				mustBuild(t, cfg)
				locs := want(out)
				if !slices.IsSorted(locs) || len(locs) != len(files)+2+2*3 {
					t.Errorf("the Resource List lists\n%s", strings.Join(locs, "\n"))
				}
				got := testenv.ReadTree(t, out)
				if golden == nil {
					golden = got
				}
				sameFiles(t, "the output", got, golden)
			})
		}
	}
}

// A tree of a few thousand files read through a window of a few slots
// and a hash cache gives the same bytes as with a roomy window.
func TestScanWindowGivesTheSameOutput(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	files := map[string]string{}
	for i := range 3000 {
		files[fmt.Sprintf("d%d/%c/f%d", rng.IntN(7), 'a'+rng.IntN(5), i)] = strings.Repeat("x", rng.IntN(300))
	}
	tr := acNewTree(t, files, acT0)
	cache := filepath.Join(t.TempDir(), "cache")
	var golden map[string]string
	for _, window := range []int{4096, 5, 4096, 2} { // the second of each: a warm cache
		out := t.TempDir()
		cfg := acCachedConfig(tr.dir, out, cache, acDay(1))
		cfg.scanWindow = window
		rep := mustBuild(t, cfg)
		if rep.Files != len(files) {
			t.Fatalf("window %d: %d files published, want %d", window, rep.Files, len(files))
		}
		got := testenv.ReadTree(t, out)
		if golden == nil {
			golden = got
		}
		sameFiles(t, fmt.Sprintf("window %d", window), got, golden)
	}
}
