package generator

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/testenv"
)

// makeTree writes n files of varied names, sizes and types under dir, the
// same for the same seed.
// defaultLimits are the limits of the spec, which a zero field of
// Config.Limits takes.
var defaultLimits = Limits{MaxEntries: rsxml.MaxEntries, MaxBytes: rsxml.MaxBytes}

func makeTree(t testing.TB, dir string, n int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed))
	exts := []string{".txt", ".html", ".png", "", ".json", ".bin"}
	for i := range n {
		name := fmt.Sprintf("d%02d/%s file %04d%s", i%7, strings.Repeat("n", rng.IntN(40)), i, exts[i%len(exts)])
		size := rng.IntN(200)
		if i%50 == 0 {
			size = 64<<10 + rng.IntN(64<<10)
		}
		b := make([]byte, size)
		for j := range b {
			b[j] = byte(rng.IntN(256))
		}
		testenv.WriteFile(t, dir, name, string(b))
	}
	fixMtimes(t, dir)
}

func TestSplit(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	makeTree(t, src, 40, 1)
	want := expectedFiles(t, src, false)
	for _, tc := range []struct {
		name   string
		limits Limits
		hashes hashing.Set
		parts  int // 0: a whole list
	}{
		{name: "fits exactly", limits: Limits{MaxEntries: 40}},
		{name: "one over", limits: Limits{MaxEntries: 39}, parts: 2},
		{name: "seven per part", limits: Limits{MaxEntries: 7}, parts: 6},
		{name: "twenty per part", limits: Limits{MaxEntries: 20}, parts: 2},
		{name: "by size", limits: Limits{MaxBytes: 4096}, parts: -1},
		{name: "by size, every digest", limits: Limits{MaxBytes: 6000},
			hashes: hashing.Set{hashing.MD5, hashing.SHA1, hashing.SHA256, hashing.BLAKE3}, parts: -1},
		{name: "by size and count", limits: Limits{MaxBytes: 5000, MaxEntries: 9}, parts: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(t, src, t.TempDir())
			cfg.Limits, cfg.Hashes = tc.limits, tc.hashes
			hashes := tc.hashes
			if hashes == nil {
				hashes = hashing.DefaultSet
			}
			rep, pub := buildAndRead(t, cfg)
			checkPublishesExactly(t, pub.entries, cfg.BaseURL, src, want, hashes)
			switch {
			case tc.parts == 0 && pub.list.Index:
				t.Errorf("split into %d parts, want a whole list", len(pub.parts))
			case tc.parts > 0 && len(pub.parts) != tc.parts:
				t.Errorf("%d parts, want %d", len(pub.parts), tc.parts)
			case tc.parts < 0 && len(pub.parts) < 2:
				t.Errorf("%d parts, want a split", len(pub.parts))
			}
			if rep.Documents != pub.docs {
				t.Errorf("%d documents written, %d read", rep.Documents, pub.docs)
			}
			for i, u := range pub.partURLs {
				if want := cfg.BaseURL.String() + docsDir + "/" + listwriter.PartName("resourcelist", i+1); u != want {
					t.Errorf("part %d at %s, want %s", i+1, u, want)
				}
			}
			checkPartsFull(t, cfg, pub)
			checkNoBodyFiles(t, cfg.Out)
		})
	}
}

// checkNoBodyFiles checks that the listwriter's body files did not reach
// the output.
func checkNoBodyFiles(t *testing.T, out string) {
	t.Helper()
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".list-body") {
			t.Errorf("a body file was published: %s", p)
		}
		return nil
	})
}

// checkPartsFull checks that each part but the last is full: the first
// entry of the next part would not have fitted. A split wastes no parts.
func checkPartsFull(t *testing.T, cfg Config, pub *published) {
	t.Helper()
	limits := cfg.Limits
	if limits.MaxEntries == 0 {
		limits.MaxEntries = defaultLimits.MaxEntries
	}
	if limits.MaxBytes == 0 {
		limits.MaxBytes = defaultLimits.MaxBytes
	}
	out := cfg.Out
	next := 0
	for i, u := range pub.partURLs {
		data, err := fileFetcher(out, cfg.BaseURL)(u)
		if err != nil {
			t.Fatal(err)
		}
		_, entries, err := rsxml.ReadAll(strings.NewReader(string(data)), rsxml.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		next += len(entries)
		if i == len(pub.partURLs)-1 {
			break
		}
		e := pub.entries[next]
		size := int64(len(data)) + int64(len(rsxml.AppendEntry(nil, false, e)))
		if len(entries) < limits.MaxEntries && size <= int64(limits.MaxBytes) {
			t.Errorf("part %d (%d entries, %d bytes) had room for %s (%d bytes with it)", i+1, len(entries), len(data), e.Loc, size)
		}
	}
}

// TestSplitLimitsOfTheIndex: an index cannot be split in turn, so when the
// parts would be too many for one index within the limits, the build fails
// and says which flag to raise; it never writes an index over the limits.
func TestSplitLimitsOfTheIndex(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	for i := range 600 {
		testenv.WriteFile(t, src, fmt.Sprintf("f%03d.txt", i), "x")
	}
	for _, tc := range []struct {
		name   string
		limits Limits
		flag   string
	}{
		{name: "too many parts for the entries of an index", limits: Limits{MaxEntries: 10}, flag: "Limits.MaxEntries"},
		{name: "an index over the byte limit", limits: Limits{MaxBytes: 4096}, flag: "Limits.MaxBytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			cfg := testConfig(t, src, out)
			cfg.Limits = tc.limits
			_, err := Build(context.Background(), cfg)
			if err == nil {
				pub := readBack(t, cfg) // fails the test if a document is over the limits
				t.Errorf("Build published %d parts within the limits; want an error", len(pub.parts))
				return
			}
			var le *Error
			if !errors.As(err, &le) || le.Kind != KindLimit || !slices.Contains(le.Raise, tc.flag) {
				t.Errorf("error %q: want a LimitError that raises %s", err, tc.flag)
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Errorf("a failed build left %d files in the output", len(entries))
			}
		})
	}
}

