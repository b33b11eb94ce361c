//go:build unix

package confined

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestLinkByName: linking an open file by its name keeps the link only if
// it is that file: a link swapped in for the name is undone.
func TestLinkByName(t *testing.T) {
	dir := t.TempDir()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.WriteFile("a", []byte("checked"))
	f, err := os.Open(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := linkByName(f, int(r.f.Fd()), "same"); err != nil {
		t.Errorf("the same file: %v", err)
	}
	os.Remove(filepath.Join(dir, "a"))
	os.Symlink("/etc/passwd", filepath.Join(dir, "a"))
	if err := linkByName(f, int(r.f.Fd()), "swapped"); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("a link swapped in: %v, want ErrUnsupported", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "swapped")); err == nil {
		t.Error("the link to what was swapped in is kept")
	}
}

// TestLocateDotDotAfterLink: a ".." after a link is the parent of where the
// link leads, as the system reads the path, not the link's own parent; a
// link inside an untrusted tree is refused even when a ".." follows it.
func TestLocateDotDotAfterLink(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	for _, d := range []string{"deep/x", "deep/B", "B", "ext", "src/real", "evil/a/b", "evil/ext2"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"A": "deep/x", "ext/L": "../A/../B", "src/sub": "../evil/a/b", "ext/M": "../src/sub/../../ext2"} {
		if err := os.Symlink(to, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	src := filepath.Join(base, "src")

	root, name, err := Locate(filepath.Join(base, "ext/L/c.cache"), src)
	if err != nil {
		t.Fatal(err)
	}
	got := root.Path(name)
	root.Close()
	if want := filepath.Join(base, "deep/B/c.cache"); got != want {
		t.Errorf("Locate(ext/L/c.cache) = %s, want %s (where the system opens it)", got, want)
	}

	root, name, err = Locate(base+"/src/real/../c.cache", src) // not filepath.Join, which would clean the ".."
	if err != nil {
		t.Fatal(err)
	}
	if got, want := root.Path(name), filepath.Join(src, "c.cache"); got != want {
		t.Errorf("Locate(src/real/../c.cache) = %s, want %s", got, want)
	}
	root.Close()

	for _, p := range []string{"ext/M/c.cache", "src/sub/../c.cache"} {
		if _, _, err := Locate(base+"/"+p, src); !errors.Is(err, ErrSymlink) {
			t.Errorf("Locate(%s) = %v, want ErrSymlink (src/sub is a link inside SOURCE)", p, err)
		}
	}
}
