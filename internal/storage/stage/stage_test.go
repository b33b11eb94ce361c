package stage

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/testenv"
)

// testAt is the snapshot time of the tests' stages.
var testAt = time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)

// errSimulated is the error of a publish step that fails on purpose.
var errSimulated = errors.New("simulated failure")

// testenv.NoStage looks for the staging directories by this package's
// prefix.
func TestStagePrefixOfTests(t *testing.T) {
	if testenv.StagePrefix != Prefix {
		t.Errorf("testenv.StagePrefix is %q, the prefix of staging directories %q", testenv.StagePrefix, Prefix)
	}
}

// TestStaleStages: a staging directory that no running build holds is
// removed by the next build, whatever its name says; one a build holds is
// kept, even if its name carries the PID of a process that is gone.
func TestStaleStages(t *testing.T) {
	out := t.TempDir()
	stages := map[string]bool{ // name: held by a running build
		Prefix + "1-0123456789ab":                             false, // PID 1, alive in every container
		fmt.Sprintf("%s%d-ba9876543210", Prefix, os.Getpid()): false,
		Prefix + "0123456789ab.old":                           false,
		Prefix + "not-a-pid":                                  false,
		Prefix + "999999999-0123456789ab":                     true, // no such PID, but held
	}
	for name, held := range stages {
		testenv.WriteFile(t, out, name+"/"+DocsDir+"/resourcelist.xml", "partial")
		if held {
			l, err := lockDir(filepath.Join(out, name))
			if err != nil {
				t.Fatal(err)
			}
			defer unlock(l)
		}
	}
	st, err := New(out, false)
	if err != nil {
		t.Fatal(err)
	}
	st.Discard()
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
					testenv.WriteFile(t, out, name, data)
				}
			}
			st, err := New(out, false)
			if err != nil {
				t.Fatal(err)
			}
			st.SetSnapshot(testAt)
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
		want := withoutManifest(testenv.Snapshot(t, outNew))
		outOld, st := setup(t)
		st.Discard()
		old := withoutManifest(testenv.Snapshot(t, outOld))
		steps := 0
		for n := 0; ; n++ {
			var reached bool
			for _, kill := range []bool{false, true} {
				name := fmt.Sprintf("first build %v, step %d, kill %v", firstBuild, n, kill)
				out, st := setup(t)
				i, at := 0, ""
				st.StepHook = func(step string) error {
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
					left := testenv.Snapshot(t, out)
					dry, err := New(out, true)
					if err != nil {
						t.Fatalf("%s: a dry run: %v", name, err)
					}
					dry.Discard()
					testenv.SameSnapshot(t, name+": a dry run", testenv.Snapshot(t, out), left)
					if len(dry.Notices()) == 0 {
						t.Errorf("%s: a dry run did not say that it left the killed build's stage", name)
					}
					next, err := New(out, false)
					if err != nil {
						t.Fatalf("%s: the next build: %v", name, err)
					}
					next.Discard()
				case err == nil && at == "clean up":
					// Failing to remove the stage is not a failure of the
					// publish: the next build removes it.
					next, err := New(out, false)
					if err != nil {
						t.Fatalf("%s: the next build: %v", name, err)
					}
					next.Discard()
				case !errors.Is(err, errSimulated):
					t.Fatalf("%s: Publish: %v, want the simulated failure", name, err)
				default:
					st.Discard()
				}
				got := withoutManifest(testenv.Snapshot(t, out))
				if !snapshotsEqual(got, old) && !snapshotsEqual(got, want) {
					testenv.SameSnapshot(t, name+": neither the old site nor the new", got, want)
				}
				if !kill && reached && at != "clean up" && !snapshotsEqual(got, old) {
					t.Errorf("%s: a failed Publish left the new site, not the old one", name)
				}
				testenv.NoStage(t, out)
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

func withoutManifest(snap map[string]testenv.FileState) map[string]testenv.FileState {
	delete(snap, DocsDir+"/"+ManifestName)
	return snap
}

func snapshotsEqual(a, b map[string]testenv.FileState) bool {
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
	testenv.WriteFile(t, parent, "victim", "precious")
	testenv.WriteFile(t, parent, "kept/x", "precious")
	testenv.WriteFile(t, out, "outside", "mine")
	st, err := New(out, false)
	if err != nil {
		t.Fatal(err)
	}
	st.Discard()
	stage := filepath.Join(out, Prefix+"forged")
	root := []string{"../victim", "../kept/x", filepath.Join(parent, "victim"), DocsDir + "/mine.txt"}
	data, _ := json.Marshal(journal{Docs: "0:0", Root: root, Made: []string{"../kept"}})
	testenv.WriteFile(t, stage, journalName, string(data))
	testenv.WriteFile(t, out, DocsDir+"/mine.txt", "a user's")
	recoverIn(t, out)
	for _, f := range []string{filepath.Join(parent, "victim"), filepath.Join(parent, "kept/x"), filepath.Join(out, DocsDir, "mine.txt")} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("recovering a forged journal removed %s", f)
		}
	}
}

