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
