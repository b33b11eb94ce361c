package generator

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/changelists"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/internal/text/units"
)

var acFiles = map[string]string{
	"a.txt":     "alpha",
	"b.txt":     "bravo",
	"dir/c.txt": "charlie",
	"d.html":    "<p>delta</p>",
}

// acT0 is when the files of acFiles were last modified; builds run at
// acDay(1) and acDay(2).
var acT0 = acTime("2024-01-01T00:00:00Z")

func TestChangeMutations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(tr *acTree)
		want   []string // entries of the Change List, in order; nil: no Change List
	}{
		{name: "create", mutate: func(tr *acTree) { tr.write("new.txt", "new", acTime("2024-06-01T12:00:00Z")) },
			want: []string{"created new.txt datetime=2024-06-01T12:00:00Z lastmod=2024-06-01T12:00:00Z length=3"}},
		{name: "create with an old mtime", mutate: func(tr *acTree) { tr.write("old.txt", "from an archive", acTime("2020-02-02T02:02:02Z")) },
			want: []string{"created old.txt datetime=2024-06-02T00:00:00Z lastmod=2020-02-02T02:02:02Z length=15"}},
		{name: "update", mutate: func(tr *acTree) { tr.write("a.txt", "alpha, again", acTime("2024-06-01T08:00:00Z")) },
			want: []string{"updated a.txt datetime=2024-06-01T08:00:00Z lastmod=2024-06-01T08:00:00Z length=12"}},
		{name: "update with the same size and mtime", mutate: func(tr *acTree) { tr.write("a.txt", "ALPHA", acT0) },
			want: []string{"updated a.txt datetime=2024-06-02T00:00:00Z lastmod=2024-06-02T00:00:00Z length=5"}},
		{name: "update after the snapshot began", mutate: func(tr *acTree) { tr.write("d.html", "<p>Delta</p>\n", acTime("2024-07-01T00:00:00Z")) },
			want: []string{"updated d.html datetime=2024-06-02T00:00:00Z lastmod=2024-07-01T00:00:00Z length=13"}},
		{name: "delete", mutate: func(tr *acTree) { tr.remove("b.txt") },
			want: []string{"deleted b.txt datetime=2024-06-02T00:00:00Z lastmod=2024-06-02T00:00:00Z"}},
		{name: "rename", mutate: func(tr *acTree) { tr.rename("dir/c.txt", "dir/c2.txt") },
			want: []string{
				"deleted dir/c.txt datetime=2024-06-02T00:00:00Z lastmod=2024-06-02T00:00:00Z",
				"created dir/c2.txt datetime=2024-06-02T00:00:00Z lastmod=2024-01-01T00:00:00Z length=7",
			}},
		{name: "several, in chronological order", mutate: func(tr *acTree) {
			tr.write("z.txt", "zulu", acTime("2024-06-01T03:00:00Z"))
			tr.write("b.txt", "bravo!", acTime("2024-06-01T02:00:00Z"))
			tr.remove("a.txt")
		}, want: []string{
			"updated b.txt datetime=2024-06-01T02:00:00Z lastmod=2024-06-01T02:00:00Z length=6",
			"created z.txt datetime=2024-06-01T03:00:00Z lastmod=2024-06-01T03:00:00Z length=4",
			"deleted a.txt datetime=2024-06-02T00:00:00Z lastmod=2024-06-02T00:00:00Z",
		}},
		{name: "touch only", mutate: func(tr *acTree) { tr.touch("a.txt", acTime("2024-06-01T09:00:00Z")) }},
		{name: "nothing", mutate: func(*acTree) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := acNewTree(t, acFiles, acT0)
			out := t.TempDir()
			mustBuild(t, acConfig(tr.dir, out, acDay(1)))
			if files := acChangeListFiles(t, out); len(files) != 0 {
				t.Fatalf("the first build published Change Lists %v", files)
			}
			tt.mutate(tr)
			cfg := acConfig(tr.dir, out, acDay(2))
			cfg.Changes.Previous = out
			rep := mustBuild(t, cfg)

			_, resources := testenv.ReadDoc(t, filepath.Join(out, docsDir, "resourcelist.xml"))
			lastmod := map[string]string{}
			for _, e := range resources {
				lastmod[strings.TrimPrefix(e.Loc, acBase)] = e.Lastmod
			}
			if tt.want == nil {
				if files := acChangeListFiles(t, out); len(files) != 0 {
					t.Errorf("Change Lists %v published where nothing changed", files)
				}
				if _, err := os.Stat(filepath.Join(out, docsDir, "changelist.xml")); err == nil {
					t.Error("a Change List Index published where there is no Change List")
				}
				if slices.Contains(acCapabilities(t, out), rsxml.CapChangeList) {
					t.Error("the Capability List advertises a Change List")
				}
				// An unchanged file keeps its lastmod, whatever its mtime.
				if lastmod["a.txt"] != "2024-01-01T00:00:00Z" {
					t.Errorf("a.txt has lastmod %s, want the one published before", lastmod["a.txt"])
				}
				if rep.Changes.Created+rep.Changes.Updated+rep.Changes.Deleted != 0 {
					t.Errorf("report %+v", rep.Changes)
				}
				return
			}
			// One open Change List at the URL the Capability List gives,
			// which resync can read: no index, no list of its own.
			if files := acChangeListFiles(t, out); len(files) != 0 {
				t.Fatalf("Change Lists %v beside changelist.xml", files)
			}
			doc, entries := testenv.ReadDoc(t, filepath.Join(out, docsDir, "changelist.xml"))
			if doc.Index || doc.MD.Capability != rsxml.CapChangeList || doc.MD.From != "2024-06-01T00:00:00Z" || doc.MD.Until != "" {
				t.Errorf("root %+v", doc.MD)
			}
			if doc.Link("up") != acBase+"resourcesync/capabilitylist.xml" || doc.Link("index") != "" {
				t.Errorf("links %+v", doc.Links)
			}
			if got := acChangeLines(entries); !slices.Equal(got, tt.want) {
				t.Errorf("changes:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
			for _, e := range entries {
				rel := strings.TrimPrefix(e.Loc, acBase)
				if e.MD.Change == rsxml.ChangeDeleted {
					if e.MD.Hash != "" || e.MD.Length != "" || e.MD.Type != "" {
						t.Errorf("deleted %s carries %+v", rel, e.MD)
					}
					continue
				}
				b, err := os.ReadFile(tr.path(rel))
				if err != nil {
					t.Fatal(err)
				}
				if e.MD.Hash != acSHA(string(b)) || e.MD.Type == "" {
					t.Errorf("%s: hash %s type %q", rel, e.MD.Hash, e.MD.Type)
				}
				if e.Lastmod != lastmod[rel] {
					t.Errorf("%s: lastmod %s in the Change List, %s in the Resource List", rel, e.Lastmod, lastmod[rel])
				}
			}
			if !slices.Contains(acCapabilities(t, out), rsxml.CapChangeList) {
				t.Error("the Capability List does not advertise the Change List")
			}
			acValidate(t, out)
		})
	}
}

