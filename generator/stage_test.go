package generator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/internal/testenv"
)

// TestUserFilesInTheDocumentsFolder: rsgen removes only what it wrote. A
// resourcesync/ folder holding anything else is refused, named, and kept;
// one published by rsgen (with its manifest, or by a version before the
// manifest) is replaced.
func TestUserFilesInTheDocumentsFolder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		inPlace bool                                // SOURCE == OUT
		setup   func(t *testing.T, src, out string) // out holds a build when it runs
		refused string                              // the error names this; "" for a build that succeeds
	}{
		{name: "a user's folder, no build before", setup: func(t *testing.T, src, out string) {
			os.RemoveAll(filepath.Join(out, docsDir))
			testenv.WriteFile(t, out, docsDir+"/notes.txt", "precious")
		}, refused: "notes.txt"},
		{name: "a user's content folder scanned in place", inPlace: true, setup: func(t *testing.T, src, out string) {
			os.RemoveAll(filepath.Join(out, docsDir))
			testenv.WriteFile(t, out, docsDir+"/notes.txt", "precious")
		}, refused: "notes.txt"},
		{name: "a user's file added to rsgen's output", setup: func(t *testing.T, src, out string) {
			testenv.WriteFile(t, out, docsDir+"/sub/notes.txt", "precious")
		}, refused: "sub/notes.txt"},
		{name: "a user's page named like rsgen's, no Capability List", setup: func(t *testing.T, src, out string) {
			os.RemoveAll(filepath.Join(out, docsDir))
			testenv.WriteFile(t, out, docsDir+"/index.html", "my own page")
		}, refused: "index.html"},
		{name: "a symbolic link", setup: func(t *testing.T, src, out string) {
			if err := os.Symlink(src, filepath.Join(out, docsDir, "mine")); err != nil {
				t.Fatal(err)
			}
		}, refused: "mine"},
		{name: "output of the version before the manifest", setup: func(t *testing.T, src, out string) {
			if err := os.Remove(filepath.Join(out, docsDir, stage.ManifestName)); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "an empty folder", setup: func(t *testing.T, src, out string) {
			os.RemoveAll(filepath.Join(out, docsDir))
			if err := os.Mkdir(filepath.Join(out, docsDir), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := copySite(t)
			out := t.TempDir()
			if tc.inPlace {
				out = src
			}
			cfg := testConfig(t, src, out)
			mustBuild(t, cfg)
			tc.setup(t, src, out)
			before := testenv.Snapshot(t, out)
			cfg.At = cfg.At.Add(time.Hour)
			_, err := Build(context.Background(), cfg)
			if tc.refused == "" {
				if err != nil {
					t.Fatalf("Build: %v", err)
				}
				if _, err := os.Stat(filepath.Join(out, docsDir, stage.ManifestName)); err != nil {
					t.Errorf("no manifest after the build: %v", err)
				}
				return
			}
			if !errors.Is(err, stage.ErrNotWritten) || kindOf(err) != KindOutput || !strings.Contains(err.Error(), tc.refused) {
				t.Errorf("Build: %v; want an error naming %s", err, tc.refused)
			}
			testenv.SameSnapshot(t, "after the refused build", testenv.Snapshot(t, out), before)
			testenv.NoStage(t, out)
		})
	}
}

// TestOlderSnapshotRefused: a build whose snapshot is older than the one
// published does not replace it; one of the same time does. (That Publish
// checks again, whatever the stage was told, is internal/storage/stage's
// TestPublishOlderSnapshot.)
func TestOlderSnapshotRefused(t *testing.T) {
	t.Parallel()
	src := copySite(t)
	out := t.TempDir()
	cfg := testConfig(t, src, out)
	mustBuild(t, cfg)
	mustBuild(t, cfg) // the same snapshot again: reproducible, allowed
	before := testenv.Snapshot(t, out)
	cfg.At = cfg.At.Add(-time.Second)
	_, err := Build(context.Background(), cfg)
	if !errors.Is(err, stage.ErrOlderSnapshot) || !strings.Contains(err.Error(), "2024-06-01T12:00:00Z") {
		t.Errorf("Build: %v; want stage.ErrOlderSnapshot naming the published time", err)
	}
	testenv.SameSnapshot(t, "after the refused build", testenv.Snapshot(t, out), before)
	testenv.NoStage(t, out)

}

// TestBusyOutput: while a build holds the output, another is refused at
// once and changes nothing.
func TestBusyOutput(t *testing.T) {
	t.Parallel()
	src := copySite(t)
	out := t.TempDir()
	cfg := testConfig(t, src, out)
	mustBuild(t, cfg)
	st, err := stage.New(out, false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Discard()
	before := testenv.Snapshot(t, out)
	cfg.At = cfg.At.Add(time.Hour)
	_, err = Build(context.Background(), cfg)
	if !errors.Is(err, stage.ErrBusy) || kindOf(err) != KindOutput || !strings.Contains(err.Error(), out) {
		t.Errorf("Build: %v; want stage.ErrBusy naming %s", err, out)
	}
	testenv.SameSnapshot(t, "after the refused build", testenv.Snapshot(t, out), before)
}

// TestConcurrentBuilds: builds of different snapshots started together
// into one output never publish an older snapshot over a newer one. Each
// either publishes or is refused (busy, or older than what is there).
func TestConcurrentBuilds(t *testing.T) {
	t.Parallel()
	src := copySite(t)
	out := t.TempDir()
	deadline := time.Now().Add(5 * time.Second)
	latest := time.Time{} // the newest snapshot published so far
	for i := 0; i < 8 && time.Now().Before(deadline); i++ {
		ats := []time.Time{testAt.Add(time.Duration(2*i) * time.Minute), testAt.Add(time.Duration(2*i+1) * time.Minute)}
		errs := make([]error, len(ats))
		var wg sync.WaitGroup
		for j, at := range ats {
			wg.Go(func() {
				cfg := testConfig(t, src, out)
				cfg.At = at
				_, errs[j] = Build(context.Background(), cfg)
			})
		}
		wg.Wait()
		for j, err := range errs {
			// Both may succeed, if the older finished before the newer
			// started; the snapshot published then is the newer (below).
			if err == nil {
				latest = ats[j]
			} else if !errors.Is(err, stage.ErrBusy) && !errors.Is(err, stage.ErrOlderSnapshot) {
				t.Fatalf("try %d: build at %s: %v", i, ats[j].Format(time.RFC3339), err)
			}
		}
		if latest.IsZero() {
			continue // both refused: possible only if a third held the lock, never here
		}
		at, err := stage.PublishedAt(filepath.Join(out, docsDir))
		if err != nil {
			t.Fatal(err)
		}
		if !at.Equal(latest) && !at.After(latest) {
			t.Fatalf("try %d: published snapshot %s, older than %s, which was published", i, at, latest)
		}
		testenv.NoStage(t, out)
	}
}
