package bucketscan

import (
	"testing"

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
