package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/testenv"
)

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

// TestSignals sends SIGINT, SIGTERM and SIGHUP to a running build: it must exit 1,
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

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
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

// TestSignalsCaughtFirst: the handler of the signals that stop rsgen is
// installed before any other package of rsgen is initialized (and main
// runs), as GODEBUG=inittrace=1 shows: a SIGTERM a few milliseconds after
// the start would else kill rsgen without its clean stop. The scripts'
// rsgen (rsgenCommand) shows it without a build of the command: the test
// binary initializes the packages of rsgen by the same rule, and those its
// tests add sort after the signals package.
func TestSignalsCaughtFirst(t *testing.T) {
	cmd := exec.Command(rsgenCommand(t), "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	const module, first = "github.com/rsgen/rsgen/", "github.com/rsgen/rsgen/cmd/rsgen/internal/signals"
	var inits []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "init" && (strings.HasPrefix(f[1], module) || f[1] == "main") {
			inits = append(inits, f[1])
		}
	}
	if len(inits) < 5 || inits[0] != first {
		t.Errorf("the packages of rsgen are initialized in the order %v, want %s first", inits, first)
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
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143, syscall.SIGHUP: 129} {
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

// TestInterruptedReadingPrevious interrupts a build of two sets while it
// reads the previous build over HTTP, at each of its requests in turn:
// rsgen says it was interrupted (exit 1), never that the previous build
// cannot be used with the advice to start the change history afresh.
func TestInterruptedReadingPrevious(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	live := filepath.Join(dir, "live")
	var requests, cancelAt atomic.Int64
	var cancel atomic.Pointer[context.CancelFunc]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == cancelAt.Load() {
			(*cancel.Load())()
		}
		http.FileServer(http.Dir(live)).ServeHTTP(w, r)
	}))
	defer srv.Close()
	for _, rel := range []string{"a/one.html", "a/two.html", "d/x.csv", "d/y.csv"} {
		testenv.WriteFile(t, dir, rel, rel)
	}
	config := func(out, prev string) string {
		path := filepath.Join(dir, "rsgen.toml")
		text := fmt.Sprintf("out = %q\ndocs-url = %q\nprevious = %q\nfirst-build-ok = true\n", out, srv.URL+"/", prev)
		for _, s := range []string{"a", "d"} {
			text += fmt.Sprintf("[[set]]\nname = %q\nsource = %q\nbase-url = %q\n", s, s, srv.URL+"/"+s+"/")
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for i, at := range []string{"2024-06-01T00:00:00Z", "2024-06-02T00:00:00Z"} {
		testenv.WriteFile(t, dir, "a/new.html", at)
		testenv.WriteFile(t, dir, "d/new.csv", at)
		if code, _, stderr := runCLI(t, context.Background(), "build", "-q", "--config", config(live, live), "--at", at); code != exitOK {
			t.Fatalf("build %d: %d\n%s", i+1, code, stderr)
		}
	}
	testenv.WriteFile(t, dir, "a/three.html", "3")
	path := config(filepath.Join(dir, "out"), srv.URL)
	for n := int64(1); ; n++ {
		ctx, stop := context.WithCancel(context.Background())
		cancel.Store(&stop)
		requests.Store(0)
		cancelAt.Store(n)
		code, _, stderr := runCLI(t, ctx, "build", "-q", "--config", path, "--at", "2024-06-03T00:00:00Z", "--out", filepath.Join(dir, "out", strconv.Itoa(int(n))))
		stop()
		if requests.Load() < n { // not interrupted
			if code != exitOK || n < 5 {
				t.Fatalf("the build that was not interrupted, after %d requests: %d\n%s", n-1, code, stderr)
			}
			break
		}
		if code != exitFailure || !strings.Contains(stderr, "rsgen: error: interrupted; nothing was published") ||
			strings.Contains(stderr, "cannot be used") || strings.Contains(stderr, "afresh") {
			t.Errorf("interrupted at request %d: exit code %d, stderr:\n%s", n, code, stderr)
		}
	}
}
