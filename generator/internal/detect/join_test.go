package detect

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/internal/spill/spilltest"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

var (
	published = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)  // the lastmod of the previous entries
	day2      = time.Date(2024, 6, 2, 10, 0, 0, 0, time.UTC) // between the two snapshots
)

// byTime puts changes of the same datetime in the order of their locs, as
// a test states them.
func byTime(cs []change) []change {
	slices.SortStableFunc(cs, func(x, y change) int {
		return cmp.Or(x.datetime.Compare(y.datetime), cmp.Compare(x.loc, y.loc))
	})
	return cs
}

// Run tells created, updated, deleted and unchanged resources apart by
// content; an unchanged one keeps the lastmod it was published with, an
// updated one whose mtime is not after it gets the datetime of its change.
func TestJoinRun(t *testing.T) {
	t.Parallel()
	j := newJoin(t,
		entry{"a.txt", published, sha("a"), 1},
		entry{"b.txt", published, sha("b"), 1},
		entry{"c.txt", published, sha("c"), 1},
		entry{"e.txt", time.Date(2024, 5, 20, 0, 0, 0, 0, time.UTC), sha("e"), 1},
		entry{"https://other.example/x", published, sha("x"), 1},
	)
	in := spoolResources(t, j.Spill,
		spill.Resource{Path: "a.txt", Loc: base + "a.txt", Length: 1, Hash: digests(sha("a")), Modified: day2}, // a checkout reset its mtime
		spill.Resource{Path: "b.txt", Loc: base + "b.txt", Length: 1, Hash: digests(sha("B")), Modified: day2},
		spill.Resource{Path: "d.txt", Loc: base + "d.txt", Length: 1, Hash: digests(sha("d")), Modified: day2.Add(time.Hour)},
		spill.Resource{Path: "e.txt", Loc: base + "e.txt", Length: 2, Hash: digests(sha("ee")), Modified: time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)}, // an older copy put back
	)
	out, set, err := j.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	wantChanges := []change{
		{"b.txt", rsxml.ChangeUpdated, day2},
		{"d.txt", rsxml.ChangeCreated, day2.Add(time.Hour)},
		{"c.txt", rsxml.ChangeDeleted, at},
		{"e.txt", rsxml.ChangeUpdated, at},
		{"https://other.example/x", rsxml.ChangeDeleted, at},
	}
	if got := byTime(changes(t, set)); !reflect.DeepEqual(got, wantChanges) {
		t.Errorf("changes\n%v\nwant\n%v", got, wantChanges)
	}
	lastmods := map[string]time.Time{}
	for _, r := range spilltest.Resources(t, out) {
		lastmods[r.Path] = r.Modified
	}
	wantLastmods := map[string]time.Time{"a.txt": published, "b.txt": day2, "d.txt": day2.Add(time.Hour), "e.txt": at}
	if !reflect.DeepEqual(lastmods, wantLastmods) {
		t.Errorf("lastmods %v, want %v", lastmods, wantLastmods)
	}
	want := report.ChangeReport{Since: since, Created: 1, Updated: 2, Deleted: 2}
	if *j.Report != want {
		t.Errorf("report %+v, want %+v", *j.Report, want)
	}
	if n := j.Previous.Len(); n != 5 {
		t.Errorf("Previous.Len() = %d, want 5", n)
	}
}

