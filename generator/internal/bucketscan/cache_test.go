package bucketscan

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/bucket"
)

// TestCache: what a build puts is found by the next, for the same key,
// ETag, size and time only; a cache of another bucket is not used.
func TestCache(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cache")
	set := hashing.Set{hashing.SHA256, hashing.MD5}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	objs := []bucket.Object{
		{Key: "p/a \"quoted\".txt", ETag: "e1", Size: 1, Modified: at},
		{Key: "p/b", ETag: "e2-2", Size: 2, Modified: at},
		{Key: "p/c", ETag: "e3", Size: 3, Modified: at},
	}
	sum := bytes.Repeat([]byte{7}, set.SumSize())
	c := OpenCache(path, "s3://bkt/p/", func(msg string) { t.Errorf("notice: %s", msg) })
	for i := range objs {
		c.put(&objs[i], set, sum, "text/plain")
	}
	c.Commit()

	c = OpenCache(path, "s3://bkt/p/", func(msg string) { t.Errorf("notice: %s", msg) })
	defer c.Abort()
	changed := objs[1]
	changed.ETag = "e2-3"
	for _, tt := range []struct {
		o    bucket.Object
		want bool
	}{{objs[0], true}, {changed, false}, {objs[2], true}} {
		got, typ, ok := c.find(&tt.o, set)
		if ok != tt.want || ok && (!bytes.Equal(got, sum) || typ != "text/plain") {
			t.Errorf("find(%q) = %x, %q, %v; want found: %v", tt.o.Key, got, typ, ok, tt.want)
		}
	}
	if _, _, ok := c.find(&objs[2], hashing.Set{hashing.BLAKE3}); ok {
		t.Error("found digests of an algorithm the cache has none of")
	}

	var notices []string
	other := OpenCache(path, "s3://other/", func(msg string) { notices = append(notices, msg) })
	defer other.Abort()
	if _, _, ok := other.find(&objs[0], set); ok || len(notices) != 1 {
		t.Errorf("the cache of another bucket was used (notices %q)", notices)
	}
}

// TestCacheNotOurs: a file at the cache's path that is not a bucket's
// cache is neither used nor replaced.
func TestCacheNotOurs(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(path, []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var notices []string
	c := OpenCache(path, "s3://bkt/", func(msg string) { notices = append(notices, msg) })
	c.put(&bucket.Object{Key: "a"}, hashing.Set{}, nil, "")
	c.Commit()
	if data, _ := os.ReadFile(path); string(data) != "my notes\n" || len(notices) != 1 || !strings.Contains(notices[0], "not replaced") {
		t.Errorf("the file holds %q after the build; notices %q", data, notices)
	}
}

// TestCacheStaleTemp: the temporary file of a build killed while it wrote
// the cache is removed by the next; the one being written is not.
func TestCacheStaleTemp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "cache")
	stale := path + ".tmp-123"
	if err := os.WriteFile(stale, []byte(cacheHeader+"s3://bkt/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := OpenCache(path, "s3://bkt/", func(msg string) { t.Errorf("notice: %s", msg) })
	defer c.Abort()
	if _, err := os.Stat(stale); err == nil {
		t.Error("the stale temporary file is left")
	}
	other := OpenCache(path, "s3://bkt/", func(msg string) { t.Errorf("notice: %s", msg) })
	defer other.Abort()
	if _, err := os.Stat(c.next.File.Name()); err != nil {
		t.Errorf("the temporary file of a build at work removed: %v", err)
	}
}
