package notify

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

func testSite() *Site {
	return &Site{
		CapabilityList: "https://example.org/rs/capabilitylist.xml",
		At:             "2024-06-02T00:00:00Z",
		Documents: []Document{
			{URL: "https://example.org/.well-known/resourcesync", Capability: "description", Hash: "sha-256:1"},
			{URL: "https://example.org/rs/capabilitylist.xml", Capability: "capabilitylist", Hash: "sha-256:2"},
			{URL: "https://example.org/rs/resourcelist-00001.xml", Capability: "resourcelist", Index: "https://example.org/rs/resourcelist.xml", Hash: "sha-256:3"},
		},
		Changes: []rsxml.Entry{
			{Loc: "https://example.org/a", MD: rsxml.MD{Change: "created", Datetime: "2024-06-01T00:00:00Z"}},
			{Loc: "https://example.org/b", MD: rsxml.MD{Change: "deleted", Datetime: "2024-06-02T00:00:00Z"}},
		},
	}
}

func locs(es []rsxml.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.MD.Change+" "+e.Loc)
	}
	return out
}

func TestPlan(t *testing.T) {
	t.Parallel()
	s := testSite()
	t.Run("first run", func(t *testing.T) {
		n := plan(s, nil, time.Time{})
		if got := locs(n.Changes); len(got) != 1 || got[0] != "deleted https://example.org/b" {
			t.Errorf("changes %v, want only those of the last build", got)
		}
		if len(n.Framework) != 3 || n.Framework[2].Link("index") != "https://example.org/rs/resourcelist.xml" || n.Framework[0].MD.Change != "created" {
			t.Errorf("framework %+v", n.Framework)
		}
	})
	t.Run("since", func(t *testing.T) {
		n := plan(s, nil, time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC))
		if len(n.Changes) != 2 {
			t.Errorf("changes %v", locs(n.Changes))
		}
	})
	t.Run("state", func(t *testing.T) {
		st := newState(s)
		n := plan(s, st, time.Time{})
		if len(n.Changes) != 0 || len(n.Framework) != 0 {
			t.Fatalf("nothing changed, yet %v and %v", locs(n.Changes), locs(n.Framework))
		}
		s2 := testSite()
		s2.Documents[1].Hash = "sha-256:new"
		s2.Documents = append(s2.Documents[:2], Document{URL: "https://example.org/rs/changelist.xml", Capability: "changelist", Hash: "sha-256:4"})
		s2.Changes = append(s2.Changes, rsxml.Entry{Loc: "https://example.org/c", MD: rsxml.MD{Change: "updated", Datetime: "2024-06-03T00:00:00Z"}})
		n = plan(s2, st, time.Time{})
		if got := locs(n.Changes); len(got) != 1 || got[0] != "updated https://example.org/c" {
			t.Errorf("changes %v", got)
		}
		want := []string{"updated https://example.org/rs/capabilitylist.xml", "created https://example.org/rs/changelist.xml", "deleted https://example.org/rs/resourcelist-00001.xml"}
		if got := locs(n.Framework); len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Errorf("framework %v, want %v", got, want)
		}
		if d := n.Framework[2]; d.MD.Capability != "resourcelist" || d.Link("index") == "" {
			t.Errorf("the deleted document lost its capability or index: %+v", d)
		}
	})
}

// A state written when the site had no change yet: the changes of every
// build since count, not only those of the last one.
func TestPlanAfterBuildsWithoutChanges(t *testing.T) {
	t.Parallel()
	s := testSite()
	s.Changes = nil
	s.At = "2024-05-30T00:00:00Z"
	st := newState(s)
	if st.ChangesUntil != "" {
		t.Fatalf("changes_until %q with no change", st.ChangesUntil)
	}
	n := plan(testSite(), st, time.Time{})
	if got := locs(n.Changes); len(got) != 2 {
		t.Errorf("changes %v, want both builds' since 2024-05-30", got)
	}
}

func TestStateRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	if st, err := loadState(path); st != nil || err != nil {
		t.Fatalf("a missing file: %v, %v", st, err)
	}
	st := newState(testSite())
	if err := st.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := loadState(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.ChangesUntil != "2024-06-02T00:00:00Z" || len(got.Documents) != 3 {
		t.Errorf("read back %+v", got)
	}
}

// TestStateThroughLink: a state file kept behind a symbolic link stays
// behind it, the file it leads to updated; a link to nothing, or to a
// file that is not a state file (one planted to have it overwritten), is
// refused and what it leads to is left as it was.
func TestStateThroughLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	real, link := filepath.Join(dir, "real.json"), filepath.Join(dir, "state.json")
	st := newState(testSite())
	if err := st.Save(real); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	st.ChangesUntil = "2024-06-03T00:00:00Z"
	if err := st.Save(link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi, err)
	}
	if got, err := loadState(real); err != nil || got.ChangesUntil != "2024-06-03T00:00:00Z" {
		t.Errorf("the file the link leads to: %+v, %v", got, err)
	}
	victim := filepath.Join(dir, "authorized_keys")
	os.WriteFile(victim, []byte("a key"), 0o600)
	for _, to := range []string{victim, filepath.Join(dir, "missing")} {
		os.Remove(link)
		os.Symlink(to, link)
		if err := st.Save(link); err == nil {
			t.Errorf("saved through a link to %s", to)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "a key" {
		t.Errorf("written through the link: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); err == nil {
		t.Error("created where a dangling link leads")
	}
}
