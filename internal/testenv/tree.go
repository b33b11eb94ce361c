package testenv

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// WriteFile writes content to rel (slash-separated) under dir, making the
// directories it needs, and returns its path.
func WriteFile(t testing.TB, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A FileState is what Snapshot keeps of an entry of a tree.
type FileState struct {
	Mode fs.FileMode
	Data string // content of a file, target of a link
}

// Snapshot returns the state of every entry under dir (directories, files,
// links) by slash-separated path.
func Snapshot(t testing.TB, dir string) map[string]FileState {
	t.Helper()
	snap := map[string]FileState{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		st := FileState{Mode: info.Mode()}
		switch {
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			st.Data = string(b)
		case info.Mode()&fs.ModeSymlink != 0:
			st.Data, _ = os.Readlink(p)
		}
		snap[filepath.ToSlash(rel)] = st
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// SameSnapshot fails t, saying what differs, unless got and want are the
// same tree.
func SameSnapshot(t testing.TB, what string, got, want map[string]FileState) {
	t.Helper()
	var diffs []string
	for name, w := range want {
		g, ok := got[name]
		switch {
		case !ok:
			diffs = append(diffs, "missing "+name)
		case g.Mode != w.Mode:
			diffs = append(diffs, fmt.Sprintf("%s: mode %v, was %v", name, g.Mode, w.Mode))
		case g.Data != w.Data:
			diffs = append(diffs, name+": content changed")
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			diffs = append(diffs, "new "+name)
		}
	}
	slices.Sort(diffs)
	if len(diffs) > 0 {
		if len(diffs) > 10 {
			diffs = append(diffs[:10], "…")
		}
		t.Errorf("%s: the tree changed:\n  %s", what, strings.Join(diffs, "\n  "))
	}
}
