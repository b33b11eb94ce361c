//go:build unix

package hashcache

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestNotRegular: a FIFO given as the cache is refused at once by Load
// (a plain open waits for a writer forever) and never replaced by Save;
// nor is a directory.
func TestNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	for _, path := range []string{fifo, dir} {
		done := make(chan error, 1)
		go func() {
			_, err := Load(path, "/src")
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
			<-done
			t.Fatalf("Load(%s) blocked", path)
		}
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("Load(%s): %v, want ErrNotRegular", path, err)
		}
		if err := sample(3).Save(path); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Save(%s): %v, want ErrNotRegular", path, err)
		}
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode().Type() != os.ModeNamedPipe {
		t.Errorf("the FIFO was replaced: %v, %v", st, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files left in the directory, want the FIFO only", len(entries))
	}
}

// TestStreamNotRegular: Open refuses a FIFO, a directory and a device at
// once; Create refuses to replace them, and so does Commit when one took
// the cache's place after Create.
func TestStreamNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	for _, path := range []string{fifo, dir, "/dev/null"} {
		done := make(chan error, 1)
		go func() {
			r, err := Open(path, "/src")
			if err == nil {
				r.Close()
			}
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
			<-done
			t.Fatalf("Open(%s) blocked", path)
		}
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("Open(%s): %v, want ErrNotRegular", path, err)
		}
		if _, err := Create(path, "/src"); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Create(%s): %v, want ErrNotRegular", path, err)
		}
	}

	path := filepath.Join(dir, "cache")
	w, err := Create(path, "/src")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Put("a", &Entry{}, settled); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Commit over a FIFO: %v, want ErrNotRegular", err)
	}
	if st, err := os.Lstat(path); err != nil || st.Mode().Type() != os.ModeNamedPipe {
		t.Errorf("the FIFO was replaced: %v, %v", st, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d files left in the directory, want the two FIFOs", len(entries))
	}
}
