//go:build unix

package hashcache

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCrashBeforeCommit kills a process writing a cache: the old cache is
// intact, and what is left is a temporary file named as the build
// recognises the cache's own (the cache's name followed by ".tmp-").
func TestCrashBeforeCommit(t *testing.T) {
	if path := os.Getenv("HASHCACHE_CRASH"); path != "" {
		w, err := Create(path, "/src")
		if err != nil {
			os.Exit(3)
		}
		for _, it := range sample(20000).list {
			if err := w.Put(it.path, it.entry, settled); err != nil {
				os.Exit(4)
			}
		}
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Minute)
		os.Exit(5)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "cache")
	writeStream(t, path, sample(10))
	before, _ := os.ReadFile(path)
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashBeforeCommit$")
	cmd.Env = append(os.Environ(), "HASHCACHE_CRASH="+path)
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the writer was not killed: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Error("the cache changed")
	}
	if _, err := Load(path, "/src"); err != nil {
		t.Errorf("the old cache: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		if e.Name() != "cache" {
			left = append(left, e.Name())
		}
	}
	if len(left) != 1 || !strings.HasPrefix(left[0], "cache.tmp-") {
		t.Errorf("left behind %q, want one cache.tmp-*", left)
	}
}