// acIndexEntries checks the Change List Index in out (chronological, no gap,
// its from and until those of its first and last lists, every list there
// and agreeing with its entry) and returns its entries as
// "name from until".
func acIndexEntries(t *testing.T, out string) []string {
	t.Helper()
	doc, entries := testenv.ReadDoc(t, filepath.Join(out, docsDir, "changelist.xml"))
	if !doc.Index || doc.MD.Capability != rsxml.CapChangeList || doc.Link("up") == "" {
		t.Fatalf("the index is %+v", doc)
	}
	var lines []string
	for i, e := range entries {
		if i == 0 && e.MD.From != doc.MD.From {
			t.Errorf("the index is from %s, its first list from %s", doc.MD.From, e.MD.From)
		}
		if i > 0 && e.MD.From != entries[i-1].MD.Until {
			t.Errorf("a gap: %s ends at %s, %s starts at %s", entries[i-1].Loc, entries[i-1].MD.Until, e.Loc, e.MD.From)
		}
		name := strings.TrimPrefix(e.Loc, acBase+docsDir+"/")
		ldoc, lentries := testenv.ReadDoc(t, filepath.Join(out, docsDir, name))
		if ldoc.MD.From != e.MD.From || ldoc.MD.Until != e.MD.Until || ldoc.Link("index") != acBase+"resourcesync/changelist.xml" {
			t.Errorf("%s is from %s until %s (index %s), its index entry says %s to %s", name, ldoc.MD.From, ldoc.MD.Until, ldoc.Link("index"), e.MD.From, e.MD.Until)
		}
		for _, le := range lentries {
			if le.MD.Datetime < ldoc.MD.From || le.MD.Datetime > ldoc.MD.Until {
				t.Errorf("%s: change at %s outside its list", name, le.MD.Datetime)
			}
		}
		lines = append(lines, name+" "+e.MD.From+" "+e.MD.Until)
	}
	if n := len(entries); n > 0 && doc.MD.Until != entries[n-1].MD.Until {
		t.Errorf("the index is until %s, its last list until %s", doc.MD.Until, entries[n-1].MD.Until)
	}
	return lines
}

