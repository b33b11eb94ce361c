package tree

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

type problem struct {
	rel string
	dir bool
	err error
}

// A directory that cannot be read is reported as a directory, so that the
// CLI can say its files are unknown rather than count it as one file: a
// directory whose listing fails (simulated: root reads a directory of mode
// 000), and a source root that is gone.
func TestWalkerUnreadableDirectory(t *testing.T) {
	walk := func(t *testing.T, root string, hook func(string) error) (got []problem, unread []string) {
		w := &Walker{
			Root:        root,
			Filter:      &Filter{},
			Skip:        func(string) bool { return false },
			Problem:     func(rel string, dir bool, err error) { got = append(got, problem{rel, dir, err}) },
			Unread:      func(rel string) { unread = append(unread, rel) },
			Notice:      func(string) {},
			Emit:        func(f File) error { f.Dir.Release(); return nil },
			ReadDirHook: hook,
		}
		if err := w.Walk(context.Background()); err != nil {
			t.Fatal(err)
		}
		return got, unread
	}
	t.Run("listing fails", func(t *testing.T) {
		root := t.TempDir()
		if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		got, unread := walk(t, root, func(rel string) error {
			if rel == "sub" {
				return &fs.PathError{Op: "readdirent", Path: rel, Err: fs.ErrPermission}
			}
			return nil
		})
		if len(got) != 1 || !got[0].dir || got[0].rel != "sub" || !slices.Equal(unread, []string{"sub"}) {
			t.Fatalf("problems %+v, unread %q, want one directory problem for sub", got, unread)
		}
	})
	t.Run("root gone", func(t *testing.T) {
		got, unread := walk(t, filepath.Join(t.TempDir(), "gone"), nil)
		if len(got) != 1 || !got[0].dir || got[0].rel != "." || !slices.Equal(unread, []string{""}) {
			t.Fatalf("problems %+v, unread %q, want one directory problem for the root", got, unread)
		}
	})
}

// treeOrder sorts a directory's name as followed by "/": walked depth
// first, the files come in byte order of their paths.
func TestTreeOrder(t *testing.T) {
	type entry struct {
		name string
		dir  bool
	}
	entries := []entry{{"a0", false}, {"a", true}, {"a-b", false}, {"a.b", true}, {"b", false}, {"a", false}}
	slices.SortFunc(entries, func(x, y entry) int { return treeOrder(x.name, x.dir, y.name, y.dir) })
	var got []string
	for _, e := range entries {
		n := e.name
		if e.dir {
			n += "/"
		}
		got = append(got, n)
	}
	if want := []string{"a", "a-b", "a.b/", "a/", "a0", "b"}; !slices.Equal(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
}
