package generator

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenCases are builds of the example collection whose every output file
// is kept under testdata/golden/NAME: each document kind the build writes.
var goldenCases = []struct {
	name string
	edit func(cfg *Config)
	docs int // documents written
}{
	// Source Description, Capability List, Resource List.
	{name: "site", docs: 3},
	// A Resource List Index over parts of at most 4 entries.
	{name: "split-entries", docs: 6, edit: func(cfg *Config) { cfg.Limits.MaxEntries = 4 }},
	// Every digest, a base URL with a path, a describedby link, and parts
	// cut by size.
	{name: "split-bytes-base-path", docs: 5, edit: func(cfg *Config) {
		base, err := ParseBaseURL("https://example.org/collection/")
		if err != nil {
			panic(err)
		}
		cfg.BaseURL = base
		cfg.Hashes = hashing.Set{hashing.MD5, hashing.SHA1, hashing.SHA256, hashing.BLAKE3}
		cfg.Describedby = "https://example.org/about.html"
		cfg.Limits.MaxBytes = 4096
	}},
}

func TestGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := copySite(t)
			out := t.TempDir()
			cfg := testConfig(t, src, out)
			if tc.edit != nil {
				tc.edit(&cfg)
			}
			rep := mustBuild(t, cfg)
			if rep.Documents != tc.docs || rep.Files != 9 || len(rep.Problems) != 0 {
				t.Errorf("report: %d documents, %d files, problems %v; want %d documents, 9 files", rep.Documents, rep.Files, rep.Problems, tc.docs)
			}
			got := testenv.Snapshot(t, out)
			golden := filepath.Join("testdata", "golden", tc.name)
			if *update {
				if err := os.RemoveAll(golden); err != nil {
					t.Fatal(err)
				}
				testenv.CopyTree(t, out, golden, time.Time{})
			}
			want := testenv.Snapshot(t, golden)
			var names []string
			for name, st := range want {
				if st.Mode.IsRegular() {
					names = append(names, name)
				}
			}
			if len(names) < 3 {
				t.Fatalf("%s holds %d files: run 'go test ./generator -run TestGolden -update'", golden, len(names))
			}
			slices.Sort(names)
			for _, name := range names {
				if got[name].Data != want[name].Data {
					t.Errorf("%s differs from %s/%s (rerun with -update if the change is intended):\n%s", name, golden, name, got[name].Data)
				}
			}
			for name, st := range got {
				if _, ok := want[name]; !ok && st.Mode.IsRegular() {
					t.Errorf("%s written, but not in %s", name, golden)
				}
			}

			// Read back the way a Destination does.
			limits := cfg.Limits
			if limits.MaxEntries == 0 {
				limits.MaxEntries = defaultLimits.MaxEntries
			}
			if limits.MaxBytes == 0 {
				limits.MaxBytes = defaultLimits.MaxBytes
			}
			hashes := cfg.Hashes
			if hashes == nil {
				hashes = hashing.DefaultSet
			}
			pub := discover(t, fileFetcher(out, cfg.BaseURL), cfg.BaseURL.String()+stage.WellKnownFile, limits)
			if pub.docs != tc.docs {
				t.Errorf("a Destination reads %d documents, the build wrote %d", pub.docs, tc.docs)
			}
			checkPublishesExactly(t, pub.entries, cfg.BaseURL, src, expectedFiles(t, src, false), hashes)
		})
	}
}

// TestGoldenOfficialValidator runs the official validator over the golden
// files.
func TestGoldenOfficialValidator(t *testing.T) {
	t.Parallel()
	if testenv.Official(t) == nil {
		t.Skip("the official validator cannot run here")
	}
	for _, tc := range goldenCases {
		runOfficial(t, filepath.Join("testdata", "golden", tc.name))
	}
}
