package generator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestUserFilesInTheDocumentsFolder: rsgen removes only what it wrote. A
// resourcesync/ folder holding anything else is refused, named, and kept;
// one published by rsgen (with its manifest, or by a version before the
// manifest) is replaced.
func TestUserFilesInTheDocumentsFolder(t *testing.T) {
	for _, tc := range []struct {
		name    string
		inPlace bool                                // SOURCE == OUT
		setup   func(t *testing.T, src, out string) // out holds a build when it runs
		refused string                              // the error names this; "" for a build that succeeds
	}{
		{name: "a user's folder, no build before", setup: func(t *testing.T, src, out string) {
			os.RemoveAll(filepath.Join(out, DocsDir))
			writeFile(t, out, DocsDir+"/notes.txt", "precious")
		}, refused: "notes.txt"},
		{name: "a user's content folder scanned in place", inPlace: true, setup: func(t *testing.T, src, out string) {
			os.RemoveAll(filepath.Join(out, DocsDir))
			writeFile(t, out, DocsDir+"/notes.txt", "precious")
		}, refused: "notes.txt"},
		{name: "a user's file added to rsgen's output", setup: func(t *testing.T, src, out string) {
			writeFile(t, out, DocsDir+"/sub/notes.txt", "precious")
		}, refused: "sub/notes.txt"},
		{name: "a user's page named like rsgen's, no Capability List", setup: func(t *testing.T, src, out string) {
			os.RemoveAll(filepath.Join(out, DocsDir))
			writeFile(t, out, DocsDir+"/index.html", "my own page")
		}, refused: "index.html"},
		{name: "a symbolic link", setup: func(t *testing.T, src, out string) {
			if err := os.Symlink(src, filepath.Join(out, DocsDir, "mine")); err != nil {
				t.Fatal(err)
			}
		}, refused: "mine"},
		{name: "output of the version before the manifest", setup: func(t *testing.T, src, out string) {
			if err := os.Remove(filepath.Join(out, DocsDir, manifestName)); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "an empty folder", setup: func(t *testing.T, src, out string) {
			os.RemoveAll(filepath.Join(out, DocsDir))
			if err := os.Mkdir(filepath.Join(out, DocsDir), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := copySite(t)
			out := t.TempDir()
			if tc.inPlace {
				out = src
			}
			cfg := testConfig(t, src, out)
			mustBuild(t, cfg)
			tc.setup(t, src, out)
			before := snapshot(t, out)
			cfg.At = cfg.At.Add(time.Hour)
			_, err := Build(context.Background(), cfg)
			if tc.refused == "" {
				if err != nil {
					t.Fatalf("Build: %v", err)
				}
				if _, err := os.Stat(filepath.Join(out, DocsDir, manifestName)); err != nil {
					t.Errorf("no manifest after the build: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrNotWritten) || !errors.Is(err, ErrOutput) || !strings.Contains(err.Error(), tc.refused) {
				t.Errorf("Build: %v; want an error naming %s", err, tc.refused)
			}
			sameSnapshot(t, "after the refused build", snapshot(t, out), before)
			noStage(t, out)
		})
	}
}

// TestOlderSnapshotRefused: a build whose snapshot is older than the one
// published does not replace it; one of the same time does.
func TestOlderSnapshotRefused(t *testing.T) {
	src := copySite(t)
	out := t.TempDir()
	cfg := testConfig(t, src, out)
	mustBuild(t, cfg)
	mustBuild(t, cfg) // the same snapshot again: reproducible, allowed
	before := snapshot(t, out)
	cfg.At = cfg.At.Add(-time.Second)
	_, err := Build(context.Background(), cfg)
	if !errors.Is(err, ErrOlderSnapshot) || !strings.Contains(err.Error(), "2024-06-01T12:00:00Z") {
		t.Errorf("Build: %v; want ErrOlderSnapshot naming the published time", err)
	}
	sameSnapshot(t, "after the refused build", snapshot(t, out), before)
	noStage(t, out)

	// Publish checks again, under the lock, whatever the stage was told.
	st, err := NewStage(out)
	if err != nil {
		t.Fatal(err)
	}
	st.at = testAt.Add(-time.Hour)
	if err := st.Publish(); !errors.Is(err, ErrOlderSnapshot) {
		t.Errorf("Publish: %v; want ErrOlderSnapshot", err)
	}
	st.Discard()
	sameSnapshot(t, "after the refused publish", snapshot(t, out), before)
	noStage(t, out)
}

// TestBusyOutput: while a build holds the output, another is refused at
// once and changes nothing.
func TestBusyOutput(t *testing.T) {
	src := copySite(t)
	out := t.TempDir()
	cfg := testConfig(t, src, out)
	mustBuild(t, cfg)
	st, err := NewStage(out)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Discard()
	before := snapshot(t, out)
	cfg.At = cfg.At.Add(time.Hour)
	_, err = Build(context.Background(), cfg)
	if !errors.Is(err, ErrBusy) || !errors.Is(err, ErrOutput) || !strings.Contains(err.Error(), out) {
		t.Errorf("Build: %v; want ErrBusy naming %s", err, out)
	}
	sameSnapshot(t, "after the refused build", snapshot(t, out), before)
}

// TestConcurrentBuilds: builds of different snapshots started together
// into one output never publish an older snapshot over a newer one. Each
// either publishes or is refused (busy, or older than what is there).
func TestConcurrentBuilds(t *testing.T) {
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
			if err == nil {
				latest = ats[j]
				if j == 0 && errs[1] == nil {
					t.Fatalf("try %d: both builds succeeded; the second should have been refused as busy or the first as older", i)
				}
			} else if !errors.Is(err, ErrBusy) && !errors.Is(err, ErrOlderSnapshot) {
				t.Fatalf("try %d: build at %s: %v", i, ats[j].Format(time.RFC3339), err)
			}
		}
		if latest.IsZero() {
			continue // both refused: possible only if a third held the lock, never here
		}
		m, err := readManifest(filepath.Join(out, DocsDir))
		if err != nil {
			t.Fatal(err)
		}
		if !m.At.Equal(latest) && !m.At.After(latest) {
			t.Fatalf("try %d: published snapshot %s, older than %s, which was published", i, m.At, latest)
		}
		noStage(t, out)
	}
}

// TestStaleStages: a staging directory that no running build holds is
// removed by the next build, whatever its name says; one a build holds is
// kept, even if its name carries the PID of a process that is gone.
func TestStaleStages(t *testing.T) {
	src := copySite(t)
	out := t.TempDir()
	stages := map[string]bool{ // name: held by a running build
		stagePrefix + "1-0123456789ab":                             false, // PID 1, alive in every container
		fmt.Sprintf("%s%d-ba9876543210", stagePrefix, os.Getpid()): false,
		stagePrefix + "0123456789ab.old":                           false,
		stagePrefix + "not-a-pid":                                  false,
		stagePrefix + "999999999-0123456789ab":                     true, // no such PID, but held
	}
	for name, held := range stages {
		writeFile(t, out, name+"/"+DocsDir+"/resourcelist.xml", "partial")
		if held {
			l, err := lockDir(filepath.Join(out, name))
			if err != nil {
				t.Fatal(err)
			}
			defer l.unlock()
		}
	}
	mustBuild(t, testConfig(t, src, out))
	for name, held := range stages {
		_, err := os.Stat(filepath.Join(out, name))
		if held && err != nil {
			t.Errorf("%s (held by a running build) was removed", name)
		}
		if !held && err == nil {
			t.Errorf("%s (held by no build) was not removed", name)
		}
	}
}

// errKilled is the panic of a publish step that simulates a kill: no code
// of Publish runs after it, as after SIGKILL or a power cut.
var errKilled = errors.New("killed")

// TestPublishFaults: whether Publish fails at step N or is killed there,
// for every N, the site found afterwards (after the next build's clean-up,
// for a kill) is the complete old one or the complete new one.
func TestPublishFaults(t *testing.T) {
	oldFiles := map[string]string{
		DocsDir + "/resourcelist.xml": "old list", DocsDir + "/capabilitylist.xml": `capability="capabilitylist" old`,
		DocsDir + "/changelist-old.xml": "old changes", WellKnownFile: "old description", "_headers": "# Written by rsgen old",
		"user.html": "the user's",
	}
	newFiles := map[string]string{
		DocsDir + "/resourcelist.xml": "new list", DocsDir + "/capabilitylist.xml": `capability="capabilitylist" new`,
		DocsDir + "/resourcelist-00001.xml": "new part", WellKnownFile: "new description", "_headers": "# Written by rsgen new",
		"resourcesync.nginx.conf": "# Written by rsgen new",
	}
	for _, firstBuild := range []bool{false, true} {
		setup := func(t *testing.T) (out string, st *Stage) {
			out = t.TempDir()
			for name, data := range oldFiles {
				if !firstBuild || name == "user.html" {
					writeFile(t, out, name, data)
				}
			}
			st, err := NewStage(out)
			if err != nil {
				t.Fatal(err)
			}
			st.at = testAt
			for name, data := range newFiles {
				if err := st.WriteFile(name, []byte(data)); err != nil {
					t.Fatal(err)
				}
			}
			return out, st
		}
		outNew, st := setup(t)
		if err := st.Publish(); err != nil {
			t.Fatal(err)
		}
		want := withoutManifest(snapshot(t, outNew))
		outOld, st := setup(t)
		st.Discard()
		old := withoutManifest(snapshot(t, outOld))
		steps := 0
		for n := 0; ; n++ {
			var reached bool
			for _, kill := range []bool{false, true} {
				name := fmt.Sprintf("first build %v, step %d, kill %v", firstBuild, n, kill)
				out, st := setup(t)
				i, at := 0, ""
				st.stepHook = func(step string) error {
					if i++; i-1 != n {
						return nil
					}
					reached, at = true, step
					if kill {
						panic(errKilled)
					}
					return fmt.Errorf("%s: %w", step, errSimulated)
				}
				err := publishOrDie(st)
				switch {
				case !reached:
					if err != nil {
						t.Fatalf("%s: Publish: %v", name, err)
					}
				case kill:
					if err != errKilled {
						t.Fatalf("%s: Publish: %v, want the simulated kill", name, err)
					}
					st.release() // the process is gone, and its locks with it
					next, err := NewStage(out)
					if err != nil {
						t.Fatalf("%s: the next build: %v", name, err)
					}
					next.Discard()
				case err == nil && at == "clean up":
					// Failing to remove the stage is not a failure of the
					// publish: the next build removes it.
					next, err := NewStage(out)
					if err != nil {
						t.Fatalf("%s: the next build: %v", name, err)
					}
					next.Discard()
				case !errors.Is(err, errSimulated):
					t.Fatalf("%s: Publish: %v, want the simulated failure", name, err)
				default:
					st.Discard()
				}
				got := withoutManifest(snapshot(t, out))
				if !snapshotsEqual(got, old) && !snapshotsEqual(got, want) {
					sameSnapshot(t, name+": neither the old site nor the new", got, want)
				}
				if !kill && reached && at != "clean up" && !snapshotsEqual(got, old) {
					t.Errorf("%s: a failed Publish left the new site, not the old one", name)
				}
				noStage(t, out)
			}
			if !reached {
				break
			}
			steps++
		}
		if steps < 5 {
			t.Errorf("only %d steps: the hook is not called", steps)
		}
	}
}

// publishOrDie runs st.Publish, turning the panic of a simulated kill
// into its error.
func publishOrDie(st *Stage) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if r != errKilled {
				panic(r)
			}
			err = errKilled
		}
	}()
	return st.Publish()
}

