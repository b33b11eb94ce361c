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

// TestSumPath checks the path a Pool takes: it refuses a FIFO (without
// waiting for a writer), a symbolic link, a directory and a missing name,
// and gives the right digest and FileInfo for a regular file.
func TestSumPath(t *testing.T) {
	dir, content := specialFiles(t)
	want := sha256.Sum256(content)
	h := NewHasher(Set{SHA256})
	for _, tt := range openCases {
		t.Run(tt.name, func(t *testing.T) {
			var info FileInfo
			var sum []byte
			var err error
			withoutBlocking(t, func() { info, sum, err = sumFile(h, nil, nil, filepath.Join(dir, tt.name)) })
			if tt.wantErr != nil {
				if err == nil || !tt.wantErr(err) {
					t.Fatalf("sumFile = %v, want the error of a %s", err, tt.name)
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
// stat and the read is reported by SumFile.
func TestChangedSize(t *testing.T) {
	sizes := []int{0, 1, 100, bufSize - 1, bufSize, bufSize + 1, 3 * bufSize}
	type sumFunc func(h *Hasher, f *os.File, size int64) ([]byte, error)
	funcs := map[string]sumFunc{
		"SumFile": func(h *Hasher, f *os.File, size int64) ([]byte, error) {
			return h.SumFile(nil, f, size)
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

// TestSumPathsOfDirectories hashes files of several directories by path,
// in an order that switches between them, and files whose directory
// cannot be opened.
func TestSumPathsOfDirectories(t *testing.T) {
	root := t.TempDir()
	var paths []string
	want := map[string][32]byte{}
	for _, d := range []string{"a", "b", "a/c"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			p := filepath.Join(root, d, fmt.Sprintf("f%d", i))
			content := []byte(p)
			if err := os.WriteFile(p, content, 0o644); err != nil {
				t.Fatal(err)
			}
			want[p] = sha256.Sum256(content)
			paths = append(paths, p)
		}
	}
	// a/f0 b/f0 a/c/f0 a/f1 ...: every file in a different directory from the last.
	var order []string
	for i := range 3 {
		for j := 0; j < len(paths); j += 3 {
			order = append(order, paths[j+i])
		}
	}
	order = append(order, paths...) // then runs of the same directory
	h := NewHasher(Set{SHA256})
	for _, p := range order {
		_, sum, err := sumFile(h, nil, nil, p)
		if w := want[p]; err != nil || !bytes.Equal(sum, w[:]) {
			t.Errorf("%s: sum %x, %v; want %x", p, sum, err, w)
		}
	}
	for _, p := range []string{filepath.Join(root, "missing", "f0"), filepath.Join(root, "a", "f0", "x")} {
		if _, _, err := sumFile(h, nil, nil, p); err == nil {
			t.Errorf("%s: no error", p)
		}
	}
	// A relative path with no directory part is opened from the working directory.
	t.Chdir(filepath.Join(root, "b"))
	w := want[filepath.Join(root, "b", "f1")]
	if _, sum, err := sumFile(h, nil, nil, "f1"); err != nil || !bytes.Equal(sum, w[:]) {
		t.Errorf("f1 in the working directory: %x, %v; want %x", sum, err, w)
	}
}
