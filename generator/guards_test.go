package generator

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/dumps"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/internal/testenv"
)

func TestParseDeleteLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want DeleteLimit
		bad  bool
	}{
		{in: "50%", want: DeleteLimit{N: 50, Percent: true}},
		{in: "0%", want: DeleteLimit{N: 0, Percent: true}},
		{in: "100%", want: DeleteLimit{N: 100, Percent: true}},
		{in: "0", want: DeleteLimit{N: 0}},
		{in: "250", want: DeleteLimit{N: 250}},
		{in: "all", want: DeleteLimit{N: -1}},
		{in: "-1", want: DeleteLimit{N: -1}},
		{in: "101%", bad: true},
		{in: "-2", bad: true},
		{in: "+3", bad: true},
		{in: "%", bad: true},
		{in: "half", bad: true},
		{in: "", bad: true},
	} {
		got, err := ParseDeleteLimit(tc.in)
		if tc.bad != (err != nil) || !tc.bad && got != tc.want {
			t.Errorf("ParseDeleteLimit(%q) = %+v, %v", tc.in, got, err)
		}
		if !tc.bad && tc.in != "-1" && got.String() != tc.in {
			t.Errorf("%+v.String() = %q, want %q", got, got.String(), tc.in)
		}
	}
}

func TestDeleteLimitAllows(t *testing.T) {
	t.Parallel()
	half := DefaultDeleteLimit
	for _, tc := range []struct {
		limit          DeleteLimit
		deleted, total int
		want           bool
	}{
		{half, 0, 0, true},
		{half, 1, 2, true},
		{half, 2, 2, true},   // a small site: up to minPercentDeletes always
		{half, 5, 6, true},   // still small
		{half, 6, 12, true},  // exactly half
		{half, 7, 12, false}, // more than half
		{half, 501, 1000, false},
		{DeleteLimit{N: 10, Percent: true}, 5, 20, true},  // 25%, but no more than minPercentDeletes
		{DeleteLimit{N: 10, Percent: true}, 6, 20, false}, // 30%
		{DeleteLimit{N: 0}, 1, 1000, false},
		{DeleteLimit{N: 0}, 0, 1000, true},
		{DeleteLimit{N: 3}, 3, 3, true},
		{DeleteLimit{N: 3}, 4, 1000, false},
		{DeleteLimit{N: -1}, 1000, 1000, true},
	} {
		if got := tc.limit.allows(tc.deleted, tc.total); got != tc.want {
			t.Errorf("%s allows %d of %d: %v, want %v", tc.limit, tc.deleted, tc.total, got, tc.want)
		}
	}
}

// gdFiles are n files, f00.txt …
func gdFiles(n int) map[string]string {
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("f%02d.txt", i)] = fmt.Sprintf("file %d", i)
	}
	return files
}

// TestMassDelete: a build that deletes more than half of what was
// published is refused, and nothing changes; a higher limit lets it
// through.
func TestMassDelete(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, gdFiles(12), acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	before := testenv.ReadTree(t, out)
	for i := range 7 {
		tr.remove(fmt.Sprintf("f%02d.txt", i))
	}
	cfg := acConfig(tr.dir, out, acDay(2))
	cfg.Changes.Previous = out
	var mde *Error
	_, err := Build(t.Context(), cfg)
	if !errors.As(err, &mde) || mde.Kind != KindMassDelete || mde.N != 7 {
		t.Fatalf("error %v, want a MassDeleteError of 7 of 12", err)
	}
	if want := "this build would delete 7 of the 12 resources published before (58%), more than the limit of 50%; nothing was published"; err.Error() != want {
		t.Errorf("error %q\nwant  %q", err, want)
	}
	sameFiles(t, "after a refused build", testenv.ReadTree(t, out), before)

	cfg.MaxDelete = &DeleteLimit{N: 6}
	if _, err := Build(t.Context(), cfg); !errors.As(err, &mde) || mde.Kind != KindMassDelete || !strings.Contains(err.Error(), "more than the limit of 6;") {
		t.Fatalf("a count of 6: error %v", err)
	}
	sameFiles(t, "after a refused build", testenv.ReadTree(t, out), before)
	cfg.MaxDelete = &DeleteLimit{N: 7}
	if rep := mustBuild(t, cfg); rep.Changes.Deleted != 7 {
		t.Errorf("%d deleted", rep.Changes.Deleted)
	}
}

