package testenv

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// StagePrefix begins the names of rsgen's staging directories
// (stage.Prefix, which its tests check is the same).
const StagePrefix = ".rsgen-stage-"

// NoStage fails t if a staging directory is left in dir.
func NoStage(t testing.TB, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), StagePrefix) {
			t.Errorf("staging directory %s left in %s", e.Name(), dir)
		}
	}
}

// CopyTree copies the files under src to dst, every file modified at
// mtime (git does not keep modification times); a zero mtime leaves the
// time of the copy.
func CopyTree(t testing.TB, src, dst string, mtime time.Time) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, data, 0o644); err != nil || mtime.IsZero() {
			return err
		}
		return os.Chtimes(target, mtime, mtime)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// CopySite copies the example collection, testdata/site of the module,
// into a new temporary directory, every file modified at mtime, and
// returns the copy.
func CopySite(t testing.TB, mtime time.Time) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "site")
	CopyTree(t, filepath.Join(root, "testdata", "site"), dst, mtime)
	return dst
}

// ReadList reads the document name in the directory docs and returns its
// root and its entries; of an index, the entries of every part it lists
// (which are in docs too).
func ReadList(t testing.TB, docs, name string) (*rsxml.Doc, []*rsxml.Entry) {
	t.Helper()
	doc, entries := ReadDoc(t, filepath.Join(docs, name))
	if !doc.Index {
		return doc, entries
	}
	var all []*rsxml.Entry
	for _, e := range entries {
		_, part := ReadDoc(t, filepath.Join(docs, filepath.Base(e.Loc)))
		all = append(all, part...)
	}
	return doc, all
}

// ReadDoc reads the document at path, failing t if it cannot.
func ReadDoc(t testing.TB, path string) (*rsxml.Doc, []*rsxml.Entry) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, entries, err := rsxml.ReadAll(bytes.NewReader(b), rsxml.ReadOptions{MaxBytes: rsxml.MaxBytes})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc, entries
}

// Unzip runs `unzip -t` on a package if unzip is installed (.ci/run
// installs it).
func Unzip(t testing.TB, path string) {
	t.Helper()
	unzip, err := exec.LookPath("unzip")
	if err != nil {
		t.Logf("unzip not installed: %s not checked with it", filepath.Base(path))
		return
	}
	if out, err := exec.Command(unzip, "-t", "-qq", path).CombinedOutput(); err != nil {
		t.Errorf("unzip -t %s: %v\n%s", filepath.Base(path), err, out)
	}
}
