package changelists

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/docs/docstest"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/internal/spill/spilltest"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/testenv"
)

var snapshot = time.Date(2024, 6, 2, 0, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) { testenv.Main(m) }

// newLists are the Change Lists of a build at the snapshot time after a
// first one an hour before, which published none, with n changes of its
// own, step apart (the last a minute before the snapshot), into a stage of
// their own.
func newLists(t *testing.T, n int, step time.Duration) *Lists {
	t.Helper()
	times := make([]time.Time, n)
	for i := range times {
		times[i] = snapshot.Add(-time.Minute + time.Duration(i-n+1)*step)
	}
	return newListsAt(t, times...)
}

// newListsAt are the Change Lists of newLists with a change created at each
// of times.
func newListsAt(t *testing.T, times ...time.Time) *Lists {
	t.Helper()
	area := spilltest.Area(t)
	changes, err := area.Changes()
	if err != nil {
		t.Fatal(err)
	}
	for i, at := range times {
		c := spill.Change{Resource: spill.Resource{Loc: fmt.Sprintf("https://example.org/%d.txt", i), Length: -1}, Change: rsxml.ChangeCreated, Datetime: at}
		if err := changes.Add(&c); err != nil {
			t.Fatal(err)
		}
	}
	if err := changes.Finish(area); err != nil {
		t.Fatal(err)
	}
	limits := listwriter.Limits{MaxEntries: rsxml.MaxEntries, MaxBytes: rsxml.MaxBytes}
	return &Lists{Docs: docstest.Writer(t), Limits: limits,
		Keep: 24 * time.Hour, At: snapshot, Prev: &previous.Site{At: snapshot.Add(-time.Hour)}, Changes: changes,
		Report: new(report.ChangeReport), Notice: func(s string) { t.Log("notice:", s) }}
}

// The changes of a build after one that published none are one open
// changelist.xml from the previous snapshot, advertised.
func TestPublishOpenList(t *testing.T) {
	t.Parallel()
	ch := newLists(t, 2, time.Minute)
	from, err := ch.Publish(context.Background())
	if err != nil || !from.Equal(ch.Prev.At) {
		t.Fatalf("from %v, %v; want the previous snapshot", from, err)
	}
	doc := docstest.Staged(t, ch.Docs, IndexName)
	if !strings.Contains(doc, `<rs:md capability="changelist" from="2024-06-01T23:00:00Z"/>`) || strings.Count(doc, "<url>") != 2 {
		t.Errorf("%s:\n%s", IndexName, doc)
	}
	if ch.Report.Lists != 1 || len(ch.Docs.Caps) != 1 || ch.Docs.Caps[0].MD.Capability != rsxml.CapChangeList {
		t.Errorf("%d lists reported, advertised %v", ch.Report.Lists, ch.Docs.Caps)
	}
}

// Past the limits of one document, changelist.xml is a Change List Index
// over closed lists named by the end of the interval they cover, split
// into parts that meet at the datetime of a change.
func TestPublishIndex(t *testing.T) {
	t.Parallel()
	ch := newLists(t, 3, time.Minute)
	ch.Limits.MaxEntries = 2
	ch.Docs.Limits = ch.Limits
	if _, err := ch.Publish(context.Background()); err != nil {
		t.Fatal(err)
	}
	index := docstest.Staged(t, ch.Docs, IndexName)
	for _, want := range []string{
		`<sitemapindex`, `from="2024-06-01T23:00:00Z" until="2024-06-02T00:00:00Z"`,
		"<loc>https://example.org/resourcesync/changelist-20240602T000000Z-00001.xml</loc>",
		"<loc>https://example.org/resourcesync/changelist-20240602T000000Z-00002.xml</loc>",
	} {
		if !strings.Contains(index, want) {
			t.Errorf("%s has no %s:\n%s", IndexName, want, index)
		}
	}
	part := docstest.Staged(t, ch.Docs, "changelist-20240602T000000Z-00002.xml")
	if !strings.Contains(part, `from="2024-06-01T23:59:00Z" until="2024-06-02T00:00:00Z"`) || !strings.Contains(part, `rel="index" href="https://example.org/resourcesync/changelist.xml"`) {
		t.Errorf("the second part:\n%s", part)
	}
	if ch.Report.Lists != 2 {
		t.Errorf("%d lists reported, want 2", ch.Report.Lists)
	}
}

