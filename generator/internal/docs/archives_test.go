package docs

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
)

func day(d int) time.Time { return time.Date(2024, 6, d, 0, 0, 0, 0, time.UTC) }

// archiveOf is an archive of Resource Lists taken on the days given, as
// rsgen names them.
func archiveOf(days ...int) *previous.Archive {
	a := &previous.Archive{URL: "https://example.org/resourcesync/resourcelist-archive.xml"}
	for _, d := range days {
		rel := "resourcesync/archive/resourcelist-" + Stamp(day(d)) + ".xml"
		a.Lists = append(a.Lists, previous.ArchivedList{URL: "https://example.org/" + rel, Rel: rel, At: day(d)})
	}
	return a
}

// An archive of snapshots keeps those taken within keep, and takes this
// build's when the newest is every old or more; with every 0, or a first
// build, there is none.
func TestPlanSnapshots(t *testing.T) {
	t.Parallel()
	d := &Writer{Base: "https://example.org/", Dir: "resourcesync", Limits: listwriter.Limits{MaxEntries: rsxml.MaxEntries, MaxBytes: rsxml.MaxBytes}}
	var notices []string
	notice := func(m string) { notices = append(notices, m) }
	plan := func(prev *previous.Archive, every, keep time.Duration, at int) *SnapshotPlan {
		t.Helper()
		p, err := PlanSnapshots(d, prev, true, every, keep, day(at), "Resource List", "resourcelist", notice)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	const dd = 24 * time.Hour
	if p := plan(archiveOf(1, 3), 2*dd, 2*dd, 4); p == nil || p.Fresh || len(p.Carried) != 1 || p.Carried[0].Name != "archive/resourcelist-20240603T000000Z.xml" {
		t.Errorf("day 4, every 2 days, kept 2 days: %+v", p)
	}
	if p := plan(archiveOf(1, 3), 2*dd, 10*dd, 5); p == nil || !p.Fresh || len(p.Carried) != 2 {
		t.Errorf("day 5: %+v", p)
	}
	if p := plan(nil, 2*dd, 10*dd, 5); p == nil || !p.Fresh || len(p.Carried) != 0 {
		t.Errorf("no archive yet: %+v", p)
	}
	notices = nil
	if p := plan(archiveOf(1, 3), 0, 10*dd, 5); p != nil || len(notices) != 1 || !strings.Contains(notices[0], "no longer published") {
		t.Errorf("every 0: %+v, notices %q", p, notices)
	}
	if p, _ := PlanSnapshots(d, nil, false, dd, dd, day(5), "Resource List", "resourcelist", notice); p != nil {
		t.Errorf("a first build: %+v", p)
	}
	// A snapshot not named by its at (named otherwise, or taken at another
	// time than its name says: once a case of generator's
	// TestResourceListArchiveRefused) was not archived by rsgen.
	bad := archiveOf(3)
	bad.Lists[0].Rel = "resourcesync/archive/other.xml"
	if _, err := PlanSnapshots(d, bad, true, dd, 10*dd, day(5), "Resource List", "resourcelist", notice); !errors.Is(err, ErrPrevious) {
		t.Errorf("a snapshot named otherwise: %v, want ErrPrevious", err)
	}
	bad = archiveOf(3)
	bad.Lists[0].At = day(3).Add(-time.Hour)
	if _, err := PlanSnapshots(d, bad, true, dd, 10*dd, day(5), "Resource List", "resourcelist", notice); !errors.Is(err, ErrPrevious) || !strings.Contains(err.Error(), "which is not where rsgen archives a Resource List") {
		t.Errorf("a snapshot taken at another time than its name says: %v, want ErrPrevious", err)
	}
}
