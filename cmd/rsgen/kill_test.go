package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/testenv"
)

// TestKilledWhileSpooling kills a build (SIGKILL: no clean-up) while it
// scans, once its spool files and its new hash cache exist: the published
// output is left as it was, and the next build removes what the killed one
// left (its stage with the spool files, the cache's temporary file) and
// publishes as if nothing had happened; a dry run before it leaves them.
func TestKilledWhileSpooling(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the command in a process of its own (-short)")
	}
	bin := rsgenCommand(t)
	dir := t.TempDir()
	site, out, cache := filepath.Join(dir, "site"), filepath.Join(dir, "out"), filepath.Join(dir, "cache")
	for i := range 200 {
		p := filepath.Join(site, fmt.Sprintf("d%d", i%7), fmt.Sprintf("f%03d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprint("file ", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := func(at string, extra ...string) *exec.Cmd {
		args := append([]string{"build", site, "--base-url", "https://example.org/", "--out", out, "--hash", "sha-256",
			"--cache", cache, "--at", at, "-q"}, extra...)
		return exec.Command(bin, args...)
	}
	if b, err := build("2024-06-01T00:00:00Z").CombinedOutput(); err != nil {
		t.Fatalf("first build: %v\n%s", err, b)
	}
	before := testenv.ReadTree(t, out)
	cacheBefore, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	// A large sparse file keeps the scan busy; it costs no disk.
	big, err := os.Create(filepath.Join(site, "zz-big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(8 << 30); err != nil {
		t.Skip("no sparse file:", err)
	}
	big.Close()

	cmd := build("2024-06-02T00:00:00Z", "--previous", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	spooled := func() bool {
		m, _ := filepath.Glob(filepath.Join(out, ".rsgen-stage-*", ".spill-*", "resources-*"))
		tmp, _ := filepath.Glob(cache + ".tmp-*")
		return len(m) > 0 && len(tmp) > 0
	}
	for deadline := time.Now().Add(time.Minute); !spooled(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) || cmd.ProcessState != nil {
			cmd.Process.Kill()
			t.Fatalf("no spool file appeared:\n%s", stderr.String())
		}
	}
	cmd.Process.Kill()
	cmd.Wait()

	// What the killed build left, beside an output as it was.
	after := testenv.ReadTree(t, out)
	for name := range after {
		if strings.HasPrefix(name, ".rsgen-stage-") {
			delete(after, name)
		}
	}
	if !maps.Equal(after, before) {
		t.Errorf("the output changed after a killed build: %d files, were %d", len(after), len(before))
	}
	if b, err := os.ReadFile(cache); err != nil || !bytes.Equal(b, cacheBefore) {
		t.Errorf("the hash cache changed: %v", err)
	}

	if !spooled() {
		t.Fatal("the killed build left no spool file or temporary cache: nothing to clean up")
	}
	os.Remove(filepath.Join(site, "zz-big.bin"))
	// A dry run changes nothing of it: it is for the next build to remove.
	left := testenv.Snapshot(t, out)
	if b, err := build("2024-06-02T00:00:00Z", "--previous", out, "--dry-run").CombinedOutput(); err != nil {
		t.Fatalf("a dry run after: %v\n%s", err, b)
	}
	testenv.SameSnapshot(t, "a dry run after a killed build", testenv.Snapshot(t, out), left)
	if b, err := build("2024-06-02T00:00:00Z", "--previous", out).CombinedOutput(); err != nil {
		t.Fatalf("the build after: %v\n%s", err, b)
	}
	if left, _ := filepath.Glob(filepath.Join(out, ".rsgen-stage-*")); len(left) > 0 {
		t.Errorf("left in the output: %q", left)
	}
	if left, _ := filepath.Glob(cache + ".tmp-*"); len(left) > 0 {
		t.Errorf("left beside the cache: %q", left)
	}
}

// rsgenCommand is the rsgen command the scripts run: the test binary,
// which testscript.RunMain (TestMain) copied as "rsgen" into a directory
// it put first in $PATH. Run so, it is rsgen's main (Main), with no
// build of the command.
func rsgenCommand(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("rsgen")
	if err != nil || !strings.Contains(bin, "testscript-main") {
		t.Fatalf("no rsgen of testscript in $PATH: %q, %v", bin, err)
	}
	return bin
}
