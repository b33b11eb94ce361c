package hashing

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// disturbed reads a file and, after the first read of each of its first n
// passes, has it rewritten in place.
type disturbed struct {
	f       *os.File
	n       int
	fresh   bool
	rewrite func()
}

func (d *disturbed) Read(p []byte) (int, error) {
	m, err := d.f.Read(p)
	if d.fresh && d.n > 0 {
		d.fresh = false
		d.n--
		d.rewrite()
	}
	return m, err
}

func (d *disturbed) Seek(off int64, whence int) (int64, error) {
	d.fresh = true
	return d.f.Seek(off, whence)
}

// TestRewrittenInPlace: a file rewritten in place, at the same size, while
// it is read is read again, and gets the digest of the version that stayed
// put while it was read; one rewritten during every read is reported with
// ErrChanged. Never the digest of a mix of versions.
func TestRewrittenInPlace(t *testing.T) {
	const size = 3 * bufSize / 2 // two reads: the rewrite falls between them
	versions := [2][]byte{bytes.Repeat([]byte{'a'}, size), bytes.Repeat([]byte{'b'}, size)}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, versions[0], 0o644); err != nil {
		t.Fatal(err)
	}

	// The writer rewrites the file with the other version each time it is
	// asked, in one write at the same size. It sets a new modification time
	// too: a kernel that updates file times once a clock tick (Linux before
	// 6.13) could otherwise give the write the times of the stat before the
	// read, and only a time set apart makes the test the same everywhere.
	ask, done := make(chan struct{}), make(chan struct{})
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
		}
		defer w.Close()
		mtime := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := 1; ; i++ {
			if _, ok := <-ask; !ok {
				return
			}
			if w != nil {
				if _, err := w.WriteAt(versions[i%2], 0); err != nil {
					t.Error(err)
				}
				mtime = mtime.Add(time.Second)
				if err := os.Chtimes(path, mtime, mtime); err != nil {
					t.Error(err)
				}
			}
			done <- struct{}{}
		}
	}()
	defer close(ask)

	h := NewHasher(Set{SHA256})
	version := 0 // the version on disk
	for rewrites := 0; rewrites <= readAttempts; rewrites++ {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		stat := func() (FileInfo, error) {
			st, err := f.Stat()
			if err != nil {
				return FileInfo{}, err
			}
			return FileInfo{Size: st.Size(), ModTime: st.ModTime(), Mode: st.Mode().Type()}, nil
		}
		info, err := stat()
		if err != nil {
			t.Fatal(err)
		}
		r := &disturbed{f: f, n: rewrites, fresh: true, rewrite: func() {
			ask <- struct{}{}
			<-done
			version = 1 - version
		}}
		_, sum, err := h.sumStable(nil, r, info, stat)
		f.Close()
		if rewrites == readAttempts {
			if !errors.Is(err, ErrChanged) {
				t.Errorf("rewritten during each of %d reads: error %v, want ErrChanged", rewrites, err)
			}
			continue
		}
		want := sha256.Sum256(versions[version])
		if err != nil || !bytes.Equal(sum, want[:]) {
			t.Errorf("rewritten during %d reads: digest %x, %v; want %x, the version left on disk", rewrites, sum, err, want)
		}
	}
}
