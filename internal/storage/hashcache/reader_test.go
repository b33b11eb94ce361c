package hashcache

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/hashing"
)

// settled is a read time at which every entry of the samples is settled.
var settled = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// writeStream writes c's entries through a Writer.
func writeStream(t testing.TB, path string, c *Cache) {
	t.Helper()
	w, err := Create(path, c.root)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, it := range c.list {
		if err := w.Put(it.path, it.entry, settled); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

type streamed struct {
	path  string
	entry *Entry
}

// drain returns every entry a Reader streams, and the stream's error.
func drain(r *Reader) ([]streamed, error) {
	var out []streamed
	for r.next() {
		out = append(out, streamed{string(r.path), r.cur.Clone()})
		r.loaded = false
	}
	return out, r.Err()
}

func sameEntry(a, b *Entry) bool {
	return a.Stat == b.Stat && a.Type == b.Type && a.algs == b.algs && bytes.Equal(a.sums, b.sums)
}

// checkFinds asks r for every path of want in order, and for a path just
// before each that is not in the cache.
func checkFinds(t *testing.T, r *Reader, want *Cache) {
	t.Helper()
	asked := ""
	for i, it := range want.list {
		if before := strings.TrimSuffix(it.path, it.path[max(len(it.path)-1, 0):]); i%2 == 0 && it.path != "" && before >= asked {
			if _, ok := r.Find(before); ok && !want.has(before) {
				t.Fatalf("%.80q found", before)
			}
		}
		asked = it.path
		if i%5 == 4 {
			continue // skipped: the cursor passes it
		}
		e, ok := r.Find(it.path)
		if !ok || !sameEntry(e, it.entry) {
			t.Fatalf("Find(%.80q) = %+v, %v; want %+v (err %.200v)", it.path, e, ok, it.entry, r.Err())
		}
		if e2, ok := r.Lookup(it.path, it.entry.Stat); !ok || e2 != e {
			t.Fatalf("Lookup(%.80q) again missed", it.path)
		}
		st := it.entry.Stat
		st.Ctime++
		if _, ok := r.Lookup(it.path, st); ok {
			t.Fatalf("Lookup(%.80q) with another stat hit", it.path)
		}
	}
	if _, ok := r.Find("\xff\xff\xff"); ok {
		t.Fatal("a path after the last found")
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
}

func (c *Cache) has(rel string) bool { _, ok := c.Get(rel); return ok }

// TestLegacyFile: a file written before the count was padded (a minimal
// varint) is read by Load and by Open; a Writer writes the same file but
// for the count's padding, and Save writes what a Writer writes.
func TestLegacyFile(t *testing.T) {
	const legacy = "testdata/v1-minimal-count.cache"
	want := legacySample()
	old, err := Load(legacy, "/src")
	if err != nil {
		t.Fatal(err)
	}
	if old.Len() != want.Len() {
		t.Fatalf("Load: %d entries, want %d", old.Len(), want.Len())
	}
	for i, it := range want.list {
		if got := old.list[i]; got.path != it.path || !sameEntry(got.entry, it.entry) {
			t.Fatalf("Load: entry %d is %q %+v, want %q %+v", i, got.path, got.entry, it.path, it.entry)
		}
	}
	r, err := Open(legacy, "/src")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Len() != want.Len() {
		t.Fatalf("Open: %d entries, want %d", r.Len(), want.Len())
	}
	checkFinds(t, r, want)

	dir := t.TempDir()
	streamPath, savePath := filepath.Join(dir, "stream"), filepath.Join(dir, "save")
	writeStream(t, streamPath, want)
	if err := want.Save(savePath); err != nil {
		t.Fatal(err)
	}
	stream, _ := os.ReadFile(streamPath)
	saved, _ := os.ReadFile(savePath)
	if !bytes.Equal(stream, saved) {
		t.Fatal("Save and a Writer wrote different files for the same entries")
	}
	old2, _ := os.ReadFile(legacy)
	head := len(magic) + 1 + 1 + len("/src")
	n, k := binary.Uvarint(old2[head:])
	padded := append(appendPaddedUvarint(append([]byte(nil), old2[:head]...), n), old2[head+k:len(old2)-4]...)
	padded = binary.BigEndian.AppendUint32(padded, crc32.Checksum(padded, castagnoli))
	if !bytes.Equal(stream, padded) {
		t.Fatal("a Writer's file differs from the old one by more than the count's padding")
	}
}

// TestStreamRoundTrip writes entries with a Writer (long paths, names with
// newlines, paths sharing nothing or everything) and reads them back with
// Open and Load.
func TestStreamRoundTrip(t *testing.T) {
	c := sample(2500)
	long := "deep/" + strings.Repeat("very-long-name/", 20000) // 300 KB: longer than any buffer
	for i, rel := range []string{"", "\n", "a\nb", "dir000/sub/file-000001.html\n", long + "a", long + "b", long + "b\nc", "\xff\xfe"} {
		e := &Entry{Stat: Stat{Size: int64(i), Mtime: 1e18, Ctime: 1e18}, Type: "text/plain; charset=utf-8"}
		e.SetSum(hashing.Set{algorithms[0]}, make([]byte, algorithms[0].Size()))
		c.Put(rel, e)
	}
	path := filepath.Join(t.TempDir(), "cache")
	writeStream(t, path, c)
	loaded, err := Load(path, "/src")
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Len() != c.Len() {
		t.Fatalf("Load: %d entries, want %d", loaded.Len(), c.Len())
	}
	r, err := Open(path, "/src")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	checkFinds(t, r, c)

	r2, err := Open(path, "/src")
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	all, err := drain(r2)
	if err != nil || len(all) != c.Len() {
		t.Fatalf("streamed %d entries (%v), want %d", len(all), err, c.Len())
	}
	for i, s := range all {
		if s.path != c.list[i].path || !sameEntry(s.entry, c.list[i].entry) {
			t.Fatalf("entry %d: %.80q, want %.80q", i, s.path, c.list[i].path)
		}
	}
	if files, _ := filepath.Glob(path + ".tmp-*"); len(files) != 0 {
		t.Errorf("left behind: %v", files)
	}
}

// TestOpenRefuses: Open refuses what Load refuses, with the same errors.
func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	if err := sample(50).Save(good); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(good)
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
		{"magic only", []byte(magic + "\x01\x00\x00\x00"), "/src", ErrCorrupt},
		{"truncated", data[:len(data)-10], "/src", ErrCorrupt},
		{"another version", otherVersion, "/src", ErrVersion},
		{"another source", data, "/elsewhere", ErrOtherDir},
		{"a prefix of the source", data, "/sr", ErrOtherDir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name)
			if err := os.WriteFile(p, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, lerr := Load(p, tt.root)
			if _, err := Open(p, tt.root); !errors.Is(err, tt.want) || !errors.Is(lerr, tt.want) {
				t.Errorf("Open: %v, Load: %v; want %v", err, lerr, tt.want)
			}
		})
	}
	if _, err := Open(filepath.Join(dir, "missing"), "/src"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestOpenDamage flips a bit anywhere in a file, and cuts it anywhere:
// Open refuses every one, before any entry is used.
func TestOpenDamage(t *testing.T) {
	c := sample(8)
	c.Put("z/line\nbreak", &Entry{Type: "text/html"})
	path := filepath.Join(t.TempDir(), "cache")
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	damaged := func(d []byte) error {
		r, err := newReader(bytes.NewReader(d), int64(len(d)), "/src", nil)
		if err == nil {
			all, serr := drain(r)
			return fmt.Errorf("accepted (%d entries, stream error %v)", len(all), serr)
		}
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrForeign) && !errors.Is(err, ErrVersion) {
			return fmt.Errorf("unexpected error %v", err)
		}
		return nil
	}
	for i := range data {
		for _, bit := range []byte{0x01, 0x80} {
			d := bytes.Clone(data)
			d[i] ^= bit
			if err := damaged(d); err != nil {
				t.Fatalf("bit %#x of byte %d flipped: %v", bit, i, err)
			}
		}
	}
	for n := range len(data) {
		if err := damaged(data[:n]); err != nil {
			t.Fatalf("cut to %d bytes: %v", n, err)
		}
	}
	// Bytes appended after the checksum move it: refused too.
	if err := damaged(append(bytes.Clone(data), 0)); err != nil {
		t.Fatalf("a byte appended: %v", err)
	}
}

// TestFindOrder: a path before the last one asked for ends the stream
// with errOrder; asking for the same path again is fine.
func TestFindOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache")
	c := sample(30)
	writeStream(t, path, c)
	r, err := Open(path, "/src")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	a, b := c.list[3].path, c.list[10].path
	if _, ok := r.Find(b); !ok {
		t.Fatal(b + " missing")
	}
	if _, ok := r.Find(b); !ok {
		t.Fatal(b + " missing when asked again")
	}
	if _, ok := r.Find(a); ok {
		t.Fatalf("%s found after %s", a, b)
	}
	if !errors.Is(r.Err(), errOrder) {
		t.Fatalf("Err: %v, want errOrder", r.Err())
	}
	if _, ok := r.Find(c.list[20].path); ok {
		t.Fatal("an entry found after the order was broken")
	}
}

