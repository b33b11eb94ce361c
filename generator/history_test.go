package generator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/internal/text/units"
	"github.com/rsgen/rsgen/validate"
)

// Helpers shared by the tests of builds across builds.

const acBase = "https://example.org/"

func acDay(d int) time.Time { return time.Date(2024, 6, d, 0, 0, 0, 0, time.UTC) }

func acTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// acTree is a source directory whose files have chosen mtimes.
type acTree struct {
	t   *testing.T
	dir string
}

func acNewTree(t *testing.T, files map[string]string, mtime time.Time) *acTree {
	t.Helper()
	tr := &acTree{t: t, dir: t.TempDir()}
	for rel, content := range files {
		tr.write(rel, content, mtime)
	}
	return tr
}

func (tr *acTree) path(rel string) string { return filepath.Join(tr.dir, filepath.FromSlash(rel)) }

func (tr *acTree) write(rel, content string, mtime time.Time) {
	tr.t.Helper()
	p := tr.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tr.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tr.t.Fatal(err)
	}
	tr.touch(rel, mtime)
}

func (tr *acTree) touch(rel string, mtime time.Time) {
	tr.t.Helper()
	if err := os.Chtimes(tr.path(rel), mtime, mtime); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *acTree) remove(rel string) {
	tr.t.Helper()
	if err := os.Remove(tr.path(rel)); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *acTree) rename(from, to string) {
	tr.t.Helper()
	if err := os.Rename(tr.path(from), tr.path(to)); err != nil {
		tr.t.Fatal(err)
	}
}

func acConfig(src, out string, at time.Time) Config {
	base, err := ParseBaseURL(acBase)
	if err != nil {
		panic(err)
	}
	return Config{Source: src, Out: out, BaseURL: base, At: at, FixedTime: true, Jobs: 2,
		Changes: Changes{Keep: units.Duration(30 * 24 * time.Hour)}}
}

// sameFiles fails t, naming the files that differ, unless got and want
// hold the same files.
func sameFiles(t testing.TB, what string, got, want map[string]string) {
	t.Helper()
	var diffs []string
	for name, w := range want {
		if g, ok := got[name]; !ok {
			diffs = append(diffs, "missing "+name)
		} else if g != w {
			diffs = append(diffs, "differs "+name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			diffs = append(diffs, "extra "+name)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("%s: %s", what, strings.Join(diffs, ", "))
	}
}

func acSHA(s string) string {
	d := sha256.Sum256([]byte(s))
	return "sha-256:" + hex.EncodeToString(d[:])
}

// acChangeLines renders the entries of a change document for comparison:
// "change path datetime=… lastmod=… length=…".
func acChangeLines(entries []*rsxml.Entry) []string {
	var lines []string
	for _, e := range entries {
		line := fmt.Sprintf("%s %s datetime=%s lastmod=%s", e.MD.Change, strings.TrimPrefix(e.Loc, acBase), e.MD.Datetime, e.Lastmod)
		if e.MD.Length != "" {
			line += " length=" + e.MD.Length
		}
		lines = append(lines, line)
	}
	return lines
}

// acChangeListFiles returns the names of the Change Lists in out, sorted.
func acChangeListFiles(t *testing.T, out string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(out, docsDir, "changelist-*.xml"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range files {
		files[i] = filepath.Base(files[i])
	}
	sort.Strings(files)
	return files
}

// acCapabilities returns the capabilities the Capability List in out lists.
func acCapabilities(t *testing.T, out string) []string {
	t.Helper()
	_, entries := testenv.ReadDoc(t, filepath.Join(out, docsDir, "capabilitylist.xml"))
	var caps []string
	for _, e := range entries {
		caps = append(caps, e.MD.Capability)
	}
	return caps
}

// acValidate fails the test unless out is valid without a warning for
// rsgen validate, and for the official validator where it can run.
func acValidate(t *testing.T, out string) {
	t.Helper()
	rep, err := validate.Path(context.Background(), out, validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) > 0 {
		t.Errorf("rsgen validate %s: %v", out, rep.Findings)
	}
	runOfficial(t, out)
}
