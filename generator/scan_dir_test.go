package generator

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A directory that cannot be read is reported as a directory, so that the
// CLI can say its files are unknown rather than count it as one file: a
// directory whose listing fails (simulated: root reads a directory of mode
// 000), and a source root that is gone.
func TestWalkerUnreadableDirectory(t *testing.T) {
	walk := func(t *testing.T, root string) (got []Problem, unread []string) {
		w := &walker{
			root:    root,
			filter:  &Filter{},
			skip:    func(string) bool { return false },
			problem: func(p Problem) { got = append(got, p) },
			unread:  func(rel string) { unread = append(unread, rel) },
			notice:  func(string) {},
			emit: func(f scanFile) error {
				f.dir.Release()
				return nil
			},
		}
		if err := w.walk(context.Background()); err != nil {
			t.Fatal(err)
		}
		return got, unread
	}
	t.Run("listing fails", func(t *testing.T) {
		root := t.TempDir()
		if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		testHookReadDir = func(rel string) error {
			if rel == "sub" {
				return &fs.PathError{Op: "readdirent", Path: rel, Err: fs.ErrPermission}
			}
			return nil
		}
		defer func() { testHookReadDir = nil }()
		got, unread := walk(t, root)
		if len(got) != 1 || !got[0].Dir || got[0].Path != "sub" || !slices.Equal(unread, []string{"sub"}) {
			t.Fatalf("problems %+v, unread %q, want one directory problem for sub", got, unread)
		}
	})
	t.Run("root gone", func(t *testing.T) {
		got, unread := walk(t, filepath.Join(t.TempDir(), "gone"))
		if len(got) != 1 || !got[0].Dir || got[0].Path != "." || !slices.Equal(unread, []string{""}) {
			t.Fatalf("problems %+v, unread %q, want one directory problem for the root", got, unread)
		}
	})
}