// With no digest in common with the previous build, the files are read
// again for its digests (ReadAgain); a source that cannot be read again
// counts equal lengths as unchanged, with a notice.
func TestJoinReadsAgain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, content := range map[string]string{"a.txt": "a", "b.txt": "x"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name        string
		readAgain   bool
		wantChanges []change
		reread      int
		notices     int
	}{
		{"read again", true, []change{{"b.txt", rsxml.ChangeUpdated, day2}}, 2, 0},
		{"not read again", false, nil, 0, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			j := newJoin(t, entry{"a.txt", published, md5Attr("a"), 1}, entry{"b.txt", published, md5Attr("b"), 1})
			var notices []string
			j.Notice = func(msg string) { notices = append(notices, msg) }
			if tt.readAgain {
				j.ReadAgain = func(rel string) hashing.Job { return hashing.Job{Path: filepath.Join(dir, rel)} }
			}
			in := spoolResources(t, j.Spill,
				spill.Resource{Path: "a.txt", Loc: base + "a.txt", Length: 1, Hash: digests(sha("a")), Modified: day2},
				spill.Resource{Path: "b.txt", Loc: base + "b.txt", Length: 1, Hash: digests(sha("x")), Modified: day2},
			)
			out, set, err := j.Run(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if got := changes(t, set); !reflect.DeepEqual(got, tt.wantChanges) {
				t.Errorf("changes %v, want %v", got, tt.wantChanges)
			}
			if rs := spilltest.Resources(t, out); !rs[0].Modified.Equal(published) {
				t.Errorf("a.txt, unchanged, has lastmod %v, want %v", rs[0].Modified, published)
			}
			if j.Report.Reread != tt.reread || len(notices) != tt.notices {
				t.Errorf("%d read again, notices %q", j.Report.Reread, notices)
			}
			if p := j.Problems.Sorted(); len(p) > 0 {
				t.Errorf("problems %v", p)
			}
		})
	}
}

// Reconcile turns the changes of the resources left out in the end into
// deletions: a created one is not announced, an updated or unchanged one
// is deleted.
func TestJoinReconcile(t *testing.T) {
	t.Parallel()
	j := newJoin(t, entry{"a.txt", published, sha("a"), 1}, entry{"b.txt", published, sha("b"), 1}, entry{"c.txt", published, sha("c"), 1})
	in := spoolResources(t, j.Spill,
		spill.Resource{Path: "a.txt", Loc: base + "a.txt", Length: 1, Hash: digests(sha("a")), Modified: day2},
		spill.Resource{Path: "b.txt", Loc: base + "b.txt", Length: 1, Hash: digests(sha("B")), Modified: day2},
		spill.Resource{Path: "c.txt", Loc: base + "c.txt", Length: 1, Hash: digests(sha("c")), Modified: day2},
		spill.Resource{Path: "d.txt", Loc: base + "d.txt", Length: 1, Hash: digests(sha("d")), Modified: day2},
	)
	_, set, err := j.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if same, err := j.Reconcile(set, nil); same != set || err != nil {
		t.Fatalf("nothing dropped: Reconcile returned %p, %v; want the same set", same, err)
	}
	set, err = j.Reconcile(set, []string{base + "a.txt", base + "b.txt", base + "d.txt"})
	if err != nil {
		t.Fatal(err)
	}
	want := []change{{"a.txt", rsxml.ChangeDeleted, at}, {"b.txt", rsxml.ChangeDeleted, at}}
	if got := byTime(changes(t, set)); !reflect.DeepEqual(got, want) {
		t.Errorf("changes %v, want %v", got, want)
	}
	if r := *j.Report; r.Created != 0 || r.Updated != 0 || r.Deleted != 2 {
		t.Errorf("report %+v, want 2 deleted", r)
	}
}

// A file changed within the second of the previous snapshot, after it
// (here half a second), gets a datetime after that snapshot, never the
// snapshot's own second: the previous build's Change List already gave
// that datetime (its deletions, at least), and a Destination that resumes
// after the last datetime it saw would miss the change.
func TestJoinChangeWithinSnapshotSecond(t *testing.T) {
	t.Parallel()
	j := newJoin(t, entry{"a.txt", published, sha("a"), 1})
	in := spoolResources(t, j.Spill,
		spill.Resource{Path: "a.txt", Loc: base + "a.txt", Length: 1, Hash: digests(sha("A")), Modified: since.Add(500 * time.Millisecond)},
		spill.Resource{Path: "b.txt", Loc: base + "b.txt", Length: 1, Hash: digests(sha("b")), Modified: since.Add(1500 * time.Millisecond)},
	)
	_, set, err := j.Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := []change{{"a.txt", rsxml.ChangeUpdated, since.Add(time.Second)}, {"b.txt", rsxml.ChangeCreated, since.Add(time.Second)}}
	if got := byTime(changes(t, set)); !reflect.DeepEqual(got, want) {
		t.Errorf("changes %v, want %v", got, want)
	}
}
