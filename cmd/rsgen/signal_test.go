package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildBinary compiles rsgen into a temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command to build rsgen with")
		}
	}
	bin := filepath.Join(t.TempDir(), "rsgen")
	cmd := exec.Command(goTool, "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestSignals sends SIGINT and SIGTERM to a running build: it must exit 1,
// say it was interrupted, leave the previous output exactly as it was and
// remove its staging directory. The build is kept busy by a large sparse
// file, which costs no disk: the signal is sent as soon as the staging
// directory appears, long before the file is hashed.
func TestSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and hashes 128 MiB (-short)")
	}
	bin := buildBinary(t)
	clearEnv(t)
	src := copySite(t)
	out := t.TempDir()
	if code, _, stderr := runCLI(t, context.Background(), "build", "-q", "--base-url", "https://example.org/", "--out", out, src); code != exitOK {
		t.Fatalf("first build: %d\n%s", code, stderr)
	}
	big, err := os.Create(filepath.Join(src, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(128 << 20); err != nil {
		t.Fatal(err)
	}
	big.Close()
	before := treeState(t, out)

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			var stderr bytes.Buffer
			cmd := exec.Command(bin, "build", "--base-url", "https://example.org/", "--out", out, "--jobs", "1",
				"--hash", "md5,sha-1,sha-256,blake3", "--at", "2030-01-01T00:00:00Z", src)
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			if !waitForStage(out, done) {
				t.Fatalf("the build ended before its staging directory was seen:\n%s", stderr.String())
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
			case <-time.After(2 * time.Minute):
				cmd.Process.Kill()
				t.Fatalf("the build did not end after %v", sig)
			}
			if code := cmd.ProcessState.ExitCode(); code != exitFailure {
				t.Errorf("exit code %d (%v), want %d\n%s", code, cmd.ProcessState, exitFailure, stderr.String())
			}
			if !strings.Contains(stderr.String(), "rsgen: error: interrupted; nothing was published") {
				t.Errorf("stderr does not say the build was interrupted:\n%s", stderr.String())
			}
			sameTree(t, treeState(t, out), before)
			noStage(t, out)
		})
	}
}

// waitForStage polls out until a staging directory appears (true) or the
// build ends (false).
func waitForStage(out string, done <-chan error) bool {
	for {
		entries, _ := os.ReadDir(out)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".rsgen-stage-") {
				return true
			}
		}
		select {
		case <-done:
			return false
		case <-time.After(time.Millisecond):
		}
	}
}
