package generator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/internal/testenv"
)

var errSimulated = errors.New("simulated write failure")

// TestFailureLeavesOutputAsItWas: a build that fails, for any reason, leaves
// the output directory exactly as it was (names, bytes, modes) and no
// staging directory behind.
func TestFailureLeavesOutputAsItWas(t *testing.T) {
	t.Parallel()
	type env struct {
		src, out string
		cfg      *Config
		ctx      context.Context
	}
	for _, tc := range []struct {
		name    string
		noDocs  bool // the old output has no resourcesync/ folder
		setup   func(t *testing.T, e *env)
		wantErr func(err error) bool
		msg     string // the error names this
	}{
		{name: "missing source", setup: func(t *testing.T, e *env) { e.cfg.Source = filepath.Join(e.src, "nowhere") },
			wantErr: func(err error) bool { return errors.Is(err, os.ErrNotExist) }, msg: "nowhere"},
		{name: "source is a file", setup: func(t *testing.T, e *env) { e.cfg.Source = filepath.Join(e.src, "index.html") },
			msg: "index.html is not a directory"},
		{name: "fail-fast with a bad file", setup: func(t *testing.T, e *env) {
			testenv.WriteFile(t, e.src, "bad\xff.txt", "x")
			e.cfg.FailFast = true
		}, wantErr: func(err error) bool { return kindOf(err) == KindFailFast }, msg: `"bad\xff.txt"`},
		{name: "fail-fast with a file that vanishes", setup: func(t *testing.T, e *env) {
			e.cfg.FailFast = true
			e.cfg.listed = func(rel string) {
				if rel == "data/empty.txt" {
					os.Remove(filepath.Join(e.src, "data", "empty.txt"))
				}
			}
		}, wantErr: func(err error) bool { return kindOf(err) == KindFailFast }, msg: "data/empty.txt"},
		{name: "interrupted mid-scan", setup: func(t *testing.T, e *env) {
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			e.ctx = ctx
			n := 0
			e.cfg.listed = func(string) {
				if n++; n == 3 {
					cancel()
				}
			}
		}, wantErr: func(err error) bool { return errors.Is(err, context.Canceled) }},
		{name: "a part fails to be written", setup: func(t *testing.T, e *env) {
			e.cfg.Limits.MaxEntries = 3
			e.cfg.createHook = failOn(docsDir + "/resourcelist-00002.xml")
		}, wantErr: isSimulated, msg: "resourcelist-00002.xml"},
		{name: "the Capability List fails to be written", setup: func(t *testing.T, e *env) {
			e.cfg.createHook = failOn(docsDir + "/capabilitylist.xml")
		}, wantErr: isSimulated, msg: "capabilitylist.xml"},
		{name: "the Source Description fails to be written", setup: func(t *testing.T, e *env) {
			e.cfg.createHook = failOn(stage.WellKnownFile)
		}, wantErr: isSimulated},
		{name: "the Source Description cannot be moved into place", setup: func(t *testing.T, e *env) {
			blockWellKnown(t, e.out)
		}, msg: stage.WellKnownFile},
		{name: "the Source Description cannot be moved into place, no old documents", noDocs: true, setup: func(t *testing.T, e *env) {
			blockWellKnown(t, e.out)
		}, msg: stage.WellKnownFile},
		{name: "output under a regular file", setup: func(t *testing.T, e *env) {
			e.cfg.Out = filepath.Join(e.out, "user.html", "out")
		}, msg: "user.html"},
		{name: "output not writable", setup: func(t *testing.T, e *env) {
			if os.Geteuid() == 0 {
				t.Skip("root writes into a directory of mode 555 ('output under a regular file' covers it)")
			}
			os.Chmod(e.out, 0o555)
			t.Cleanup(func() { os.Chmod(e.out, 0o755) })
		}, msg: "not writable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := copySite(t)
			out := t.TempDir()
			cfg := testConfig(t, src, out)
			mustBuild(t, cfg) // the old output
			testenv.WriteFile(t, out, "user.html", "not rsgen's")
			if tc.noDocs {
				os.RemoveAll(filepath.Join(out, docsDir))
			}
			e := &env{src: src, out: out, cfg: &cfg, ctx: context.Background()}
			tc.setup(t, e)
			before := testenv.Snapshot(t, out)
			rep, err := Build(e.ctx, cfg)
			if err == nil {
				t.Fatalf("Build succeeded (%d files, problems %v); want an error", rep.Files, rep.Problems)
			}
			if tc.wantErr != nil && !tc.wantErr(err) {
				t.Errorf("error %v (%T) is not the one expected", err, err)
			}
			if tc.msg != "" && !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not name %q", err, tc.msg)
			}
			if strings.Count(err.Error(), src) > 1 || strings.Count(err.Error(), out) > 1 {
				t.Errorf("error %q names a path more than once", err)
			}
			testenv.SameSnapshot(t, "after "+tc.name, testenv.Snapshot(t, out), before)
			testenv.NoStage(t, out)
		})
	}
}

