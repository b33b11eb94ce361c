package rules

import (
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// Each rule says "" for what it allows and its wording for what it does
// not, at each edge of what it judges.
func TestRules(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	year1 := time.Time{}
	order := &Order{}
	cases := []struct {
		rule, got, want string // want: "" or a part of the wording
	}{
		{"root-md none", RootMD(0), "has no <rs:md>"},
		{"root-md one", RootMD(1), ""},
		{"root-md two", RootMD(2), "2 <rs:md> elements"},
		{"md-repeat one", MDRepeat(1), ""},
		{"md-repeat two", MDRepeat(2), "at most one"},
		{"not-index caplist", NotIndex(rsxml.CapCapabilityList, true), "is a <urlset>"},
		{"not-index resourcelist", NotIndex(rsxml.CapResourceList, true), ""},
		{"not-index urlset", NotIndex(rsxml.CapCapabilityList, false), ""},
		{"change missing", Change("https://e.org/a", "", "Change List"), "no change attribute"},
		{"change created", Change("https://e.org/a", rsxml.ChangeCreated, "Change List"), ""},
		{"change bogus", Change("https://e.org/a", "moved", "Change List"), `change="moved"`},
		{"root times at", RootTimes(rsxml.CapResourceList, false, &rsxml.MD{}), "needs at"},
		{"root times at given", RootTimes(rsxml.CapResourceList, false, &rsxml.MD{At: "2026-01-02"}), ""},
		{"root times from", RootTimes(rsxml.CapChangeList, false, &rsxml.MD{}), "needs from"},
		{"interval ordered", Interval("a", "b", t0, t0.Add(time.Hour)), ""},
		{"interval equal", Interval("a", "a", t0, t0), ""},
		{"interval reversed", Interval("b", "a", t0.Add(time.Hour), t0), "until=a is before from=b"},
		{"not before", NotBefore("v", t0, t0, "f"), ""},
		{"before", NotBefore("v", t0.Add(-time.Second), t0, "f"), "is before the document's from=f"},
		{"before year 1 is a bound", NotBefore("v", year1.Add(-time.Second), year1, "0001"), "before"},
		{"not after", NotAfter("v", t0, t0, "until=u"), ""},
		{"after", NotAfter("v", t0.Add(time.Second), t0, "the document's until=u"), "is after the document's until=u"},
		{"after year 1 is a bound", NotAfter("v", t0, year1, "until=0001"), "after"},
		{"archive entry at", ArchiveEntry(rsxml.CapResourceListArchive, "https://e.org/rl.xml", &rsxml.MD{}), "has no at"},
		{"archive entry at given", ArchiveEntry(rsxml.CapResourceListArchive, "https://e.org/rl.xml", &rsxml.MD{At: "x"}), ""},
		{"archive entry interval", ArchiveEntry(rsxml.CapChangeListArchive, "https://e.org/cl.xml", &rsxml.MD{From: "x"}), "lacks from or until"},
		{"order first", order.Next("datetime", "b", t0, 3), ""},
		{"order same", order.Next("datetime", "b", t0, 4), ""},
		{"order earlier", order.Next("datetime", "a", t0.Add(-time.Second), 5), "earlier than that of the entry on line 4"},
	}
	for _, c := range cases {
		if c.want == "" && c.got != "" || c.want != "" && !strings.Contains(c.got, c.want) {
			t.Errorf("%s: %q, want %q", c.rule, c.got, c.want)
		}
	}
}

func TestLength(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v    string
		n    int64
		want string
	}{
		{"0", 0, ""}, {" 42 ", 42, ""}, {"-1", -1, "negative"}, {"abc", 0, "not an integer"}, {"", 0, "not an integer"},
		{"99999999999999999999", 0, "not an integer"},
	} {
		n, msg := Length(c.v)
		if n != c.n || c.want == "" && msg != "" || c.want != "" && !strings.Contains(msg, c.want) {
			t.Errorf("Length(%q) = %d, %q; want %d, %q", c.v, n, msg, c.n, c.want)
		}
	}
}

// A Capability List lists each capability once, and only lists and dumps.
func TestCapListEntry(t *testing.T) {
	t.Parallel()
	seen := map[string]int{}
	if e, u := CapListEntry("https://e.org/rl.xml", rsxml.CapResourceList, 3, seen); e != "" || u != "" {
		t.Errorf("first resourcelist: %q %q", e, u)
	}
	if _, u := CapListEntry("https://e.org/rl2.xml", rsxml.CapResourceList, 4, seen); !strings.Contains(u, "first on line 3") {
		t.Errorf("second resourcelist: %q", u)
	}
	if e, _ := CapListEntry("https://e.org/d.xml", rsxml.CapDescription, 5, seen); !strings.Contains(e, "not a") {
		t.Errorf("description listed: %q", e)
	}
	if e, _ := CapListEntry("https://e.org/x.xml", "", 6, seen); !strings.Contains(e, "no <rs:md capability>") {
		t.Errorf("no capability: %q", e)
	}
}

func TestLastmod(t *testing.T) {
	t.Parallel()
	for in, ok := range map[string]bool{
		"2013-01-03": true, "2013-01-03T09:00:00Z": true, " 2013-01-03 ": true, "2013-01-03Z": false, "2013-01": false,
		"2013": false, "2013-1-3": false, "yesterday": false, "": false,
	} {
		if _, msg := Lastmod(in); (msg == "") != ok {
			t.Errorf("%q: valid %v, want %v (%s)", in, msg == "", ok, msg)
		}
	}
}