// TestRewrittenWhileStreaming: a cache renamed over the file (another
// build) is not seen; one written in place ends the stream, and what was
// streamed before is the old content.
func TestRewrittenWhileStreaming(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cache")
	old := sample(5000) // several buffers long
	writeStream(t, path, old)
	other := sample(5000)
	for _, it := range other.list {
		it.entry.Size++ // same length (mostly), other content
	}

	t.Run("renamed over", func(t *testing.T) {
		writeStream(t, path, old)
		r, err := Open(path, "/src")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if _, ok := r.Find(old.list[0].path); !ok {
			t.Fatal("first entry missing")
		}
		writeStream(t, path, other)
		checkFinds(t, r, &Cache{root: old.root, list: old.list[1:]})
	})

	t.Run("written in place", func(t *testing.T) {
		writeStream(t, path, old)
		r, err := Open(path, "/src")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if e, ok := r.Find(old.list[0].path); !ok || !sameEntry(e, old.list[0].entry) {
			t.Fatal("first entry missing")
		}
		tmp := filepath.Join(dir, "other")
		writeStream(t, tmp, other)
		data, _ := os.ReadFile(tmp)
		if err := os.WriteFile(path, data, 0o644); err != nil { // same inode
			t.Fatal(err)
		}
		// Whatever the clock's granularity, the times differ.
		later := time.Unix(0, 0).Add(48 * time.Hour)
		if err := os.Chtimes(path, later, later); err != nil {
			t.Fatal(err)
		}
		for _, it := range old.list[1:] {
			if e, ok := r.Find(it.path); ok && !sameEntry(e, it.entry) {
				t.Fatalf("%s: an entry of the new content", it.path)
			}
		}
		if !errors.Is(r.Err(), ErrChanged) || !errors.Is(r.Err(), ErrCorrupt) {
			t.Fatalf("Err: %v, want ErrChanged", r.Err())
		}
	})

	t.Run("changed without a trace in stat", func(t *testing.T) {
		// A change the file's times do not show is caught by the checksum
		// of the stream: the last entry is not given out.
		small := sample(3)
		p := filepath.Join(dir, "small")
		writeStream(t, p, small)
		data, _ := os.ReadFile(p)
		changed := bytes.Clone(data)
		changed[len(changed)-4-1-1] ^= 1 // the last byte of the last digest
		src := &mutable{data: data, changed: changed}
		r, err := newReader(src, int64(len(data)), "/src", nil)
		if err != nil {
			t.Fatal(err)
		}
		all, err := drain(r)
		if !errors.Is(err, ErrChanged) || len(all) != 2 {
			t.Fatalf("%d entries, error %v; want 2 and ErrChanged", len(all), err)
		}
	})
}