// With ArchiveKeep, this build's changes are archived as a closed Change
// List from where the previous archive ends, changelist.xml links to the
// archive, and the archive lists the archived lists kept.
func TestWriteArchive(t *testing.T) {
	t.Parallel()
	ch := newLists(t, 2, time.Minute)
	ch.ArchiveKeep = 24 * time.Hour
	end := snapshot.Add(-30 * time.Minute) // where the previous archive ends
	ch.Prev.ChangeListArchive = &previous.Archive{Lists: []previous.ArchivedList{{Rel: "resourcesync/archive/changelist-20240601T233000Z.xml",
		URL: "https://example.org/resourcesync/archive/changelist-20240601T233000Z.xml", From: snapshot.Add(-2 * time.Hour), Until: end}}}
	if _, err := ch.Publish(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(docstest.Staged(t, ch.Docs, IndexName), `<rs:ln rel="archives" href="https://example.org/resourcesync/changelist-archive.xml"/>`) {
		t.Errorf("changelist.xml does not link to the archive")
	}
	if a := ch.archive; len(a.Carried) != 1 || !a.Fresh || !a.From.Equal(end) {
		t.Fatalf("archive %+v: want the archived list carried, this build's from %v", a, end)
	}
	// The carried list is not read here: the archive is tried without it.
	ch.archive.Carried = nil
	if err := ch.WriteArchive(context.Background()); err != nil {
		t.Fatal(err)
	}
	if doc := docstest.Staged(t, ch.Docs, "archive/changelist-20240602T000000Z.xml"); !strings.Contains(doc, `from="2024-06-01T23:30:00Z" until="2024-06-02T00:00:00Z"`) {
		t.Errorf("the archived list:\n%s", doc)
	}
	if doc := docstest.Staged(t, ch.Docs, ArchiveName); !strings.Contains(doc, "<loc>https://example.org/resourcesync/archive/changelist-20240602T000000Z.xml</loc>") {
		t.Errorf("%s:\n%s", ArchiveName, doc)
	}
}

// PlanArchive keeps the previous build's archived lists that end within
// keep, says how many it drops, and plans none when there is nothing to
// list, no keep (saying so if the previous build had one), or refuses a
// list archived elsewhere than rsgen archives.
func TestPlanArchive(t *testing.T) {
	t.Parallel()
	archived := func(name string, until time.Time) previous.ArchivedList {
		return previous.ArchivedList{Rel: "resourcesync/archive/" + name, URL: "https://example.org/resourcesync/archive/" + name, Until: until}
	}
	prev := &previous.Archive{Lists: []previous.ArchivedList{
		archived("changelist-20240530T000000Z.xml", snapshot.Add(-72*time.Hour)),
		archived("changelist-20240601T230000Z.xml", snapshot.Add(-time.Hour)),
	}}
	from := snapshot.Add(-2 * time.Hour)
	for _, tt := range []struct {
		name    string
		prev    *previous.Archive
		keep    time.Duration
		fresh   bool
		carried int // -1 for no archive
		from    time.Time
		notice  string
		err     string
	}{
		{"first", nil, time.Hour, true, 0, from, "", ""},
		{"nothing to list", nil, time.Hour, false, -1, time.Time{}, "", ""},
		{"kept within keep", prev, 24 * time.Hour, false, 1, snapshot.Add(-time.Hour), "the Change List Archive: 1 Change List older than 2024-06-01T00:00:00Z no longer published", ""},
		{"dropped", prev, 0, true, -1, time.Time{}, "the Change List Archive of the previous build (2 Change Lists) is no longer published", ""},
		{"archived elsewhere", &previous.Archive{Lists: []previous.ArchivedList{{Rel: "resourcesync/changelist-20240601T230000Z.xml", URL: "https://example.org/resourcesync/changelist-20240601T230000Z.xml", Until: snapshot}}},
			time.Hour, true, -1, time.Time{}, "", "which is not where rsgen archives a Change List"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var said []string
			d := &docs.Writer{Base: "https://example.org/", Dir: "resourcesync"}
			a, err := PlanArchive(Archive{Docs: d, Name: ArchiveName, What: "Change List", File: changeListFile, Notice: func(s string) { said = append(said, s) }},
				tt.prev, tt.keep, snapshot, from, tt.fresh)
			switch {
			case tt.err != "":
				if !errors.Is(err, docs.ErrPrevious) || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want one with %q", err, tt.err)
				}
				return
			case err != nil:
				t.Fatal(err)
			case tt.carried < 0:
				if a != nil || a.Link() != nil {
					t.Errorf("archive %+v, want none", a)
				}
			case a == nil || len(a.Carried) != tt.carried || !a.From.Equal(tt.from) || a.Fresh != tt.fresh:
				t.Errorf("archive %+v, want %d carried, from %v", a, tt.carried, tt.from)
			}
			if tt.notice == "" && len(said) > 0 || tt.notice != "" && (len(said) != 1 || said[0] != tt.notice) {
				t.Errorf("notices %q, want %q", said, tt.notice)
			}
		})
	}
}

