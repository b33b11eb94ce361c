package hashcache

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestPutOrder: a path not after the one before (before it, or the same)
// fails Put, and Commit after it, which leaves the old cache and no
// temporary file.
func TestPutOrder(t *testing.T) {
	for _, second := range []string{"a", "b", "a\n"} {
		dir := t.TempDir()
		path := filepath.Join(dir, "cache")
		if err := sample(3).Save(path); err != nil {
			t.Fatal(err)
		}
		before, _ := os.ReadFile(path)
		w, err := Create(path, "/src")
		if err != nil {
			t.Fatal(err)
		}
		e := &Entry{Stat: Stat{Size: 1}}
		if err := w.Put("b", e, settled); err != nil {
			t.Fatal(err)
		}
		if err := w.Put(second, e, settled); !errors.Is(err, errOrder) {
			t.Errorf("Put(%q) after \"b\": %v, want errOrder", second, err)
		}
		if err := w.Put("c", e, settled); !errors.Is(err, errOrder) {
			t.Errorf("Put after the error: %v, want it again", err)
		}
		if err := w.Commit(); !errors.Is(err, errOrder) {
			t.Errorf("Commit: %v, want errOrder", err)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
			t.Error("the cache changed")
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%d files in the directory, want the cache only", len(entries))
		}
	}
}

// TestPutUnsettled: an entry whose times are too close to the read is
// left out; the order is still checked against it.
func TestPutUnsettled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache")
	read := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	w, err := Create(path, "/src")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	old := &Entry{Stat: Stat{Mtime: read.Add(-time.Hour).UnixNano() + 1, Ctime: read.Add(-time.Hour).UnixNano() + 1}}
	fresh := &Entry{Stat: Stat{Mtime: read.Add(-time.Millisecond).UnixNano(), Ctime: read.Add(-time.Hour).UnixNano() + 1}}
	for _, p := range []struct {
		rel string
		e   *Entry
	}{{"a", old}, {"b", fresh}, {"c", old}} {
		if err := w.Put(p.rel, p.e, read); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Put("b", old, read); !errors.Is(err, errOrder) {
		t.Errorf("Put(\"b\") after \"c\": %v, want errOrder", err)
	}
	w2, err := Create(path, "/src")
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"a", "b", "c"} {
		e := old
		if rel == "b" {
			e = fresh
		}
		if err := w2.Put(rel, e, read); err != nil {
			t.Fatal(err)
		}
	}
	if w2.Len() != 2 {
		t.Errorf("%d entries written, want 2", w2.Len())
	}
	if err := w2.Commit(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path, "/src")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, a := r.Find("a")
	_, b := r.Find("b")
	_, c := r.Find("c")
	if !a || b || !c || r.Len() != 2 {
		t.Errorf("found a %v, b %v, c %v of %d; want a and c", a, b, c, r.Len())
	}
}

// TestAbort removes the temporary file and keeps the cache; Abort after
// Commit does nothing, and nothing can be Put after either.
func TestAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cache")
	if err := sample(3).Save(path); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	w, err := Create(path, "/src")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Put("a", &Entry{}, settled); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	w.Abort()
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Error("the cache changed")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the directory, want the cache only", len(entries))
	}
	if err := w.Put("b", &Entry{}, settled); err == nil {
		t.Error("Put after Abort succeeded")
	}
	if err := w.Commit(); err == nil {
		t.Error("Commit after Abort succeeded")
	}

	w, err = Create(path, "/src")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	r, err := Open(path, "/src")
	if err != nil {
		t.Fatalf("an empty cache: %v", err)
	}
	r.Close()
	if r.Len() != 0 {
		t.Errorf("%d entries, want 0", r.Len())
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestMemoryFlat: reading or writing ten times the entries allocates
// hardly more: the memory of a Reader and a Writer does not grow with the
// cache (a measure of bytes, not of time).
func TestMemoryFlat(t *testing.T) {
	dir := t.TempDir()
	big := sample(20000)
	small := &Cache{root: big.root, list: big.list[:2000]}
	read := func(c *Cache, path string) func() {
		return func() {
			r, err := Open(path, "/src")
			if err != nil {
				t.Error(err)
				return
			}
			for _, it := range c.list {
				if _, ok := r.Lookup(it.path, it.entry.Stat); !ok {
					t.Errorf("%s missing", it.path)
					break
				}
			}
			r.Close()
		}
	}
	write := func(c *Cache, path string) func() {
		return func() {
			w, err := Create(path, "/src")
			if err != nil {
				t.Error(err)
				return
			}
			for _, it := range c.list {
				w.Put(it.path, it.entry, settled)
			}
			if err := w.Commit(); err != nil {
				t.Error(err)
			}
		}
	}
	smallPath, bigPath := filepath.Join(dir, "small"), filepath.Join(dir, "big")
	ws, wb := allocated(write(small, smallPath)), allocated(write(big, bigPath))
	rs, rb := allocated(read(small, smallPath)), allocated(read(big, bigPath))
	t.Logf("write: %d bytes for %d entries, %d for %d", ws, len(small.list), wb, len(big.list))
	t.Logf("read: %d bytes for %d entries, %d for %d", rs, len(small.list), rb, len(big.list))
	const slack = 32 << 10
	if wb > ws+slack || rb > rs+slack {
		t.Errorf("allocations grow with the entries: write %d → %d, read %d → %d bytes", ws, wb, rs, rb)
	}
}

// A temporary file left by a writer that was killed is removed by the
// next writer; one that a running writer holds is not.
func TestCreateRemovesStaleTemporaryFiles(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no flock")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "cache")
	stale := filepath.Join(dir, "cache.tmp-123")
	if err := os.WriteFile(stale, []byte("left by a killed build"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.tmp-1") // another cache's: not ours to remove
	if err := os.WriteFile(other, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	running, err := Create(path, "/src")
	if err != nil {
		t.Fatal(err)
	}
	defer running.Abort()
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the stale temporary file is still there: %v", err)
	}
	second, err := Create(path, "/src")
	if err != nil {
		t.Fatal(err)
	}
	defer second.Abort()
	if _, err := os.Stat(running.rep.File.Name()); err != nil {
		t.Errorf("the temporary file of a running writer was removed: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another file was removed: %v", err)
	}
}
