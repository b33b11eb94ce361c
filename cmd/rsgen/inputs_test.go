//go:build unix

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/testenv"
)

// runUnblocked runs rsgen in-process and fails if it has not returned
// within a generous cap, then opens fifo for writing to let it go.
func runUnblocked(t *testing.T, fifo string, args ...string) (int, string) {
	t.Helper()
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, _, stderr := runCLI(t, context.Background(), args...)
		done <- result{code, stderr}
	}()
	select {
	case r := <-done:
		return r.code, r.stderr
	case <-time.After(20 * time.Second):
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		<-done
		t.Fatalf("rsgen %s blocked on the FIFO %s", strings.Join(args, " "), fifo)
		return 0, ""
	}
}

// TestFIFOInputs: a FIFO given as --cache, or found in the --previous
// directory, is refused at once with an error naming it, and nothing is
// published.
func TestFIFOInputs(t *testing.T) {
	clearEnv(t)
	src := testenv.CopySite(t, siteMtime)
	out := t.TempDir()
	base := []string{"build", "-q", "--base-url", "https://example.org/", "--at", "2024-06-01T00:00:00Z", "--out", out}
	if code, _, stderr := runCLI(t, context.Background(), append(base, src)...); code != exitOK {
		t.Fatalf("first build: %d\n%s", code, stderr)
	}
	prev := t.TempDir()
	if err := os.CopyFS(prev, os.DirFS(out)); err != nil {
		t.Fatal(err)
	}
	before := treeState(t, out)

	fifo := filepath.Join(t.TempDir(), "cache")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	code, stderr := runUnblocked(t, fifo, append(base, "--cache", fifo, src)...)
	if code != exitUsage || !strings.Contains(stderr, "rsgen: error: --cache \""+fifo+"\" is not valid: not a regular file") {
		t.Errorf("--cache FIFO: exit %d, stderr:\n%s", code, stderr)
	}
	sameTree(t, treeState(t, out), before)

	list := filepath.Join(prev, "resourcesync", "resourcelist.xml")
	os.Remove(list)
	if err := syscall.Mkfifo(list, 0o600); err != nil {
		t.Fatal(err)
	}
	code, stderr = runUnblocked(t, list, append(base, "--at", "2024-06-02T00:00:00Z", "--previous", prev, src)...)
	if code != exitFailure || !strings.Contains(stderr, list+": not a regular file\n") {
		t.Errorf("FIFO in --previous: exit %d, stderr:\n%s", code, stderr)

	}
	sameTree(t, treeState(t, out), before)
	testenv.NoStage(t, out)
}

// TestFIFOInOutput: FIFOs where the build reads files of the output
// directory (the site's robots.txt, a host's _headers) do not block it:
// robots.txt is not read, and a _headers that is not a regular file is the
// user's, which rsgen does not overwrite.
func TestFIFOInOutput(t *testing.T) {
	clearEnv(t)
	src := testenv.CopySite(t, siteMtime)
	out := t.TempDir()
	robots := filepath.Join(out, "robots.txt")
	if err := syscall.Mkfifo(robots, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	args := []string{"build", "--base-url", "https://example.org/", "--at", "2024-06-01T00:00:00Z", "--out", out}
	if code, stderr := runUnblocked(t, robots, append(args, src)...); code != exitOK {
		t.Fatalf("robots.txt FIFO: exit %d:\n%s", code, stderr)
	}
	headers := filepath.Join(out, "_headers")
	if err := syscall.Mkfifo(headers, 0o600); err != nil {
		t.Fatal(err)
	}
	code, stderr := runUnblocked(t, headers, append(args, "--host", "netlify", src)...)
	if code != exitFailure || !strings.Contains(stderr, headers+" exists and was not written by rsgen") {
		t.Errorf("_headers FIFO: exit %d:\n%s", code, stderr)
	}
}