// mutable is a ReaderAt whose bytes change once the checksum is checked:
// reads of the stream (the third read from the start: the head, the first
// pass, the stream) see changed.
type mutable struct {
	data, changed []byte
	starts        int
}

func (m *mutable) ReadAt(p []byte, off int64) (int, error) {
	if off == 0 {
		m.starts++
	}
	if m.starts >= 3 {
		return bytes.NewReader(m.changed).ReadAt(p, off)
	}
	return bytes.NewReader(m.data).ReadAt(p, off)
}

// FuzzOpen: the streaming decoder accepts exactly the files decode
// accepts, and streams the same entries. With fixSum the checksum is made
// to match whatever the file holds, as a buggy or hostile writer would.
func FuzzOpen(f *testing.F) {
	legacy, err := os.ReadFile("testdata/v1-minimal-count.cache")
	if err != nil || len(legacy) == 0 {
		f.Fatalf("no seed: %v", err)
	}
	f.Add(legacy, true)
	p := filepath.Join(f.TempDir(), "c")
	writeStream(f, p, sample(20))
	data, err := os.ReadFile(p)
	if err != nil || len(data) == 0 {
		f.Fatalf("no seed: %v", err)
	}
	f.Add(data, true)
	f.Add(data, false)
	f.Add([]byte(magic+"\x01\x04/src\x00"+"\x00\x00\x00\x00"), true)
	f.Fuzz(func(t *testing.T, data []byte, fixSum bool) {
		if len(data) < len(magic)+4 {
			return // decode's caller refuses these
		}
		if fixSum {
			// A matching checksum: the mutations reach the entries.
			body := len(data) - 4
			binary.BigEndian.PutUint32(data[body:], crc32.Checksum(data[:body], castagnoli))
		}
		c, derr := decode(data, "/src")
		r, err := newReader(bytes.NewReader(data), int64(len(data)), "/src", nil)
		var all []streamed
		if err == nil {
			all, err = drain(r)
		}
		if (err == nil) != (derr == nil) {
			t.Fatalf("stream: %v, decode: %v", err, derr)
		}
		if err != nil {
			return
		}
		if len(all) != c.Len() {
			t.Fatalf("stream: %d entries, decode: %d", len(all), c.Len())
		}
		for i, s := range all {
			if s.path != c.list[i].path || !sameEntry(s.entry, c.list[i].entry) {
				t.Fatalf("entry %d differs", i)
			}
		}
	})
}