// recoverIn runs recoverStages in out, and returns its notices.
func recoverIn(t *testing.T, out string) []string {
	t.Helper()
	root, err := confined.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	return recoverStages(root, false)
}

// TestPlantedJournal: a stage with a journal that a checkout of SOURCE
// (the output) put there, with a symbolic link in the output leading
// elsewhere, is not acted on: nothing outside the output is removed or
// written, nothing in it either, and the stage is named in a notice.
func TestPlantedJournal(t *testing.T) {
	parent := t.TempDir()
	out, elsewhere := filepath.Join(parent, "site"), filepath.Join(parent, "elsewhere")
	testenv.WriteFile(t, elsewhere, "important.txt", "precious")
	testenv.WriteFile(t, elsewhere, "authorized_keys", "the owner's key")
	testenv.WriteFile(t, out, "index.html", "the site")
	if err := os.Symlink(elsewhere, filepath.Join(out, "evil")); err != nil {
		t.Fatal(err)
	}
	stage := Prefix + "x"
	testenv.WriteFile(t, out, stage+"/"+journalName,
		`{"docs":"0:0","root":["evil/important.txt","evil/authorized_keys","index.html"],"old":["evil/authorized_keys"],"made":[]}`)
	testenv.WriteFile(t, out, stage+"/"+backupDir+"/evil/authorized_keys", "the attacker's key")
	before := testenv.Snapshot(t, parent)
	st, err := New(out, false)
	if err != nil {
		t.Fatal(err)
	}
	if n := st.Notices(); len(n) != 1 || !strings.Contains(n[0], stage) || !strings.Contains(n[0], "left alone") {
		t.Errorf("notices %q, want one naming %s", n, stage)
	}
	st.Discard()
	testenv.SameSnapshot(t, "after a build", testenv.Snapshot(t, parent), before)

	// Even with the identities a publish records, names outside those a
	// publish moves are refused, and a link on the way is never followed.
	j := journal{Docs: "0:0", Root: []string{"index.html"}}
	os.Remove(filepath.Join(out, stage, journalName))
	root, err := confined.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := writeJournal(root, stage, &j); err != nil {
		t.Fatal(err)
	}
	if n := recoverIn(t, out); len(n) != 1 || !strings.Contains(n[0], `"index.html"`) {
		t.Errorf("notices %q, want one naming index.html", n)
	}
	if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
		t.Error("index.html was removed")
	}
	j = journal{Docs: "0:0", Root: []string{WellKnownFile}, Old: []string{WellKnownFile}}
	os.Remove(filepath.Join(out, stage, journalName))
	os.Symlink(elsewhere, filepath.Join(out, WellKnownDir))
	testenv.WriteFile(t, elsewhere, "resourcesync", "theirs")
	testenv.WriteFile(t, out, stage+"/"+backupDir+"/"+WellKnownFile, "forged")
	if err := writeJournal(root, stage, &j); err != nil {
		t.Fatal(err)
	}
	recoverIn(t, out)
	if b, err := os.ReadFile(filepath.Join(elsewhere, "resourcesync")); string(b) != "theirs" {
		t.Errorf("written through .well-known: %q, %v", b, err)
	}
}

// TestIncompleteJournal: a journal cut short (a kill while it was
// written, before anything in the output changed) has its stage removed,
// without a notice.
func TestIncompleteJournal(t *testing.T) {
	out := t.TempDir()
	for _, data := range []string{"", `{"stage":"1:2","self":"3:`} {
		testenv.WriteFile(t, out, Prefix+"x/"+journalName, data)
		if n := recoverIn(t, out); len(n) != 0 {
			t.Errorf("notices %q", n)
		}
		testenv.NoStage(t, out)
	}
}

