package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/testenv"
)

// buildBinary compiles rsgen into a temporary directory.
// goCommand returns the go command of the toolchain running the tests, or
// skips t where there is none.
func goCommand(t *testing.T) string {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command to build with")
		}
	}
	return goTool
}

func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "rsgen")
	cmd := exec.Command(goCommand(t), "build", "-o", bin, ".")
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
	bin := rsgenCommand(t)
	clearEnv(t)
	src := testenv.CopySite(t, siteMtime)
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
			testenv.NoStage(t, out)
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

// TestOnSignals: the first signal cancels the run and does not exit; the
// second exits at once with 128 + its number.
func TestOnSignals(t *testing.T) {
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		t.Run(sig.String(), func(t *testing.T) {
			sigs := make(chan os.Signal)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			exited := make(chan int, 1)
			var stderr syncBuffer
			go onSignals(sigs, cancel, &stderr, func(code int) { exited <- code })
			sigs <- os.Interrupt
			<-ctx.Done()
			select {
			case code := <-exited:
				t.Fatalf("exited with %d at the first signal", code)
			default:
			}
			sigs <- sig
			if code := <-exited; code != want {
				t.Errorf("exit code %d, want %d", code, want)
			}
			if !strings.Contains(stderr.String(), "rsgen: error: interrupted again: stopped at once") {
				t.Errorf("stderr:\n%s", stderr.String())
			}
		})
	}
}

// TestSecondSignal: a second Ctrl-C ends rsgen at once, with code 130,
// while the first is still waiting for a clean stop. serve waits up to 5 s
// for the requests under way when it is stopped; a client that does not
// read a large (sparse) file keeps one under way.
func TestSecondSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary (-short)")
	}
	bin := rsgenCommand(t)
	dir := t.TempDir()
	big, err := os.Create(filepath.Join(dir, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(256 << 20); err != nil {
		t.Fatal(err)
	}
	big.Close()
	var stderr syncBuffer
	cmd := exec.Command(bin, "serve", "--addr", "0", dir)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	waitFor := func(what string) {
		t.Helper()
		for !strings.Contains(stderr.String(), what) {
			select {
			case <-done:
				t.Fatalf("rsgen ended before saying %q:\n%s", what, stderr.String())
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	waitFor("rsgen: serving")
	addr := regexp.MustCompile(`at (http://[^/]+/)`).FindStringSubmatch(stderr.String())[1]
	resp, err := http.Get(addr + "big.bin") // never read
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	cmd.Process.Signal(syscall.SIGINT)
	waitFor("interrupt again to stop at once")
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("rsgen did not end")
	}
	if strings.Contains(stderr.String(), "rsgen: stopped") {
		t.Skip("the clean stop ended before the second signal came (a very slow machine)")
	}
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("exit code %d, want %d\n%s", code, exitInterrupted, stderr.String())
	}
}
