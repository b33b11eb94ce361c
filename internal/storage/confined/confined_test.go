package confined

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestNoLinkFollowed: every call that writes, renames or removes refuses
// a name that leads through a symbolic link, and acts on a link as the
// last name itself, never on what it leads to.
func TestNoLinkFollowed(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "evil")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, "file-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mine"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	at := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	for name, call := range map[string]func() error{
		"Create":     func() error { _, err := r.Create("evil/new"); return err },
		"OpenFile":   func() error { _, err := r.OpenFile("evil/victim", os.O_WRONLY|os.O_TRUNC, 0); return err },
		"OpenFile 2": func() error { _, err := r.OpenFile("file-link", os.O_WRONLY|os.O_TRUNC, 0); return err },
		"MkdirAll":   func() error { return r.MkdirAll("evil/sub", 0o755) },
		"Remove":     func() error { return r.Remove("evil/victim") },
		"RemoveAll":  func() error { return r.RemoveAll("evil/victim") },
		"Rename":     func() error { return r.Rename("mine", r, "evil/victim") },
		"Rename 2":   func() error { return r.Rename("evil/victim", r, "stolen") },
		"LinkAt":     func() error { return r.LinkAt("evil/victim", r, "stolen") },
		"Chtimes":    func() error { return r.Chtimes("evil/victim", at, at) },
		"..":         func() error { _, err := r.Create("../escaped"); return err },
	} {
		if err := call(); err == nil {
			t.Errorf("%s: no error", name)
		} else if name != ".." && !errors.Is(err, ErrSymlink) {
			t.Errorf("%s: %v, want ErrSymlink", name, err)
		}
	}
	// The link itself is what is removed, renamed, timed.
	if err := r.Chtimes("file-link", at, at); err != nil {
		t.Error(err)
	}
	if err := r.RemoveAll("evil"); err != nil {
		t.Error(err)
	}
	if b, err := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the file outside: %q, %v", b, err)
	}
	if st, _ := os.Stat(victim); st.ModTime().Equal(at) {
		t.Error("Chtimes followed the link")
	}
	if _, err := os.Lstat(filepath.Join(dir, "evil")); err == nil {
		t.Error("the link was not removed")
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped")); err == nil {
		t.Error("created outside by ..")
	}
}

// TestLinkTheOpenFile: Link links the file opened, whatever its name
// leads to by then.
func TestLinkTheOpenFile(t *testing.T) {
	dir := t.TempDir()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.WriteFile("a", []byte("checked")); err != nil {
		t.Fatal(err)
	}
	f, err := r.OpenFile("a", os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	os.Remove(filepath.Join(dir, "a"))
	os.Symlink("/etc/passwd", filepath.Join(dir, "a"))
	err = r.Link(f, "sub/b")
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip("no linking by descriptor here")
	}
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sub/b")); string(b) != "checked" {
		t.Errorf("linked %q, %v", b, err)
	}
}
