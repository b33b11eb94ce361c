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

	"github.com/rsgen/rsgen/internal/storage/confined"
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

// TestCreateNoLinkInTree: Create writes through no symbolic link inside an
// untrusted directory, at the cache or at a directory on its way (made
// after any check by path: the walk itself refuses it), and follows one
// outside them.
func TestCreateNoLinkInTree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src, outside := filepath.Join(dir, "src"), filepath.Join(dir, "outside")
	for _, d := range []string{filepath.Join(src, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"src/first": "../outside", "src/sub/deeper": "../../outside", "src/file": "../outside/file", "ci": "outside"} {
		if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, path := range []string{"src/first/c", "src/sub/deeper/c", "src/file"} {
		w, err := Create(filepath.Join(dir, path), "/src", src)
		if !errors.Is(err, confined.ErrSymlink) {
			t.Errorf("%s: Create = %v, want ErrSymlink", path, err)
		}
		if w != nil {
			w.Abort()
		}
		if err := Check(filepath.Join(dir, path), src); !errors.Is(err, confined.ErrSymlink) {
			t.Errorf("%s: Check = %v, want ErrSymlink", path, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written where a link in the tree leads: %v", entries)
	}
	w, err := Create(filepath.Join(dir, "ci", "c"), "/src", src)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(outside, "c")); err != nil {
		t.Errorf("a link outside the tree is not followed: %v", err)
	}
}
