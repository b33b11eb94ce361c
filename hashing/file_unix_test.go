//go:build unix

package hashing

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// specialFiles makes a regular file, a FIFO, a symbolic link to the
// regular file, a directory and a dangling name in a temporary directory.
func specialFiles(t *testing.T) (dir string, content []byte) {
	t.Helper()
	dir = t.TempDir()
	content = []byte("hello, resourcesync\n")
	if err := os.WriteFile(filepath.Join(dir, "file"), content, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("file", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, content
}

var openCases = []struct {
	name    string
	wantErr func(error) bool // nil: the file opens
}{
	{"file", nil},
	{"fifo", func(err error) bool { return errors.Is(err, ErrNotRegular) }},
	{"link", func(err error) bool { return errors.Is(err, syscall.ELOOP) }},
	{"dir", func(err error) bool { return errors.Is(err, ErrNotRegular) }},
	{"missing", func(err error) bool { return errors.Is(err, fs.ErrNotExist) }},
}

// withoutBlocking runs f and fails the test if it has not returned after
// a generous while: opening a FIFO must not wait for a writer.
func withoutBlocking(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("blocked (a FIFO opened for reading waits for a writer unless O_NONBLOCK is set)")
	}
}

func TestOpenRegular(t *testing.T) {
	dir, content := specialFiles(t)
	for _, tt := range openCases {
		t.Run(tt.name, func(t *testing.T) {
			var f *os.File
			var info FileInfo
			var err error
			withoutBlocking(t, func() { f, info, err = OpenRegular(filepath.Join(dir, tt.name)) })
			if tt.wantErr != nil {
				if f != nil {
					f.Close()
				}
				if err == nil || !tt.wantErr(err) {
					t.Fatalf("OpenRegular = %v, want the error of a %s", err, tt.name)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if info.Size != int64(len(content)) || info.ModTime.IsZero() || info.Ino == 0 {
				t.Errorf("FileInfo = %+v, want size %d, a time and an inode", info, len(content))
			}
		})
	}
}

// TestSumPath checks the path a Pool takes: the same refusals as
// OpenRegular, and the right digest and FileInfo for a regular file.
func TestSumPath(t *testing.T) {
	dir, content := specialFiles(t)
	want := sha256.Sum256(content)
	h := NewHasher(Set{SHA256})
	for _, tt := range openCases {
		t.Run(tt.name, func(t *testing.T) {
			var info FileInfo
			var sum []byte
			var err error
			withoutBlocking(t, func() { info, sum, err = h.sumPath(nil, filepath.Join(dir, tt.name)) })
			if tt.wantErr != nil {
				if err == nil || !tt.wantErr(err) {
					t.Fatalf("sumPath = %v, want the error of a %s", err, tt.name)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(sum, want[:]) {
				t.Errorf("sum %x, want %x", sum, want)
			}
			st, err := os.Stat(filepath.Join(dir, tt.name))
			if err != nil {
				t.Fatal(err)
			}
			if info.Size != st.Size() || !info.ModTime.Equal(st.ModTime()) {
				t.Errorf("FileInfo = %+v, want size %d, time %v", info, st.Size(), st.ModTime())
			}
			if !bytes.Equal(h.Head(), content) {
				t.Errorf("Head = %q, want the content", h.Head())
			}
		})
	}
}

// TestChangedSize checks that a file that grew or shrank between the
// stat and the read is reported, by SumFile and by the short-read path.
func TestChangedSize(t *testing.T) {
	sizes := []int{0, 1, 100, bufSize - 1, bufSize, bufSize + 1, 3 * bufSize}
	type sumFunc func(h *Hasher, f *os.File, size int64) ([]byte, error)
	funcs := map[string]sumFunc{
		"SumFile": func(h *Hasher, f *os.File, size int64) ([]byte, error) {
			return h.SumFile(nil, f, size)
		},
		"sumRegular": func(h *Hasher, f *os.File, size int64) ([]byte, error) {
			return h.sumRegular(nil, f, size)
		},
	}
	h := NewHasher(Set{MD5, BLAKE3})
	for fname, sum := range funcs {
		for _, size := range sizes {
			for _, delta := range []int{-1, 0, 1, bufSize} {
				if size+delta < 0 {
					continue
				}
				name := fmt.Sprintf("%s/size%d/delta%+d", fname, size, delta)
				t.Run(name, func(t *testing.T) {
					data := bytes.Repeat([]byte{'x'}, size+delta)
					path := filepath.Join(t.TempDir(), "f")
					if err := os.WriteFile(path, data, 0o644); err != nil {
						t.Fatal(err)
					}
					f, err := os.Open(path)
					if err != nil {
						t.Fatal(err)
					}
					defer f.Close()
					// The file was size bytes when it was opened; it now has size+delta.
					got, err := sum(h, f, int64(size))
					if delta == 0 {
						if err != nil {
							t.Fatal(err)
						}
						_, want, _ := NewHasher(Set{MD5, BLAKE3}).Sum(nil, bytes.NewReader(data))
						if !bytes.Equal(got, want) {
							t.Errorf("sum %x, want %x", got, want)
						}
						return
					}
					if !errors.Is(err, ErrChanged) {
						t.Errorf("err = %v, want ErrChanged", err)
					}
				})
			}
		}
	}
}
