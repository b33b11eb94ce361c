//go:build unix

package regfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/storage/regfile"
)

// TestOpen opens a regular file and refuses a FIFO, a directory and a
// device, at once: a plain open of the FIFO would wait for a writer.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("data"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	opens := map[string]func(string) (*os.File, os.FileInfo, error){
		"Open":   func(name string) (*os.File, os.FileInfo, error) { return regfile.Open(filepath.Join(dir, name)) },
		"OpenIn": func(name string) (*os.File, os.FileInfo, error) { return regfile.OpenIn(root, name) },
	}
	for fn, open := range opens {
		t.Run(fn, func(t *testing.T) {
			f, st, err := open("file")
			if err != nil {
				t.Fatal(err)
			}
			if st.Size() != 4 {
				t.Errorf("size %d, want 4", st.Size())
			}
			f.Close()
			for _, name := range []string{"fifo", "sub"} {
				done := make(chan error, 1)
				go func() {
					f, _, err := open(name)
					if err == nil {
						f.Close()
					}
					done <- err
				}()
				select {
				case err = <-done:
				case <-time.After(10 * time.Second):
					w, _ := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0) // let it go
					defer w.Close()
					t.Fatalf("opening %s blocked", name)
				}
				if !errors.Is(err, regfile.ErrNotRegular) || !strings.Contains(err.Error(), name) {
					t.Errorf("%s: %v, want an error naming it that wraps ErrNotRegular", name, err)
				}
			}
		})
	}
	if _, _, err := regfile.Open("/dev/null"); !errors.Is(err, regfile.ErrNotRegular) {
		t.Errorf("/dev/null: %v, want ErrNotRegular", err)
	}
}
