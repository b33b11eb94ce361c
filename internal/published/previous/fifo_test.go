//go:build unix

package previous

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mkfifo replaces the file rel of dir by a FIFO that nothing writes to.
func mkfifo(t *testing.T, dir, rel string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	return p
}

// unblocking runs f and fails if it does not return within a generous cap:
// a plain open of a FIFO waits for a writer forever. The FIFO is then
// opened for writing, which lets f go.
func unblocking(t *testing.T, fifo string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		<-done
		t.Fatalf("blocked on the FIFO %s", fifo)
		return nil
	}
}

// TestReadRefusesFIFO: a FIFO (or any file that is not regular) in the
// previous output directory fails the read at once, naming it, whether it
// is a document or a Change Dump package.
func TestReadRefusesFIFO(t *testing.T) {
	t.Parallel()
	for _, rel := range []string{".well-known/resourcesync", "resourcesync/capabilitylist.xml", "resourcesync/changelist.xml"} {
		t.Run(rel, func(t *testing.T) {
			dir := fixture(t, "good")
			fifo := mkfifo(t, dir, rel)
			err := unblocking(t, fifo, func() error {
				_, err := readAll(context.Background(), dir, Options{})
				return err
			})
			var pe *Error
			if !errors.As(err, &pe) || !errors.Is(err, ErrUnreachable) {
				t.Fatalf("error %v, want an *Error of kind ErrUnreachable", err)
			}
			if pe.Doc != fifo || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("error %q, want one naming %s as not a regular file", err, fifo)
			}
		})
	}
	t.Run("package", func(t *testing.T) {
		dir := fixture(t, "dump")
		site, err := readAll(context.Background(), dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		p := &site.ChangeDump.Packages[0]
		path, _ := site.LocalPath(p.URL)
		fifo := mkfifo(t, dir, mustRel(t, dir, path))
		err = unblocking(t, fifo, func() error {
			rc, err := site.OpenPackage(context.Background(), p)
			if err == nil {
				rc.Close()
			}
			return err
		})
		if err == nil || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("error %v, want one naming %s as not a regular file", err, fifo)
		}
	})
}

func mustRel(t *testing.T, dir, path string) string {
	t.Helper()
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(rel)
}
