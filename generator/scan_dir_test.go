package generator

import (
	"context"
	"path/filepath"
	"testing"
)

// A directory that cannot be read is reported as a directory, so that the
// CLI can say its files are unknown rather than count it as one file.
// (Root reads a directory of mode 000: a directory gone between its
// listing and its reading fails the same way, for every user.)
func TestWalkerUnreadableDirectory(t *testing.T) {
	var got []Problem
	w := &walker{
		root:    t.TempDir(),
		filter:  &Filter{},
		skip:    func(string) bool { return false },
		problem: func(p Problem) { got = append(got, p) },
		notice:  func(string) {},
		emit:    func(scanFile) error { return nil },
	}
	gone := filepath.Join(w.root, "gone")
	if err := w.dir(context.Background(), gone, "gone", "gone", []string{w.root}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].Dir || got[0].Path != "gone" {
		t.Fatalf("problems = %+v, want one directory problem for gone", got)
	}
}