func failOn(name string) func(string) error {
	return func(n string) error {
		if n == name {
			return errSimulated
		}
		return nil
	}
}

func isSimulated(err error) bool { return errors.Is(err, errSimulated) }

// blockWellKnown puts a non-empty directory where the Source Description
// goes, so that moving it into place fails.
func blockWellKnown(t *testing.T, out string) {
	p := filepath.Join(out, stage.WellKnownFile)
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	testenv.WriteFile(t, out, stage.WellKnownFile+"/blocker", "x")
}

// TestFailureCreatesNothing: a failed build into an output directory that
// did not exist leaves it, and its parents, uncreated.
func TestFailureCreatesNothing(t *testing.T) {
	t.Parallel()
	src := copySite(t)
	testenv.WriteFile(t, src, "bad\xff.txt", "x")
	parent := t.TempDir()
	for _, out := range []string{filepath.Join(parent, "out"), filepath.Join(parent, "a", "b", "out")} {
		cfg := testConfig(t, src, out)
		cfg.FailFast = true
		if _, err := Build(context.Background(), cfg); err == nil {
			t.Fatalf("Build into %s succeeded; want a failure", out)
		}
		if entries, _ := os.ReadDir(parent); len(entries) != 0 {
			t.Errorf("a failed build into %s left %s", out, entries[0].Name())
		}
	}
}

// TestUserFileNamedLikeTheOutput: a file (or link) of the user's where
// rsgen's documents folder goes is not rsgen's to replace: the build fails
// and the file is kept.
func TestUserFileNamedLikeTheOutput(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"file", "symlink"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			src := copySite(t)
			out := t.TempDir()
			p := filepath.Join(out, docsDir)
			if kind == "file" {
				testenv.WriteFile(t, out, docsDir, "the user's notes")
			} else if err := os.Symlink(src, p); err != nil {
				t.Fatal(err)
			}
			before := testenv.Snapshot(t, out)
			_, err := Build(context.Background(), testConfig(t, src, out))
			if err == nil || !strings.Contains(err.Error(), docsDir) || kindOf(err) != KindOutput {
				t.Errorf("Build: %v; want an output error naming %s", err, docsDir)
			}
			testenv.SameSnapshot(t, "after the build", testenv.Snapshot(t, out), before)
			testenv.NoStage(t, out)
		})
	}
}

// TestSourceInsideTheDocumentsFolder: a source that is (or is inside) the
// folder rsgen replaces with its documents is refused, not swapped away.
func TestSourceInsideTheDocumentsFolder(t *testing.T) {
	t.Parallel()
	for _, rel := range []string{docsDir, docsDir + "/collection"} {
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			src := filepath.Join(out, filepath.FromSlash(rel))
			testenv.CopyTree(t, siteDir, src, time.Time{})
			before := testenv.Snapshot(t, out)
			_, err := Build(context.Background(), testConfig(t, src, out))
			if err == nil || kindOf(err) != KindOutput || !strings.Contains(err.Error(), "choose another output directory") {
				t.Errorf("Build: %v; want an output error", err)
			}
			testenv.SameSnapshot(t, "after the build", testenv.Snapshot(t, out), before)
			testenv.NoStage(t, out)
		})
	}
}
