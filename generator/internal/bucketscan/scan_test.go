package bucketscan

import (
	"testing"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/bucket"
	"github.com/rsgen/rsgen/internal/tree"
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

// TestPublished: a key is filtered as a path of a tree: a hidden or
// excluded folder on its way withholds it.
func TestPublished(t *testing.T) {
	t.Parallel()
	f := &tree.Filter{Exclude: []string{"private/**", "**/*.tmp"}}
	for key, want := range map[string]bool{
		"a/b.txt": true, ".git/config": false, "a/.hidden/b": false, ".x": false,
		"private/a": false, "a/private/b": true, "a/b.tmp": false,
	} {
		if got := published(f, key); got != want {
			t.Errorf("published(%q) = %v, want %v", key, got, want)
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
