package generator

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/testenv"
)

// TestUnreadIsNotDeleted: what a build cannot read (a directory, the
// source itself, a file) keeps its entry of the previous build, unchanged,
// with the problem reported; it is never announced as deleted, which
// would make Destinations delete their copies. The unreadable directory is
// simulated with a hook, so that the test means the same as root, who
// reads any directory.
func TestUnreadIsNotDeleted(t *testing.T) {
	t.Parallel()
	errIO := errors.New("input/output error")
	tests := []struct {
		name     string
		unread   string // directory the hook fails, "-" for none
		mutate   func(t *testing.T, dir string, cfg *Config)
		kept     []string // entries kept from the previous build
		problems int
	}{
		{name: "directory", unread: "dir", kept: []string{"dir/c.txt"}, problems: 1},
		{name: "the source", unread: "", kept: []string{"a.txt", "b.txt", "d.html", "dir/c.txt"}, problems: 1},
		{name: "file", unread: "-", mutate: func(t *testing.T, dir string, cfg *Config) {
			cfg.listed = func(rel string) {
				if rel == "a.txt" {
					os.Remove(filepath.Join(dir, "a.txt")) // gone between the walk and the read
				}
			}
		}, kept: []string{"a.txt"}, problems: 1},
		{name: "file that is not regular any more", unread: "-", mutate: func(t *testing.T, dir string, cfg *Config) {
			cfg.listed = func(rel string) {
				if rel == "d.html" {
					p := filepath.Join(dir, "d.html")
					os.Remove(p)
					os.Mkdir(p, 0o755)
				}
			}
		}, kept: []string{"d.html"}, problems: 1},
		{name: "directory without permission", unread: "-", mutate: func(t *testing.T, dir string, cfg *Config) {
			if os.Geteuid() == 0 {
				t.Skip("root reads any directory: the hook cases stand for this one")
			}
			p := filepath.Join(dir, "dir")
			if err := os.Chmod(p, 0); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(p, 0o755) })
		}, kept: []string{"dir/c.txt"}, problems: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := acNewTree(t, acFiles, acT0)
			out := t.TempDir()
			mustBuild(t, acConfig(tr.dir, out, acDay(1)))
			_, before := testenv.ReadDoc(t, filepath.Join(out, docsDir, "resourcelist.xml"))

			// One real change, so that a Change List is published.
			tr.write("new.txt", "new", acTime("2024-06-01T12:00:00Z"))
			cfg := acConfig(tr.dir, out, acDay(2))
			cfg.Changes.Previous = out
			if tt.mutate != nil {
				tt.mutate(t, tr.dir, &cfg)
			}
			if tt.unread != "-" {
				cfg.readDir = func(rel string) error {
					if rel == tt.unread {
						return &fs.PathError{Op: "readdirent", Path: rel, Err: errIO}
					}
					return nil
				}
			}
			rep := mustBuild(t, cfg)
			if len(rep.Problems) != tt.problems {
				t.Errorf("problems %v, want %d", rep.Problems, tt.problems)
			}
			if rep.Changes.Deleted != 0 {
				t.Errorf("report %+v: deletions", rep.Changes)
			}
			var entries []*rsxml.Entry
			if cl := filepath.Join(out, docsDir, "changelist.xml"); tt.unread != "" {
				_, entries = testenv.ReadDoc(t, cl) // none when the source cannot be read: nothing is seen to change
			}
			for _, line := range acChangeLines(entries) {
				if strings.HasPrefix(line, rsxml.ChangeDeleted) {
					t.Errorf("the Change List announces %s", line)
				}
			}
			// The kept entries are in the Resource List as they were.
			_, after := testenv.ReadDoc(t, filepath.Join(out, docsDir, "resourcelist.xml"))
			for _, rel := range tt.kept {
				i := slices.IndexFunc(before, func(e *rsxml.Entry) bool { return e.Loc == acBase+rel })
				j := slices.IndexFunc(after, func(e *rsxml.Entry) bool { return e.Loc == acBase+rel })
				if i < 0 || j < 0 {
					t.Errorf("%s: in the Resource Lists before and after: %v, %v", rel, i >= 0, j >= 0)
					continue
				}
				if !reflect.DeepEqual(before[i], after[j]) {
					t.Errorf("%s: entry %+v, want it kept as %+v", rel, *after[j], *before[i])
				}
			}
		})
	}
}

// TestUnreadWithResourceDump: a build with a Resource Dump, which must
// package every resource it lists, cannot keep an entry it cannot read:
// it fails and publishes nothing rather than announce it deleted.
func TestUnreadWithResourceDump(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	cfg := acConfig(tr.dir, out, acDay(1))
	cfg.Dump.Enabled = true
	mustBuild(t, cfg)
	snap := testenv.Snapshot(t, out)

	cfg = acConfig(tr.dir, out, acDay(2))
	cfg.Dump.Enabled = true
	cfg.Changes.Previous = out
	cfg.readDir = func(rel string) error {
		if rel == "dir" {
			return errors.New("input/output error")
		}
		return nil
	}
	if _, err := Build(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "could not be read") {
		t.Fatalf("Build = %v, want an error about what could not be read", err)
	}
	testenv.SameSnapshot(t, "after the failed build", testenv.Snapshot(t, out), snap)
}

// TestArchiveUnpublishedIsNotDeleted: a member of an archive that cannot
// be published this time (its name is now held by two members, it is
// now a hard link) keeps its entry of the previous build, as a file of a
// tree that cannot be read does; it is not announced as deleted.
func TestArchiveUnpublishedIsNotDeleted(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"tar", "zip"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			src := filepath.Join(dir, "site."+kind)
			out := filepath.Join(dir, "out")
			testenv.WriteArchive(t, src, []testenv.Member{{Name: "a.txt", Body: "a"}, {Name: "b.txt", Body: "b"}})
			mustBuild(t, acConfig(src, out, acDay(1)))
			_, before := testenv.ReadDoc(t, filepath.Join(out, docsDir, "resourcelist.xml"))

			testenv.WriteArchive(t, src, []testenv.Member{{Name: "a.txt", Body: "a"}, {Name: "a.txt", Body: "A"}, {Name: "b.txt", Body: "b"}, {Name: "new.txt", Body: "n"}})
			cfg := acConfig(src, out, acDay(2))
			cfg.Changes.Previous = out
			rep := mustBuild(t, cfg)
			if len(rep.Problems) != 1 || rep.Changes.Deleted != 0 {
				t.Errorf("problems %v, changes %+v; want the duplicate reported, nothing deleted", rep.Problems, rep.Changes)
			}
			_, entries := testenv.ReadDoc(t, filepath.Join(out, docsDir, "changelist.xml"))
			for _, line := range acChangeLines(entries) {
				if strings.HasPrefix(line, rsxml.ChangeDeleted) {
					t.Errorf("the Change List announces %s", line)
				}
			}
			_, after := testenv.ReadDoc(t, filepath.Join(out, docsDir, "resourcelist.xml"))
			i := slices.IndexFunc(before, func(e *rsxml.Entry) bool { return e.Loc == acBase+"a.txt" })
			j := slices.IndexFunc(after, func(e *rsxml.Entry) bool { return e.Loc == acBase+"a.txt" })
			if i < 0 || j < 0 || !reflect.DeepEqual(before[i], after[j]) {
				t.Errorf("a.txt not kept as it was: before %v, after %v", i >= 0, j >= 0)
			}
		})
	}
}