func TestChangeListChain(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	steps := []struct {
		at      time.Time
		keep    time.Duration
		mutate  func()
		from    string   // of the open changelist.xml; "": none published
		changes []string // its changes, "change path"
	}{
		{at: acDay(1)},
		{at: acDay(2), mutate: func() { tr.write("e.txt", "echo", acTime("2024-06-01T10:00:00Z")) },
			from: "2024-06-01T00:00:00Z", changes: []string{"created e.txt"}},
		{at: acDay(3), mutate: func() { tr.touch("e.txt", acTime("2024-06-02T10:00:00Z")) },
			from: "2024-06-01T00:00:00Z", changes: []string{"created e.txt"}},
		{at: acDay(4), mutate: func() { tr.remove("b.txt") },
			from: "2024-06-01T00:00:00Z", changes: []string{"created e.txt", "deleted b.txt"}},
		// --changes-keep 5d at day 8: the changes before day 3 are dropped.
		{at: acDay(8), keep: 5 * 24 * time.Hour, mutate: func() { tr.write("a.txt", "alpha 2", acTime("2024-06-05T00:00:00Z")) },
			from: "2024-06-03T00:00:00Z", changes: []string{"deleted b.txt", "updated a.txt"}},
	}
	var before map[string]string
	for i, s := range steps {
		if s.mutate != nil {
			s.mutate()
		}
		cfg := acConfig(tr.dir, out, s.at)
		if i > 0 {
			cfg.Changes.Previous = out
		}
		if s.keep != 0 {
			cfg.Changes.Keep = units.Duration(s.keep)
		}
		rep := mustBuild(t, cfg)
		after := testenv.ReadTree(t, out)
		if files := acChangeListFiles(t, out); len(files) != 0 {
			t.Errorf("build %d published %v beside changelist.xml", i+1, files)
		}
		if s.from == "" {
			if _, ok := after["resourcesync/changelist.xml"]; ok {
				t.Fatalf("build %d published a Change List", i+1)
			}
		} else {
			doc, entries := testenv.ReadDoc(t, filepath.Join(out, docsDir, changelists.IndexName))
			var got []string
			for _, e := range entries {
				got = append(got, e.MD.Change+" "+strings.TrimPrefix(e.Loc, acBase))
			}
			if doc.Index || doc.MD.From != s.from || doc.MD.Until != "" || !slices.Equal(got, s.changes) {
				t.Errorf("build %d: changelist.xml from %s until %q (index %v):\n  %s\nwant from %s:\n  %s", i+1, doc.MD.From, doc.MD.Until, doc.Index,
					strings.Join(got, "\n  "), s.from, strings.Join(s.changes, "\n  "))
			}
			if rep.Changes.Lists != 1 {
				t.Errorf("build %d reports %d lists", i+1, rep.Changes.Lists)
			}
		}
		if i == 2 && after["resourcesync/changelist.xml"] != before["resourcesync/changelist.xml"] {
			t.Error("a build where nothing changed rewrote changelist.xml")
		}
		acValidate(t, out)
		before = after
	}
}