// TestDeterministicAcrossJobs: with a fixed time, the same tree gives the
// same bytes whatever the number of workers.
func TestDeterministicAcrossJobs(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	makeTree(t, src, 300, 2)
	var first map[string]testenv.FileState
	for _, jobs := range []int{1, 2, 8} {
		out := t.TempDir()
		cfg := testConfig(t, src, out)
		cfg.Jobs = jobs
		cfg.Limits.MaxEntries = 64
		cfg.Hashes = hashing.Set{hashing.SHA256, hashing.MD5}
		mustBuild(t, cfg)
		snap := testenv.Snapshot(t, out)
		if first == nil {
			first = snap
			if len(snap) < 8 {
				t.Fatalf("only %d files written", len(snap))
			}
			continue
		}
		testenv.SameSnapshot(t, fmt.Sprintf("--jobs %d against --jobs 1", jobs), snap, first)
	}
}

// TestVanishedFile: a file deleted after the walk listed it is skipped and
// named; the rest is published.
func TestVanishedFile(t *testing.T) {
	t.Parallel()
	src := copySite(t)
	cfg := testConfig(t, src, t.TempDir())
	cfg.listed = func(rel string) {
		if rel == "data/holdings.csv" {
			os.Remove(filepath.Join(src, "data", "holdings.csv"))
		}
	}
	rep, pub := buildAndRead(t, cfg)
	checkPublishesExactly(t, pub.entries, cfg.BaseURL, src, without(siteFiles, "data/holdings.csv"), hashing.DefaultSet)
	if got := problemPaths(rep); !slices.Equal(got, []string{"data/holdings.csv"}) {
		t.Fatalf("problems %v, want data/holdings.csv", rep.Problems)
	}
	if msg := rep.Problems[0].Err.Error(); !strings.Contains(msg, "vanished") || strings.Contains(msg, src) {
		t.Errorf("problem %q: want 'vanished', without the path repeated", msg)
	}
}

// TestReplacedFile: a file replaced by a FIFO or a directory after the walk
// listed it is skipped without blocking, and named.
func TestReplacedFile(t *testing.T) {
	t.Parallel()
	src := copySite(t)
	cfg := testConfig(t, src, t.TempDir())
	cfg.listed = func(rel string) {
		p := filepath.Join(src, filepath.FromSlash(rel))
		switch rel {
		case "data/holdings.csv":
			os.Remove(p)
			syscall.Mkfifo(p, 0o644)
		case "index.html":
			os.Remove(p)
			os.Mkdir(p, 0o755)
		case "images/logo.png":
			os.Remove(p)
			os.Symlink("photo #1.png", p)
		}
	}
	rep, pub := buildAndRead(t, cfg)
	checkPublishesExactly(t, pub.entries, cfg.BaseURL, src, without(siteFiles, "data/holdings.csv", "index.html", "images/logo.png"), hashing.DefaultSet)
	if got := problemPaths(rep); !slices.Equal(got, []string{"data/holdings.csv", "images/logo.png", "index.html"}) {
		t.Fatalf("problems %v", rep.Problems)
	}
	for _, p := range rep.Problems {
		if msg := p.Err.Error(); !strings.Contains(msg, "replaced during the build") {
			t.Errorf("%s: %q does not say the file was replaced during the build", p.Path, msg)
		}
	}
}

// TestUnreadableFile: a file that cannot be read is skipped and named,
// with what to do. Root reads any file, so the test needs another user.
func TestUnreadableFile(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("running as root, which reads a file of mode 000 (TestVanishedFile covers a file that cannot be read)")
	}
	src := copySite(t)
	p := filepath.Join(src, "data", "holdings.csv")
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(p, 0o644)
	cfg := testConfig(t, src, t.TempDir())
	rep, pub := buildAndRead(t, cfg)
	checkPublishesExactly(t, pub.entries, cfg.BaseURL, src, without(siteFiles, "data/holdings.csv"), hashing.DefaultSet)
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Err.Error(), "permission denied") ||
		!strings.Contains(rep.Problems[0].Err.Error(), "--exclude") {
		t.Errorf("problems %v, want data/holdings.csv: permission denied, with a hint", rep.Problems)
	}
}
