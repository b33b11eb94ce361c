package generator

import (
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

// acFollower is a Destination that polls changelist.xml after every build,
// as a cron job would with the one URL the Capability List gives, and
// applies every change it has not seen yet.
type acFollower struct {
	seenTo  string   // the snapshot time of the last build it read
	applied []string // "change path", in the order applied
	lastDT  string   // datetime of the last change applied
}

// poll reads changelist.xml in out, a plain Change List or a Change List
// Index, checks that it covers everything since the last poll without a gap
// and that its changes are in order, and applies the new ones. at is the
// snapshot time of the build that published out.
func (f *acFollower) poll(t *testing.T, out string, at time.Time) (index bool) {
	t.Helper()
	doc, entries := testenv.ReadDoc(t, filepath.Join(out, docsDir, changelists.IndexName))
	if doc.MD.Capability != rsxml.CapChangeList || doc.Link("up") != acBase+docsDir+"/capabilitylist.xml" {
		t.Fatalf("changelist.xml: %+v", doc)
	}
	if f.seenTo != "" && doc.MD.From > f.seenTo {
		t.Errorf("changelist.xml starts at %s, after %s where the last poll ended: a gap", doc.MD.From, f.seenTo)
	}
	var changes []*rsxml.Entry
	if !doc.Index {
		if doc.MD.Until != "" {
			t.Errorf("changelist.xml is rewritten by every build but says it is closed (until %s)", doc.MD.Until)
		}
		changes = entries
	} else {
		if doc.MD.From != entries[0].MD.From || doc.MD.Until != entries[len(entries)-1].MD.Until {
			t.Errorf("the index is from %s until %s, its lists from %s until %s", doc.MD.From, doc.MD.Until, entries[0].MD.From, entries[len(entries)-1].MD.Until)
		}
		for i, e := range entries {
			if i > 0 && e.MD.From != entries[i-1].MD.Until {
				t.Errorf("a gap in the index: %s ends at %s, %s starts at %s", entries[i-1].Loc, entries[i-1].MD.Until, e.Loc, e.MD.From)
			}
			name := strings.TrimPrefix(e.Loc, acBase+docsDir+"/")
			ldoc, lentries := testenv.ReadDoc(t, filepath.Join(out, docsDir, name))
			if ldoc.Index || ldoc.MD.From != e.MD.From || ldoc.MD.Until != e.MD.Until || ldoc.Link("index") != acBase+docsDir+"/"+changelists.IndexName {
				t.Errorf("%s: from %s until %s index %s; its entry says from %s until %s", name, ldoc.MD.From, ldoc.MD.Until, ldoc.Link("index"), e.MD.From, e.MD.Until)
			}
			for _, c := range lentries {
				if c.MD.Datetime < ldoc.MD.From || c.MD.Datetime > ldoc.MD.Until {
					t.Errorf("%s: a change at %s outside its list", name, c.MD.Datetime)
				}
			}
			changes = append(changes, lentries...)
		}
	}
	for i, c := range changes {
		if i > 0 && c.MD.Datetime < changes[i-1].MD.Datetime {
			t.Errorf("changes out of order: %s after %s", c.MD.Datetime, changes[i-1].MD.Datetime)
		}
		if c.MD.Datetime < doc.MD.From {
			t.Errorf("a change at %s, before changelist.xml's from %s", c.MD.Datetime, doc.MD.From)
		}
		// rsgen's changes of one build are after the snapshot before it, so
		// what follows the last change applied is new.
		if c.MD.Datetime > f.lastDT {
			f.applied = append(f.applied, c.MD.Change+" "+strings.TrimPrefix(c.Loc, acBase))
			f.lastDT = c.MD.Datetime
		}
	}
	f.seenTo = rsxml.FormatTime(at)
	return doc.Index
}

// Across builds, changelist.xml stays one URL that a Destination polls:
// one plain Change List while the changes kept fit one document, the
// Change List Index past the limits (--max-entries 4 here), a plain list
// again once --changes-keep drops enough. A follower that polls it after
// every build applies every change, in order, without a gap; lists named
// by their until are published only while the index lists them, and never
// change while they are.
func TestChangeListTurnsIntoAnIndexAndBack(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	steps := []struct {
		at      time.Time
		keep    time.Duration
		mutate  func()
		changes []string // what the build changed
		from    string   // changelist.xml's: the history kept starts there
		index   bool     // changelist.xml is an index
		lists   []string // the changelist-*.xml published
	}{
		{at: acDay(2), from: "2024-06-01T00:00:00Z", mutate: func() {
			tr.write("n1.txt", "one", acTime("2024-06-01T01:00:00Z"))
			tr.write("n2.txt", "two", acTime("2024-06-01T02:00:00Z"))
		}, changes: []string{"created n1.txt", "created n2.txt"}},
		{at: acDay(3), from: "2024-06-01T00:00:00Z", mutate: func() { tr.write("a.txt", "alpha 2", acTime("2024-06-02T01:00:00Z")) },
			changes: []string{"updated a.txt"}},
		// 3 kept + 3 new > 4: an index over a list of the 3 changes the open
		// list held, up to the previous snapshot, and this build's list.
		{at: acDay(4), from: "2024-06-01T00:00:00Z", mutate: func() {
			tr.write("n3.txt", "three", acTime("2024-06-03T01:00:00Z"))
			tr.write("a.txt", "alpha 3", acTime("2024-06-03T02:00:00Z"))
			tr.remove("n1.txt")
		}, changes: []string{"created n3.txt", "updated a.txt", "deleted n1.txt"}, index: true, lists: []string{"changelist-20240603T000000Z.xml", "changelist-20240604T000000Z.xml"}},
		// Nothing changed: the same index.
		{at: acDay(5), from: "2024-06-01T00:00:00Z", index: true, lists: []string{"changelist-20240603T000000Z.xml", "changelist-20240604T000000Z.xml"}},
		{at: acDay(6), from: "2024-06-01T00:00:00Z", mutate: func() { tr.write("n2.txt", "two 2", acTime("2024-06-05T01:00:00Z")) },
			changes: []string{"updated n2.txt"}, index: true, lists: []string{"changelist-20240603T000000Z.xml", "changelist-20240604T000000Z.xml", "changelist-20240606T000000Z.xml"}},
		// A build of more changes than one list holds: parts.
		{at: acDay(7), from: "2024-06-03T00:00:00Z", mutate: func() {
			for i, n := range []string{"p1", "p2", "p3", "p4", "p5"} {
				tr.write(n+".txt", n, acDay(6).Add(time.Duration(i+1)*time.Hour))
			}
		}, changes: []string{"created p1.txt", "created p2.txt", "created p3.txt", "created p4.txt", "created p5.txt"},
			// The index too holds 4 entries at most: the oldest list goes.
			index: true, lists: []string{"changelist-20240604T000000Z.xml", "changelist-20240606T000000Z.xml",
				"changelist-20240607T000000Z-00001.xml", "changelist-20240607T000000Z-00002.xml"}},
		// --changes-keep 2d at day 10 drops everything before day 8: one
		// change is left, and changelist.xml is plain again.
		{at: acDay(10), from: "2024-06-07T00:00:00Z", keep: 2 * 24 * time.Hour, mutate: func() { tr.write("n3.txt", "three 2", acTime("2024-06-09T01:00:00Z")) },
			changes: []string{"updated n3.txt"}},
		{at: acDay(11), from: "2024-06-07T00:00:00Z", mutate: func() { tr.remove("p1.txt") }, changes: []string{"deleted p1.txt"}},
		// Quiet for longer than --changes-keep: changelist.xml stays, as it
		// was, rather than vanish from under the Destinations that poll it.
		{at: acDay(25), from: "2024-06-07T00:00:00Z", keep: 2 * 24 * time.Hour},
	}
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	var follower acFollower
	var want []string // every change, in order, as the follower should apply them
	prev := testenv.ReadTree(t, out)
	for i, s := range steps {
		if s.mutate != nil {
			s.mutate()
		}
		cfg := acConfig(tr.dir, out, s.at)
		cfg.Changes.Previous = out
		cfg.Limits.MaxEntries = 4
		if s.keep != 0 {
			cfg.Changes.Keep = units.Duration(s.keep)
		}
		var notices []string
		cfg.Notice = func(msg string) { notices = append(notices, msg) }
		rep := mustBuild(t, cfg)
		if warned := slices.ContainsFunc(notices, func(n string) bool { return strings.Contains(n, "resync 2.0.1 cannot read") }); warned != s.index {
			t.Errorf("build %d: notices %q", i+2, notices)
		}
		doc, entries := testenv.ReadDoc(t, filepath.Join(out, docsDir, changelists.IndexName))
		if doc.MD.From != s.from {
			t.Errorf("build %d: changelist.xml from %s, want %s", i+2, doc.MD.From, s.from)
		}
		if doc.Index != s.index {
			t.Errorf("build %d: changelist.xml index=%v, want %v", i+2, doc.Index, s.index)
		}
		if got := acChangeListFiles(t, out); !slices.Equal(got, s.lists) && !(len(got) == 0 && len(s.lists) == 0) {
			t.Errorf("build %d: lists %q, want %q", i+2, got, s.lists)
		}
		if !s.index && rep.Changes.Lists != 1 || s.index && rep.Changes.Lists != len(entries) {
			t.Errorf("build %d: %d lists reported", i+2, rep.Changes.Lists)
		}
		// A list that stays published never changes.
		after := testenv.ReadTree(t, out)
		for name, content := range after {
			if old, ok := prev[name]; ok && strings.HasPrefix(name, docsDir+"/changelist-") && old != content {
				t.Errorf("build %d rewrote %s", i+2, name)
			}
		}
		prev = after
		follower.poll(t, out, s.at)
		acValidate(t, out)
		want = append(want, s.changes...)
	}
	if !slices.Equal(follower.applied, want) {
		t.Errorf("the follower applied\n  %s\nwant\n  %s", strings.Join(follower.applied, "\n  "), strings.Join(want, "\n  "))
	}
}