func TestChangeListSplit(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	for i, name := range []string{"n1", "n2", "n3", "n4", "n5", "n6", "n7"} {
		tr.write(name+".txt", name, acDay(1).Add(time.Duration(i+1)*time.Hour))
	}
	cfg := acConfig(tr.dir, out, acDay(2))
	cfg.Changes.Previous = out
	cfg.Limits.MaxEntries = 4
	mustBuild(t, cfg)
	want := []string{
		"changelist-20240602T000000Z-00001.xml 2024-06-01T00:00:00Z 2024-06-01T05:00:00Z",
		"changelist-20240602T000000Z-00002.xml 2024-06-01T05:00:00Z 2024-06-02T00:00:00Z",
	}
	if got := acIndexEntries(t, out); !slices.Equal(got, want) {
		t.Errorf("index\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	// The next build carries the parts forward as they are.
	tr.remove("n1.txt")
	cfg = acConfig(tr.dir, out, acDay(3))
	cfg.Changes.Previous = out
	cfg.Limits.MaxEntries = 4
	mustBuild(t, cfg)
	want = append(want, "changelist-20240603T000000Z.xml 2024-06-02T00:00:00Z 2024-06-03T00:00:00Z")
	if got := acIndexEntries(t, out); !slices.Equal(got, want) {
		t.Errorf("index\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	acValidate(t, out)
}

func TestRebuildAtTheSameTime(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	tr.write("new.txt", "new", acTime("2024-06-01T12:00:00Z"))
	cfg := acConfig(tr.dir, out, acDay(2))
	cfg.Changes.Previous = out
	mustBuild(t, cfg)
	first := testenv.ReadTree(t, out)
	// The same build again, against its own output: nothing changed since
	// its snapshot, and it publishes the same bytes.
	mustBuild(t, cfg)
	sameFiles(t, "a rebuild", testenv.ReadTree(t, out), first)
	// A change with no time to have happened in is refused.
	tr.write("later.txt", "later", acTime("2024-06-01T13:00:00Z"))
	var ste *Error
	if _, err := Build(t.Context(), cfg); !errors.As(err, &ste) || ste.Kind != KindSnapshotTime || !strings.Contains(err.Error(), "snapshot time "+rsxml.FormatTime(acDay(2))+" is this build's too, yet 1 resource changed") || !errors.Is(err, errPrevious) {
		t.Errorf("error %v", err)
	}
	sameFiles(t, "after a failed build", testenv.ReadTree(t, out), first)
}

// A site that moves (a new --docs-url) is refused: the previous build's
// history is another site's (staging for production, say), and its
// Change Lists link rel="index" to the index at the old place. With
// NewHistory it is published as a first build: no Change List, nothing
// carried forward.
func TestChangeListsOfAMovedSite(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	tr.write("new.txt", "new", acTime("2024-06-01T12:00:00Z"))
	cfg := acConfig(tr.dir, out, acDay(2))
	cfg.Changes.Previous = out
	cfg.Changes.Dump = true
	mustBuild(t, cfg)
	before := testenv.ReadTree(t, out)

	tr.write("a.txt", "alpha!", acTime("2024-06-02T12:00:00Z"))
	cfg = acConfig(tr.dir, out, acDay(3))
	cfg.BaseURL = mustBaseURL(t, "https://new.example.org/")
	cfg.Changes.Previous = out
	cfg.Changes.Dump = true
	var ose *Error
	if _, err := Build(t.Context(), cfg); !errors.As(err, &ose) || ose.Kind != KindOtherSite || ose.URL != "https://new.example.org/" || !strings.Contains(err.Error(), "published at https://example.org/, this build at https://new.example.org/") {
		t.Fatalf("error %v, want an OtherSiteError", err)
	}
	sameFiles(t, "after a refused build", testenv.ReadTree(t, out), before)

	cfg.Changes.NewHistory = true
	var notices []string
	cfg.Notice = func(msg string) { notices = append(notices, msg) }
	rep := mustBuild(t, cfg)
	if rep.Changes != nil {
		t.Errorf("changes reported: %+v", rep.Changes)
	}
	for _, name := range []string{"changelist.xml", "changedump.xml", "changelist-20240602T000000Z.xml"} {
		if _, err := os.Stat(filepath.Join(out, docsDir, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want it gone with the old history", name, err)
		}
	}
	if !slices.ContainsFunc(notices, func(n string) bool { return strings.Contains(n, "starting a new change history") }) {
		t.Errorf("no notice says a new history starts: %q", notices)
	}
	acValidate(t, out)

	// NewHistory left on for the next builds (CI) does not restart the
	// history again: the previous build is this site's.
	tr.write("b.txt", "beta!", acTime("2024-06-03T12:00:00Z"))
	cfg.At = acDay(4)
	notices = nil
	if rep = mustBuild(t, cfg); rep.Changes == nil || rep.Changes.Updated != 1 {
		t.Errorf("changes %+v, want b.txt updated", rep.Changes)
	}
	if !slices.ContainsFunc(notices, func(n string) bool { return strings.Contains(n, "its change history continues") }) {
		t.Errorf("notices %q", notices)
	}
}

// TestChangeListIndexOverTheLimits: the Change List Index is never split.
// When the lists of this build alone (the parts of the changes the open
// list held, and of this build's) are more than it may list, the build
// fails and says which limit to raise; nothing is published.
func TestChangeListIndexOverTheLimits(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	// Updates only: the Resource List of four files fits two parts of two.
	for i, name := range []string{"a.txt", "b.txt", "dir/c.txt"} {
		tr.write(name, "one", acDay(1).Add(time.Duration(i+1)*time.Hour))
	}
	cfg := acConfig(tr.dir, out, acDay(2))
	cfg.Changes.Previous = out
	mustBuild(t, cfg) // an open list of three changes
	before := testenv.ReadTree(t, out)
	for i, name := range []string{"a.txt", "b.txt", "dir/c.txt"} {
		tr.write(name, "two", acDay(2).Add(time.Duration(i+1)*time.Hour))
	}
	cfg = acConfig(tr.dir, out, acDay(3))
	cfg.Changes.Previous = out
	cfg.Limits.MaxEntries = 2 // two parts of the open list's changes, two of this build's
	_, err := Build(t.Context(), cfg)
	var le *Error
	if !errors.As(err, &le) || le.Kind != KindLimit || !slices.Contains(le.Raise, "Limits.MaxEntries") || strings.Contains(err.Error(), "validation") {
		t.Fatalf("error %v, want a LimitError that raises Limits.MaxEntries", err)
	}
	sameFiles(t, "after a failed build", testenv.ReadTree(t, out), before)
}

// TestChangesOfFilesTheDumpDropped: a file that changes after it was
// hashed is left out of the Resource Dump and so of the Resource List; the
// Change List must then agree with the list: an unchanged or updated file
// left out is deleted, a created one is not announced at all.
func TestChangesOfFilesTheDumpDropped(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	cfg := acConfig(tr.dir, out, acDay(1))
	cfg.Dump.Enabled = true
	mustBuild(t, cfg)

	tr.write("b.txt", "bravo, updated", acT0)
	tr.write("new.txt", "new", acT0)
	cfg.beforeDump = func() {
		for _, rel := range []string{"a.txt", "b.txt", "new.txt"} { // unchanged, updated, created
			tr.write(rel, "changed while the build ran", acT0)
		}
	}
	cfg.At, cfg.Changes.Previous = acDay(2), out
	rep := mustBuild(t, cfg)
	if len(rep.Problems) != 3 {
		t.Errorf("problems %v, want the three files left out", rep.Problems)
	}
	_, entries := testenv.ReadDoc(t, filepath.Join(out, docsDir, "changelist.xml"))
	got := map[string]string{}
	for _, e := range entries {
		got[strings.TrimPrefix(e.Loc, acBase)] = e.MD.Change
	}
	want := map[string]string{"a.txt": "deleted", "b.txt": "deleted"}
	if !maps.Equal(got, want) {
		t.Errorf("Change List %v, want %v", got, want)
	}
	if c := rep.Changes; c.Created != 0 || c.Updated != 0 || c.Deleted != 2 {
		t.Errorf("report %+v, want 2 deleted", c)
	}
}
