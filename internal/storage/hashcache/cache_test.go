package hashcache

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rsgen/rsgen/hashing"
)

func sample(n int) *Cache {
	c := New("/src")
	for i := range n {
		e := &Entry{Stat: Stat{Size: int64(i * 37), Mtime: 1717200000_123456789 + int64(i), Ctime: 1717200001_000000000 - int64(i), Ino: uint64(1000 + i), Dev: 2049}}
		d := sha256.Sum256([]byte(fmt.Sprint(i)))
		e.SetSum(hashing.Set{hashing.SHA256}, d[:])
		if i%3 == 0 {
			e.SetSum(hashing.Set{hashing.MD5}, d[:16])
		}
		if i%10 == 0 {
			e.Type = "text/plain"
		}
		c.Put(fmt.Sprintf("dir%03d/sub/file-%06d.html", i/1000, i), e)
	}
	return c
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache")
	c := sample(2500)
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path, "/src")
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != c.Len() {
		t.Fatalf("%d entries, want %d", got.Len(), c.Len())
	}
	for _, it := range c.list {
		rel, want := it.path, it.entry
		e, ok := got.Lookup(rel, want.Stat)
		if !ok {
			t.Fatalf("%s missing", rel)
		}
		if e.Type != want.Type || e.algs != want.algs || !bytes.Equal(e.sums, want.sums) {
			t.Fatalf("%s: %+v, want %+v", rel, e, want)
		}
	}
	// A stat that differs in any field misses.
	rel := "dir000/sub/file-000003.html"
	want, _ := c.Get(rel)
	st := want.Stat
	for i, change := range []func(*Stat){
		func(s *Stat) { s.Size++ }, func(s *Stat) { s.Mtime++ }, func(s *Stat) { s.Ctime++ },
		func(s *Stat) { s.Ino++ }, func(s *Stat) { s.Dev++ },
	} {
		s := st
		change(&s)
		if _, ok := got.Lookup(rel, s); ok {
			t.Errorf("change %d: a different stat hit the cache", i)
		}
	}
	// No temporary file is left behind.
	if files, _ := filepath.Glob(path + ".tmp-*"); len(files) != 0 {
		t.Errorf("left behind: %v", files)
	}
}

func TestDigests(t *testing.T) {
	var e Entry
	set := hashing.Set{hashing.SHA256, hashing.MD5}
	if _, ok := e.Sum(nil, set); ok {
		t.Fatal("an empty entry has a sum")
	}
	s256 := bytes.Repeat([]byte{1}, 32)
	m5 := bytes.Repeat([]byte{2}, 16)
	b3 := bytes.Repeat([]byte{3}, 32)
	e.SetSum(set, append(append([]byte(nil), s256...), m5...))
	e.SetSum(hashing.Set{hashing.BLAKE3}, b3)
	e.SetSum(hashing.Set{hashing.MD5}, bytes.Repeat([]byte{4}, 16)) // replaces
	sum, ok := e.Sum(nil, hashing.Set{hashing.BLAKE3, hashing.MD5, hashing.SHA256})
	want := append(append(append([]byte(nil), b3...), bytes.Repeat([]byte{4}, 16)...), s256...)
	if !ok || !bytes.Equal(sum, want) {
		t.Fatalf("sum %x, want %x", sum, want)
	}
	if _, ok := e.Digest(hashing.SHA1); ok {
		t.Error("a digest never set")
	}
}

func TestLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	if err := sample(50).Save(good); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(good)
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)/2] ^= 0x40
	otherVersion := append([]byte(magic), 99)
	otherVersion = append(otherVersion, data[len(magic)+1:]...)
	tests := []struct {
		name string
		data []byte
		root string
		want error
	}{
		{"foreign", []byte("{\"some\": \"json, not a cache\"}\n"), "/src", ErrForeign},
		{"empty", nil, "/src", ErrForeign},
		{"damaged", flipped, "/src", ErrCorrupt},
		{"truncated", data[:len(data)-10], "/src", ErrCorrupt},
		{"another version", otherVersion, "/src", ErrVersion},
		{"another source", data, "/elsewhere", ErrOtherDir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name)
			if err := os.WriteFile(p, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(p, tt.root); !errors.Is(err, tt.want) {
				t.Errorf("Load: %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := Load(filepath.Join(dir, "missing"), "/src"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestSettledBefore(t *testing.T) {
	read := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	ns := func(t time.Time) int64 { return t.UnixNano() }
	tests := []struct {
		name  string
		mtime time.Time
		ctime time.Time
		want  bool
	}{
		{"long before", read.Add(-time.Hour + 123), read.Add(-time.Hour + 456), true},
		{"modified just before the read", read.Add(-5 * time.Millisecond), read.Add(-time.Hour + 1), false},
		{"changed just before the read", read.Add(-time.Hour + 1), read.Add(-5 * time.Millisecond), false},
		{"after the read", read.Add(time.Second + 7), read.Add(time.Second + 7), false},
		{"whole seconds, one second before", read.Add(-time.Second), read.Add(-time.Second), false},
		{"whole seconds, three seconds before", read.Add(-3 * time.Second), read.Add(-3 * time.Second), true},
	}
	for _, tt := range tests {
		s := Stat{Mtime: ns(tt.mtime), Ctime: ns(tt.ctime)}
		if got := s.settledBefore(read); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	var buf bytes.Buffer
	p := filepath.Join(f.TempDir(), "c")
	if err := sample(20).Save(p); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil || len(data) == 0 {
		f.Fatalf("no seed: %v", err)
	}
	f.Add(data)
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := decode(data, "/src")
		if err == nil && c.Len() > len(data) {
			t.Fatalf("%d entries from %d bytes", c.Len(), len(data))
		}
	})
}

// BenchmarkLoad measures loading a cache of 200,000 entries (one sha-256
// each, paths as in a real site), and reports its size.
func BenchmarkLoad(b *testing.B) {
	p := filepath.Join(b.TempDir(), "cache")
	if err := sample(200_000).Save(p); err != nil {
		b.Fatal(err)
	}
	st, _ := os.Stat(p)
	for b.Loop() {
		if _, err := Load(p, "/src"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Size()), "file-bytes")
}

// BenchmarkSave measures writing a cache of 200,000 entries.
func BenchmarkSave(b *testing.B) {
	c := sample(200_000)
	p := filepath.Join(b.TempDir(), "cache")
	for b.Loop() {
		if err := c.Save(p); err != nil {
			b.Fatal(err)
		}
	}
}