// The Change Lists of the previous build carried forward are the newest
// run without a gap, less those that end before the keep window (but the
// newest while this build has no list of its own), under the names rsgen
// gave them, or the name rsgen gives a list that ends when it ends; two
// that would have one name are the previous build's error.
func TestCarriedChangeLists(t *testing.T) {
	t.Parallel()
	hour := func(h int) time.Time { return snapshot.Add(time.Duration(h) * time.Hour) }
	list := func(name string, from, until int) previous.ChangeList {
		return previous.ChangeList{Rel: "resourcesync/" + name, URL: "https://example.org/resourcesync/" + name, From: hour(from), Until: hour(until), Entries: 1}
	}
	for _, tt := range []struct {
		name    string
		lists   []previous.ChangeList
		keep    time.Duration
		changes int
		want    []string // the names carried
		end     int      // where the run ends, in hours from the snapshot
		dropped int
		err     string
	}{
		{"a run", []previous.ChangeList{list("changelist-20240601T220000Z.xml", -3, -2), list("elsewhere.xml", -2, -1)}, 24 * time.Hour, 1,
			[]string{"changelist-20240601T220000Z.xml", "changelist-20240601T230000Z.xml"}, -1, 0, ""},
		{"after a gap", []previous.ChangeList{list("changelist-20240601T200000Z.xml", -5, -4), list("changelist-20240601T230000Z.xml", -2, -1)}, 24 * time.Hour, 1,
			[]string{"changelist-20240601T230000Z.xml"}, -1, 1, ""},
		{"out of the keep window", []previous.ChangeList{list("changelist-20240601T220000Z.xml", -3, -2), list("changelist-20240601T230000Z.xml", -2, -1)}, 90 * time.Minute, 1,
			[]string{"changelist-20240601T230000Z.xml"}, -1, 1, ""},
		{"the newest kept without changes", []previous.ChangeList{list("changelist-20240601T230000Z.xml", -2, -1)}, time.Minute, 0,
			[]string{"changelist-20240601T230000Z.xml"}, -1, 0, ""},
		{"one name twice", []previous.ChangeList{list("changelist-20240601T230000Z.xml", -3, -1), list("a/changelist-20240601T230000Z.xml", -1, -1)}, 24 * time.Hour, 1,
			nil, 0, 0, "would both be published as changelist-20240601T230000Z.xml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ch := newLists(t, tt.changes, time.Minute)
			ch.Keep, ch.Prev.ChangeLists = tt.keep, tt.lists
			lists, end, err := ch.carriedChangeLists()
			if tt.err != "" {
				if !errors.Is(err, docs.ErrPrevious) || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want one with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range lists {
				names = append(names, c.name)
			}
			if !slices.Equal(names, tt.want) || !end.Equal(hour(tt.end)) || ch.Report.Dropped != tt.dropped {
				t.Errorf("carried %v to %v, %d dropped; want %v to %v, %d dropped", names, end, ch.Report.Dropped, tt.want, hour(tt.end), tt.dropped)
			}
		})
	}
}