// TestUserFileDuringPublish: a user's file that appears in the documents
// directory while Publish syncs the stage (after its first check, before
// the swap) is not swapped out and removed with the old documents.
func TestUserFileDuringPublish(t *testing.T) {
	for _, at := range []string{"manifest", "sync", "journal", "prepare", "swap"} {
		out := t.TempDir()
		st, err := New(out, false)
		if err != nil {
			t.Fatal(err)
		}
		st.SetSnapshot(testAt)
		if err := st.WriteFile(DocsDir+"/capabilitylist.xml", []byte(`capability="capabilitylist"`)); err != nil {
			t.Fatal(err)
		}
		if err := st.Publish(); err != nil {
			t.Fatal(err)
		}
		st, err = New(out, false)
		if err != nil {
			t.Fatal(err)
		}
		st.SetSnapshot(testAt)
		if err := st.WriteFile(DocsDir+"/capabilitylist.xml", []byte(`capability="capabilitylist" new`)); err != nil {
			t.Fatal(err)
		}
		st.StepHook = func(step string) error {
			if step == at {
				testenv.WriteFile(t, out, DocsDir+"/mine.html", "a user's")
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
	testenv.WriteFile(t, out, DocsDir+"/evil\nrsgen: published\x1b[2K", "a user's")
	_, err := New(out, false)
	if !errors.Is(err, ErrNotWritten) {
		t.Fatalf("NewStage = %v, want ErrNotWritten", err)
	}
	if strings.ContainsAny(err.Error(), "\n\x1b") {
		t.Errorf("the error holds the name raw: %q", err)
	}
}

// TestManifestThroughLink: a manifest in the documents directory that is a
// symbolic link (to a manifest elsewhere, to /dev/zero) is never read
// through: the files it would vouch for are not rsgen's, and a link to a
// device that never ends would hold every build until memory runs out.
func TestManifestThroughLink(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "site")
	testenv.WriteFile(t, parent, "their.json", `{"generator":"rsgen","at":"2024-01-01T00:00:00Z","files":["mine.txt"]}`)
	testenv.WriteFile(t, out, DocsDir+"/mine.txt", "a user's file")
	if err := os.Symlink(filepath.Join(parent, "their.json"), filepath.Join(out, DocsDir, ManifestName)); err != nil {
		t.Skip(err)
	}
	if st, err := New(out, false); !errors.Is(err, ErrNotWritten) {
		t.Errorf("New = %v, want %v", err, ErrNotWritten)
		if err == nil {
			st.Discard()
		}
	}
	if _, err := PublishedAt(filepath.Join(out, DocsDir)); err == nil {
		t.Error("PublishedAt read a manifest through a symbolic link")
	}
}

// TestPublishOlderSnapshot: Publish refuses, under the lock, to replace a
// published snapshot with an older one, whatever the stage was told
// before; one of the same time is published again.
func TestPublishOlderSnapshot(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	publish := func(at time.Time) error {
		st, err := New(out, false)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Discard()
		if err := st.WriteFile(DocsDir+"/resourcelist.xml", []byte("<urlset/>")); err != nil {
			t.Fatal(err)
		}
		st.SetSnapshot(at)
		return st.Publish()
	}
	if err := publish(testAt); err != nil {
		t.Fatal(err)
	}
	if err := publish(testAt); err != nil {
		t.Fatalf("the same snapshot again: %v", err)
	}
	before := testenv.Snapshot(t, out)
	if err := publish(testAt.Add(-time.Hour)); !errors.Is(err, ErrOlderSnapshot) || !strings.Contains(err.Error(), "2024-06-01T12:00:00Z") {
		t.Errorf("Publish: %v; want ErrOlderSnapshot naming the published time", err)
	}
	testenv.SameSnapshot(t, "after the refused publish", testenv.Snapshot(t, out), before)
	testenv.NoStage(t, out)
}

// TestPublishRollback: when one of several files outside the documents
// directory cannot be moved into place, those moved before it get their
// old versions back, new ones are removed, and the documents are swapped
// back: the output is as it was.
func TestPublishRollback(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	testenv.WriteFile(t, out, "_headers", "old a")
	testenv.WriteFile(t, out, DocsDir+"/resourcelist.xml", "old list")
	testenv.WriteFile(t, out, DocsDir+"/capabilitylist.xml", `<rs:md capability="capabilitylist"/>`)
	testenv.WriteFile(t, out, "resourcesync.nginx.conf/file", "a directory where a file goes")
	before := testenv.Snapshot(t, out)
	st, err := New(out, false)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"_headers": "new a", WellKnownFile: "new c", "resourcesync.nginx.conf": "new z", DocsDir + "/resourcelist.xml": "new list",
	} {
		if err := st.WriteFile(name, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	err = st.Publish()
	if err == nil || !strings.Contains(err.Error(), "resourcesync.nginx.conf") {
		t.Fatalf("Publish: %v, want an error naming resourcesync.nginx.conf", err)
	}
	st.Discard()
	testenv.SameSnapshot(t, "after a failed Publish", testenv.Snapshot(t, out), before)
	testenv.NoStage(t, out)
}
