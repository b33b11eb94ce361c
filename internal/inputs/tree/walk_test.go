package tree

import (
	"context"
	"fmt"
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

// A directory of more than BigDir entries is sorted on disk: the walk
// gives the same files in the same order, the order of their paths, as
// with the sort in memory; links followed to directories sort as them.
func TestBigDirectory(t *testing.T) {
	root := t.TempDir()
	var want []string
	for i := range 60 {
		for _, name := range []string{fmt.Sprintf("f%02d", i), fmt.Sprintf("f%02d-x", i), fmt.Sprintf("f%02d0", i)} {
			if err := os.WriteFile(filepath.Join(root, name), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if i%10 == 0 { // a directory "gNN" that sorts as "gNN/": after "gNN-x", before "gNN0"
			for _, name := range []string{fmt.Sprintf("g%02d-x", i), fmt.Sprintf("g%02d0", i)} {
				if err := os.WriteFile(filepath.Join(root, name), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			sub := filepath.Join(root, fmt.Sprintf("g%02d", i))
			for k := range 9 {
				if err := os.MkdirAll(sub, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(sub, fmt.Sprint(k)), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// A link followed to a directory sorts as "h/": after "h-x", before "h0".
	for _, name := range []string{"h-x", "h0"} {
		if err := os.WriteFile(filepath.Join(root, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("g10", filepath.Join(root, "h")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	walk := func(spill string) []string {
		var got []string
		w := &Walker{
			Root: root, Filter: &Filter{}, Follow: true, SpillDir: spill, BigDir: 7,
			Skip:    func(string) bool { return false },
			Problem: func(rel string, dir bool, err error) { t.Errorf("%s: %v", rel, err) },
			Unread:  func(string) {},
			Notice:  func(string) {},
			Emit:    func(f File) error { f.Dir.Release(); got = append(got, f.Rel); return nil },
		}
		if err := w.Walk(context.Background()); err != nil {
			t.Fatal(err)
		}
		return got
	}
	spill := t.TempDir()
	onDisk, inMemory := walk(spill), walk("")
	if !slices.Equal(onDisk, inMemory) {
		t.Errorf("sorted on disk:\n%q\nin memory:\n%q", onDisk, inMemory)
	}
	want = slices.Clone(inMemory)
	slices.Sort(want)
	if !slices.Equal(inMemory, want) || len(want) != 60*3+6*(9+2)+9+2 {
		t.Errorf("%d files, in order %v", len(want), slices.Equal(inMemory, want))
	}
	if left, _ := os.ReadDir(spill); len(left) != 0 {
		t.Errorf("left in the spill directory: %v", left)
	}
}

// TestFollowWithheld: a symbolic link followed does not publish what the
// walk withholds at the path it leads to: a hidden file or directory
// (.git/config, where a CI checkout keeps its token) or an excluded one,
// itself or under a directory on its way. Anyone who commits to SOURCE
// can add such a link.
func TestFollowWithheld(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{".git/config", "secret/key", "data/private/p.txt", "data/public.txt", "a.txt"} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{"leak.txt": ".git/config", "gitdir": ".git", "key.txt": "secret/key", "d": "data", "priv": "data/private", "b.txt": "a.txt"}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Skip("no symbolic links:", err)
		}
	}
	var got []string
	w := &Walker{
		Root: root, Filter: &Filter{Exclude: []string{"secret/**", "data/private/**"}}, Follow: true,
		Skip:    func(string) bool { return false },
		Problem: func(rel string, dir bool, err error) { t.Errorf("%s: %v", rel, err) },
		Unread:  func(string) {},
		Notice:  func(string) {},
		Emit:    func(f File) error { f.Dir.Release(); got = append(got, f.Rel); return nil },
	}
	if err := w.Walk(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.txt", "b.txt", "d/public.txt", "data/public.txt"}; !slices.Equal(got, want) {
		t.Errorf("published %q, want %q", got, want)
	}
}