// When this build's changes need more lists than one index may list, the
// build fails; changes at one datetime that one list cannot hold are split
// between two, with a notice.
func TestPublishOverTheLimits(t *testing.T) {
	t.Parallel()
	ch := newLists(t, 5, time.Minute)
	ch.Limits.MaxEntries = 2
	ch.Docs.Limits = ch.Limits
	if _, err := ch.Publish(context.Background()); err == nil || err.Error() != "changelist-20240602T000000Z needs more than 2 parts, more than one index may list" {
		t.Errorf("error %v, want one of too many parts", err)
	}

	ch = newLists(t, 3, 0)
	ch.Limits.MaxEntries = 2
	ch.Docs.Limits = ch.Limits
	var said []string
	ch.Notice = func(s string) { said = append(said, s) }
	if _, err := ch.Publish(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(said, func(s string) bool {
		return strings.HasPrefix(s, "the changes at 2024-06-01T23:59:00Z are more than one Change List holds")
	}) {
		t.Errorf("notices %q, want one of changes split between two lists", said)
	}
}

// The Change Lists of an index are split between two datetimes, never
// inside one: a Destination that reads them one after the other, resuming
// each time after the last datetime it saw, misses nothing. Only a second
// with more changes than one list holds is split, with a notice (once
// generator's TestChangeListsSplitBetweenDatetimes, over two builds).
func TestPublishSplitsBetweenDatetimes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		seconds []int // of the datetime of each change
		inside  bool  // a second holds more changes than one list
	}{
		{"a second across the cut", []int{1, 1, 2, 2, 2, 3, 3}, false},
		{"a second fuller than a list", []int{1, 2, 2, 2, 2, 2, 3}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var times []time.Time
			for _, s := range tc.seconds {
				times = append(times, snapshot.Add(-time.Hour+time.Duration(s)*time.Second))
			}
			ch := newListsAt(t, times...)
			ch.Limits.MaxEntries = 4
			ch.Docs.Limits = ch.Limits
			var notices []string
			ch.Notice = func(msg string) { notices = append(notices, msg) }
			if _, err := ch.Publish(context.Background()); err != nil {
				t.Fatal(err)
			}
			doc, lists, err := rsxml.ReadAll(strings.NewReader(docstest.Staged(t, ch.Docs, IndexName)), rsxml.ReadOptions{MaxBytes: rsxml.MaxBytes})
			if err != nil || !doc.Index || len(lists) < 2 {
				t.Fatalf("changelist.xml is no index of lists (%d, %v)", len(lists), err)
			}
			lastDT, resumed := "", 0
			for i, l := range lists {
				if i > 0 && l.MD.From != lists[i-1].MD.Until {
					t.Errorf("%s starts at %s, the list before ends at %s", l.Loc, l.MD.From, lists[i-1].MD.Until)
				}
				_, changes, err := rsxml.ReadAll(strings.NewReader(docstest.Staged(t, ch.Docs, path.Base(l.Loc))), rsxml.ReadOptions{MaxBytes: rsxml.MaxBytes})
				if err != nil {
					t.Fatal(err)
				}
				from := lastDT
				for _, c := range changes {
					if c.MD.Datetime > from {
						resumed++
						lastDT = c.MD.Datetime
					}
				}
			}
			if want := len(tc.seconds); resumed != want && !tc.inside {
				t.Errorf("a Destination resuming after the last datetime it saw got %d changes of %d", resumed, want)
			}
			split := slices.ContainsFunc(notices, func(n string) bool { return strings.Contains(n, "more than one Change List holds") })
			if split != tc.inside {
				t.Errorf("notices %q; want one of a second split: %v", notices, tc.inside)
			}
		})
	}
}
