package bucketscan

import (
	"testing"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/inputs/bucket"
	"github.com/rsgen/rsgen/internal/inputs/tree"
)

// TestKeyProblem: the keys a URL cannot keep as they are, which a posix
// store (the tests' server) cannot hold either, are problems.
func TestKeyProblem(t *testing.T) {
	t.Parallel()
	for key, bad := range map[string]bool{
		"a/b.txt": false, "a b+c%20&=?#ü.txt": false, ".hidden": false, "a..b": false,
		"a//b": true, "/a": true, "a/./b": true, "a/../b": true, "..": true,
		"a\tb": true, "a\nb": true, "a\x7fb": true, "\xff": true,
	} {
		if err := keyProblem(key); (err != nil) != bad {
			t.Errorf("keyProblem(%q) = %v, want a problem: %v", key, err, bad)
		}
	}
}

// TestPublished: a key is filtered as a path of a tree
// (tree.Filter.PublishesPath): a hidden or excluded folder on its way
// withholds it.
func TestPublished(t *testing.T) {
	t.Parallel()
	f := &tree.Filter{Exclude: []string{"private/**", "**/*.tmp"}}
	for key, want := range map[string]bool{
		"a/b.txt": true, ".git/config": false, "a/.hidden/b": false, ".x": false,
		"private/a": false, "a/private/b": true, "a/b.tmp": false,
	} {
		if got := f.PublishesPath(key); got != want {
			t.Errorf("PublishesPath(%q) = %v, want %v", key, got, want)
		}
	}
}

// TestKey: an object's cache key changes with its ETag, size or time, so
// that the hash cache finds an object again only as it was (a cache of
// another bucket or prefix is refused whole: hashcache.ErrOtherDir).
func TestKey(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	o := bucket.Object{Key: "p/a", ETag: "e1", Size: 1, Modified: at}
	same := o
	same.Key = "p/b" // the path is the cache's, not the key's
	etag, size, mod := o, o, o
	etag.ETag, size.Size, mod.Modified = "e1-2", 2, at.Add(time.Second)
	if key(&o) != key(&same) {
		t.Error("the key of one object differs from one listing to the next")
	}
	for _, c := range []bucket.Object{etag, size, mod} {
		if key(&c) == key(&o) {
			t.Errorf("%+v and %+v have one key", c, o)
		}
	}
}

// TestMayStore: the listing tells when a HEAD cannot give the digests: a
// multipart upload's SHA-256 is a composite checksum, its ETag no MD5.
func TestMayStore(t *testing.T) {
	t.Parallel()
	single := &bucket.Object{ETag: "0123456789abcdef0123456789abcdef", SHA256: true, SHA1: true}
	multi := &bucket.Object{ETag: "0123456789abcdef0123456789abcdef-3", SHA256: true, SHA1: true}
	for _, c := range []struct {
		o    *bucket.Object
		set  hashing.Set
		want bool
	}{
		{single, hashing.Set{hashing.SHA256}, true},
		{single, hashing.Set{hashing.SHA1, hashing.MD5}, true},
		{multi, hashing.Set{hashing.SHA256}, false},
		{multi, hashing.Set{hashing.SHA1}, false},
		{multi, hashing.Set{hashing.MD5}, false},
	} {
		if got := mayStore(c.o, c.set); got != c.want {
			t.Errorf("mayStore(%q, %v) = %v, want %v", c.o.ETag, c.set, got, c.want)
		}
	}
}