func withoutManifest(snap map[string]fileState) map[string]fileState {
	delete(snap, DocsDir+"/"+manifestName)
	return snap
}

func snapshotsEqual(a, b map[string]fileState) bool {
	if len(a) != len(b) {
		return false
	}
	for name, s := range a {
		if b[name] != s {
			return false
		}
	}
	return true
}

// TestJournalConfinedToOutput: a journal found in a stage (left by an
// older copy of the output, damaged, or written by someone else) names
// files outside the output or in the documents directory; recovering it
// must not remove or replace any of them.
func TestJournalConfinedToOutput(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	writeFile(t, parent, "victim", "precious")
	writeFile(t, parent, "kept/x", "precious")
	writeFile(t, out, "outside", "mine")
	st, err := NewStage(out)
	if err != nil {
		t.Fatal(err)
	}
	st.Discard()
	stage := filepath.Join(out, stagePrefix+"forged")
	root := []string{"../victim", "../kept/x", filepath.Join(parent, "victim"), DocsDir + "/mine.txt"}
	data, _ := json.Marshal(journal{Docs: "0:0", Root: root, Made: []string{"../kept"}})
	writeFile(t, stage, journalName, string(data))
	writeFile(t, out, DocsDir+"/mine.txt", "a user's")
	recoverStages(out)
	for _, f := range []string{filepath.Join(parent, "victim"), filepath.Join(parent, "kept/x"), filepath.Join(out, DocsDir, "mine.txt")} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("recovering a forged journal removed %s", f)
		}
	}
}

