package corpus

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestWrite checks the number of files, their size bounds, the total, and
// that the same Spec gives the same bytes.
func TestWrite(t *testing.T) {
	s := Spec{Files: 57, MinSize: 0, MaxSize: 3000, PerDir: 10, Seed: 7}
	read := func(dir string) map[string]string {
		got := map[string]string{}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			got[rel] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	total, err := Write(a, s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(b, s); err != nil {
		t.Fatal(err)
	}
	fa, fb := read(a), read(b)
	if len(fa) != s.Files {
		t.Fatalf("%d files, want %d", len(fa), s.Files)
	}
	var sum int64
	for name, content := range fa {
		if int64(len(content)) < s.MinSize || int64(len(content)) > s.MaxSize {
			t.Errorf("%s: %d bytes, outside [%d, %d]", name, len(content), s.MinSize, s.MaxSize)
		}
		if fb[name] != content {
			t.Errorf("%s differs between two writes of the same Spec", name)
		}
		sum += int64(len(content))
	}
	if sum != total {
		t.Errorf("Write returned %d bytes, files hold %d", total, sum)
	}
	if _, err := Write(a, s); err == nil {
		t.Error("Write into an existing directory succeeded")
	}
	if _, err := Write(filepath.Join(t.TempDir(), "c"), Spec{Files: 1, MinSize: 2, MaxSize: 1, PerDir: 1}); err == nil {
		t.Error("Write with MaxSize < MinSize succeeded")
	}
}