// TestEmptySourceWithPrevious: an empty source would make every
// Destination delete everything: refused; allowed on purpose, it deletes
// everything without a limit on deletions to lift too.
func TestEmptySourceWithPrevious(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, gdFiles(12), acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	before := testenv.ReadTree(t, out)
	for name := range gdFiles(12) {
		tr.remove(name)
	}
	cfg := acConfig(tr.dir, out, acDay(2))
	cfg.Changes.Previous = out
	if _, err := Build(t.Context(), cfg); kindOf(err) != KindEmptySource {
		t.Fatalf("error %v, want KindEmptySource", err)
	}
	sameFiles(t, "after a refused build", testenv.ReadTree(t, out), before)
	cfg.AllowEmpty = true
	if rep := mustBuild(t, cfg); rep.Files != 0 || rep.Changes.Deleted != 12 {
		t.Errorf("%d files, %d deleted", rep.Files, rep.Changes.Deleted)
	}
	// Not validated: an empty Resource List, which section 7 allows, fails the official schema.
}

// TestDumpDropped: a build that would no longer publish the dump the
// previous build published is refused, unless told to drop it.
func TestDumpDropped(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	cfg := acConfig(tr.dir, out, acDay(1))
	cfg.Dump.Enabled = true
	mustBuild(t, cfg)
	tr.write("new.txt", "new", acTime("2024-06-01T12:00:00Z"))
	cfg = acDumpConfig(tr.dir, out, acDay(2)) // the Change Dump, not the Resource Dump
	before := testenv.ReadTree(t, out)
	var dde *Error
	if _, err := Build(t.Context(), cfg); !errors.As(err, &dde) || dde.Kind != KindDropped || dde.Capability != rsxml.CapResourceDump {
		t.Fatalf("error %v, want the Resource Dump dropped", err)
	}
	sameFiles(t, "after a refused build", testenv.ReadTree(t, out), before)
	cfg.Changes.Drop = []string{"resourcedump"}
	mustBuild(t, cfg)

	tr.write("new2.txt", "newer", acTime("2024-06-02T12:00:00Z"))
	cfg = acConfig(tr.dir, out, acDay(3))
	cfg.Changes.Previous = out
	before = testenv.ReadTree(t, out)
	if _, err := Build(t.Context(), cfg); !errors.As(err, &dde) || dde.Kind != KindDropped || dde.Capability != rsxml.CapChangeDump ||
		!strings.Contains(err.Error(), "the previous build published a Change Dump, and with it the changes its packages carry, which this build would delete") {
		t.Fatalf("error %v, want the Change Dump dropped", err)
	}
	sameFiles(t, "after a refused build", testenv.ReadTree(t, out), before)
	cfg.Changes.Drop = []string{"changedump"}
	mustBuild(t, cfg)
	if _, err := os.Stat(filepath.Join(out, docsDir, dumps.ChangeDumpName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the Change Dump: %v, want it dropped", err)
	}
}

// TestBuildsInTheSameSecond: without a fixed time, a build whose clock is
// not past the previous build's snapshot time takes the second after it.
func TestBuildsInTheSameSecond(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	clock := acTime("2024-06-02T10:00:00Z")
	cfg := acConfig(tr.dir, out, time.Time{})
	cfg.FixedTime = false
	cfg.now = func() time.Time { return clock.Add(400 * time.Millisecond) }
	mustBuild(t, cfg)
	cfg.Changes.Previous = out
	for i, want := range []string{"2024-06-02T10:00:01Z", "2024-06-02T10:00:02Z"} {
		tr.write(fmt.Sprintf("new%d.txt", i), "new", acTime("2024-06-02T09:00:00Z"))
		var notices []string
		cfg.Notice = func(msg string) { notices = append(notices, msg) }
		rep := mustBuild(t, cfg)
		if rep.Changes.Created != 1 {
			t.Errorf("build %d: %+v", i+2, rep.Changes)
		}
		rl, _ := testenv.ReadDoc(t, filepath.Join(out, docsDir, "resourcelist.xml"))
		if rl.MD.At != want || rl.MD.Completed != want {
			t.Errorf("build %d: at %s, completed %s, want %s", i+2, rl.MD.At, rl.MD.Completed, want)
		}
		// changelist.xml is the open list of every change kept: this
		// build's change is its last entry, at this build's time.
		cl, entries := testenv.ReadDoc(t, filepath.Join(out, docsDir, "changelist.xml"))
		if cl.Index || cl.MD.Until != "" || len(entries) != i+1 || entries[i].MD.Datetime != want {
			t.Errorf("build %d: index %v, until %q, %d entries, want an open list of %d ending at %s", i+2, cl.Index, cl.MD.Until, len(entries), i+1, want)
		}
		if len(notices) != 1 || !strings.Contains(notices[0], "this build's is "+want+", a second after it") {
			t.Errorf("build %d: notices %q", i+2, notices)
		}
		// The manifest records the snapshot published, which the next
		// build must not be older than.
		if at, err := stage.PublishedAt(filepath.Join(out, docsDir)); err != nil || rsxml.FormatTime(at) != want {
			t.Errorf("build %d: manifest at %v, %v, want at %s", i+2, at, err, want)
		}
	}
	// Without --previous, a build at the clock is older than the snapshot
	// published: refused.
	noPrev := cfg
	noPrev.Changes.Previous = ""
	noPrev.Notice = nil
	if _, err := Build(t.Context(), noPrev); !errors.Is(err, stage.ErrOlderSnapshot) {
		t.Errorf("a build at the clock without --previous: %v, want stage.ErrOlderSnapshot", err)
	}
	acValidate(t, out)

	// A clock far behind the previous build is not two builds in a second.
	before := testenv.ReadTree(t, out)
	cfg.now = func() time.Time { return clock.Add(-time.Hour) }
	if _, err := Build(t.Context(), cfg); !errors.Is(err, errPrevious) || !strings.Contains(err.Error(), "later than the clock") {
		t.Errorf("error %v", err)
	}
	sameFiles(t, "after a refused build", testenv.ReadTree(t, out), before)
}

// TestZeroSnapshotTime: a fixed snapshot time of zero is not taken for
// no time given.
func TestZeroSnapshotTime(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	cfg := acConfig(tr.dir, t.TempDir(), time.Time{})
	if _, err := Build(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "0001-01-01T00:00:00Z is out of range") {
		t.Errorf("error %v", err)
	}
}

// TestExportEmpty: an export with no records is refused as an empty tree
// is, and allowed the same way.
func TestExportEmpty(t *testing.T) {
	t.Parallel()
	export := writeExport(t, "empty.jsonl", "")
	cfg := exportCfg(t, export)
	_, err := Build(t.Context(), cfg)
	if kindOf(err) != KindEmptySource || err.Error() != "nothing to publish: the record export "+export+" holds no records; nothing was published" {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat(cfg.Out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output after a refused build: %v", err)
	}
	cfg.AllowEmpty = true
	if rep := mustBuild(t, cfg); rep.Files != 0 || rep.Export.ChangeList {
		t.Errorf("%d listed, change list %v", rep.Files, rep.Export.ChangeList)
	}
}

// TestExportAllBadSkipped: an export whose every record is bad, skipped,
// has nothing to publish either: it does not replace the published
// Resource List with an empty one unless that is allowed.
func TestExportAllBadSkipped(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	good := exportCfg(t, writeExport(t, "good.jsonl", `{"loc":"r/1","lastmod":"2026-11-20T00:00:00Z"}`+"\n"))
	good.Out = out
	mustBuild(t, good)
	before := testenv.Snapshot(t, out)

	cfg := exportCfg(t, writeExport(t, "bad.jsonl", `{"loc":"r/1","lastmod":"bad"}`+"\n"+`{"loc":"r/2","lastmod":"worse"}`+"\n"))
	cfg.Out, cfg.SkipBadRecords = out, true
	_, err := Build(t.Context(), cfg)
	if kindOf(err) != KindEmptySource || !strings.Contains(err.Error(), "is bad (2, skipped)") {
		t.Fatalf("error %v, want KindEmptySource naming the bad records", err)
	}
	testenv.SameSnapshot(t, "after the refused build", testenv.Snapshot(t, out), before)
	cfg.AllowEmpty = true
	if rep := mustBuild(t, cfg); rep.Files != 0 || len(rep.Problems) != 2 {
		t.Errorf("%d listed, %d problems; want 0 and the 2 bad records", rep.Files, len(rep.Problems))
	}
}

// TestExportEmptyWindow: nothing in the window publishes no Change List,
// as a tree with nothing changed does: an empty one is invalid against
// the schema.
func TestExportEmptyWindow(t *testing.T) {
	t.Parallel()
	export := writeExport(t, "old.jsonl", `{"loc":"a.html","lastmod":"2020-01-01T00:00:00Z"}`+"\n")
	cfg := exportCfg(t, export)
	rep := mustBuild(t, cfg)
	if rep.Export.ChangeList || !rep.Export.NoChanges || rep.Files != 1 {
		t.Errorf("change list %v, no changes %v, %d listed", rep.Export.ChangeList, rep.Export.NoChanges, rep.Files)
	}
	if _, err := os.Stat(filepath.Join(cfg.Out, docsDir, "changelist.xml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("changelist.xml: %v, want none", err)
	}
	for _, c := range acCapabilities(t, cfg.Out) {
		if c == rsxml.CapChangeList {
			t.Errorf("capabilities %q", acCapabilities(t, cfg.Out))
		}
	}
}