// TestUserFileDuringPublish: a user's file that appears in the documents
// directory while Publish syncs the stage (after its first check, before
// the swap) is not swapped out and removed with the old documents.
func TestUserFileDuringPublish(t *testing.T) {
	for _, at := range []string{"manifest", "sync", "journal", "prepare", "swap"} {
		out := t.TempDir()
		st, err := NewStage(out)
		if err != nil {
			t.Fatal(err)
		}
		st.at = testAt
		if err := st.WriteFile(DocsDir+"/capabilitylist.xml", []byte(`capability="capabilitylist"`)); err != nil {
			t.Fatal(err)
		}
		if err := st.Publish(); err != nil {
			t.Fatal(err)
		}
		st, err = NewStage(out)
		if err != nil {
			t.Fatal(err)
		}
		st.at = testAt
		if err := st.WriteFile(DocsDir+"/capabilitylist.xml", []byte(`capability="capabilitylist" new`)); err != nil {
			t.Fatal(err)
		}
		st.stepHook = func(step string) error {
			if step == at {
				writeFile(t, out, DocsDir+"/mine.html", "a user's")
			}
			return nil
		}
		err = st.Publish()
		st.Discard()
		if _, serr := os.Stat(filepath.Join(out, DocsDir, "mine.html")); serr != nil {
			t.Errorf("a user's file written before step %q was removed (publish: %v)", at, err)
		}
		if !errors.Is(err, ErrNotWritten) {
			t.Errorf("a user's file written before step %q: publish = %v, want ErrNotWritten", at, err)
		}
	}
}

// TestForeignNamePrintable: the name of a user's file in the documents
// directory is quoted in the error if it holds a newline or another
// control character, so that it cannot forge a line of rsgen's output.
func TestForeignNamePrintable(t *testing.T) {
	out := t.TempDir()
	writeFile(t, out, DocsDir+"/evil\nrsgen: published\x1b[2K", "a user's")
	_, err := NewStage(out)
	if !errors.Is(err, ErrNotWritten) {
		t.Fatalf("NewStage = %v, want ErrNotWritten", err)
	}
	if strings.ContainsAny(err.Error(), "\n\x1b") {
		t.Errorf("the error holds the name raw: %q", err)
	}
}
