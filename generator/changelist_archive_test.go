package generator

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/archives"
	"github.com/rsgen/rsgen/generator/internal/changelists"
	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/dumps"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/internal/text/units"
)

// archiveOf returns the lists the Change List Archive of out lists, as
// "from until name" lines, or nil if out has none.
func archiveOf(t *testing.T, out string) []string {
	t.Helper()
	return archivedIn(t, out, changelists.ArchiveName, rsxml.CapChangeListArchive, func(md *rsxml.MD) string { return md.From + " " + md.Until })
}

// archivedIn returns what the archive name of out lists, as lines of its
// entries' times (times) and their names under docsDir, or nil if out has
// none.
func archivedIn(t *testing.T, out, name, capability string, times func(md *rsxml.MD) string) []string {
	t.Helper()
	p := filepath.Join(out, docsDir, name)
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	doc, entries := testenv.ReadDoc(t, p)
	if doc.Index || doc.MD.Capability != capability {
		t.Fatalf("%s: capability %q (index %v)", p, doc.MD.Capability, doc.Index)
	}
	lines := []string{}
	for _, e := range entries {
		lines = append(lines, times(&e.MD)+" "+strings.TrimPrefix(e.Loc, acBase+docsDir+"/"))
	}
	return lines
}

func archiveConfig(src, out, prev string, at time.Time, keep time.Duration) Config {
	cfg := acConfig(src, out, at)
	cfg.Changes.Previous, cfg.Changes.Archive.Keep = prev, units.Duration(keep)
	return cfg
}

// Each build that finds changes archives them as a closed Change List;
// the archive lists them oldest first without a gap, builds that found
// nothing included, and carries them forward byte for byte.
func TestChangeListArchive(t *testing.T) {
	t.Parallel()
	const year = 365 * 24 * time.Hour
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))

	tr.write("a.txt", "alpha 2", acTime("2024-06-01T12:00:00Z"))
	mustBuild(t, archiveConfig(tr.dir, out, out, acDay(2), year))
	first := testenv.ReadTree(t, out)["resourcesync/archive/changelist-20240602T000000Z.xml"]
	mustBuild(t, archiveConfig(tr.dir, out, out, acDay(3), year)) // nothing changed
	tr.remove("b.txt")
	rep := mustBuild(t, archiveConfig(tr.dir, out, out, acDay(4), year))

	want := []string{
		"2024-06-01T00:00:00Z 2024-06-02T00:00:00Z archive/changelist-20240602T000000Z.xml",
		"2024-06-02T00:00:00Z 2024-06-04T00:00:00Z archive/changelist-20240604T000000Z.xml",
	}
	if got := archiveOf(t, out); !slices.Equal(got, want) {
		t.Errorf("the archive lists\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rep.Changes.Archived != 2 {
		t.Errorf("report: %d archived, want 2", rep.Changes.Archived)
	}
	files := testenv.ReadTree(t, out)
	if got := files["resourcesync/archive/changelist-20240602T000000Z.xml"]; first == "" || got != first {
		t.Errorf("the archived list of the second build, carried forward:\n%s\nwas:\n%s", got, first)
	}
	doc, entries := testenv.ReadDoc(t, filepath.Join(out, docsDir, "archive", "changelist-20240604T000000Z.xml"))
	if doc.MD.Until != "2024-06-04T00:00:00Z" || doc.Link("index") != "" || len(entries) != 1 || entries[0].MD.Change != rsxml.ChangeDeleted {
		t.Errorf("the archived list of the last build: %+v, %d entries", doc.MD, len(entries))
	}
	clDoc, _ := testenv.ReadDoc(t, filepath.Join(out, docsDir, changelists.IndexName))
	if got := clDoc.Link("archives"); got != acBase+docsDir+"/"+changelists.ArchiveName {
		t.Errorf("changelist.xml links rel=\"archives\" to %q", got)
	}
	if got := acCapabilities(t, out); !slices.Equal(got, []string{rsxml.CapResourceList, rsxml.CapChangeList, rsxml.CapChangeListArchive}) {
		t.Errorf("the Capability List lists %q", got)
	}
	acValidate(t, out)

	// A year later, the lists that ended more than Archive.Keep before are
	// dropped; the new one still starts where the archive ended.
	tr.write("c.txt", "gamma", acTime("2025-06-10T00:00:00Z"))
	late := time.Date(2025, 6, 11, 0, 0, 0, 0, time.UTC)
	mustBuild(t, archiveConfig(tr.dir, out, out, late, year))
	want = []string{"2024-06-04T00:00:00Z 2025-06-11T00:00:00Z archive/changelist-20250611T000000Z.xml"}
	if got := archiveOf(t, out); !slices.Equal(got, want) {
		t.Errorf("after a year, the archive lists\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := os.Stat(filepath.Join(out, docsDir, "archive", "changelist-20240602T000000Z.xml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a dropped archived list is still published: %v", err)
	}
	acValidate(t, out)
}

// A build that would no longer publish the archive is refused, and
// changes nothing, unless it drops the archive on purpose.
func TestChangeListArchiveDropped(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	tr.write("a.txt", "alpha 2", acTime("2024-06-01T12:00:00Z"))
	mustBuild(t, archiveConfig(tr.dir, out, out, acDay(2), 60*24*time.Hour))
	before := testenv.Snapshot(t, out)

	tr.write("new.txt", "new", acTime("2024-06-02T12:00:00Z"))
	_, err := Build(context.Background(), archiveConfig(tr.dir, out, out, acDay(3), 0))
	var ade *Error
	if !errors.As(err, &ade) || ade.Kind != KindDropped || ade.N != 1 {
		t.Fatalf("a build without the archive: %v, want an *ArchiveDroppedError of 1 list", err)
	}
	testenv.SameSnapshot(t, "after the refused build", testenv.Snapshot(t, out), before)

	cfg := archiveConfig(tr.dir, out, out, acDay(3), 0)
	cfg.Changes.Drop = []string{"changelist-archive"}
	mustBuild(t, cfg)
	if got := archiveOf(t, out); got != nil {
		t.Errorf("the archive dropped on purpose still lists %q", got)
	}
	if _, err := os.Stat(filepath.Join(out, docsDir, docs.ArchiveDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s/%s is still published: %v", docsDir, docs.ArchiveDir, err)
	}
	if doc, _ := testenv.ReadDoc(t, filepath.Join(out, docsDir, changelists.IndexName)); doc.Link("archives") != "" {
		t.Errorf("changelist.xml still links to the archive")
	}
	acValidate(t, out)
}

// The archive is carried forward from the live site as from its
// directory, to the same bytes; an archived list changed on the site
// after it was checked fails the build.
func TestChangeListArchiveOverHTTP(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	live := t.TempDir()
	srv := httptest.NewServer(http.FileServer(http.Dir(live)))
	defer srv.Close()
	base := srv.URL + "/"
	mustBuild(t, acServedConfig(t, tr.dir, live, base, acDay(1)))
	tr.write("a.txt", "alpha 2", acTime("2024-06-01T12:00:00Z"))
	cfg := acServedConfig(t, tr.dir, live, base, acDay(2))
	cfg.Changes.Previous, cfg.Changes.Archive.Keep = live, units.Duration(60*24*time.Hour)
	mustBuild(t, cfg)

	tr.remove("b.txt")
	fromURL, fromDir := t.TempDir(), t.TempDir()
	for _, c := range []struct{ out, prev string }{{fromURL, srv.URL}, {fromDir, live}} {
		cfg := acServedConfig(t, tr.dir, c.out, base, acDay(3))
		cfg.Changes.Previous, cfg.Changes.Archive.Keep = c.prev, units.Duration(60*24*time.Hour)
		if rep := mustBuild(t, cfg); rep.Changes.Archived != 2 {
			t.Errorf("from %s: %d lists archived, want 2", c.prev, rep.Changes.Archived)
		}
	}
	sameFiles(t, "from the URL and from the directory", testenv.ReadTree(t, fromURL), testenv.ReadTree(t, fromDir))
}

// An archive that would pass the limits of one document leaves out its
// oldest lists, with a notice, as the Change List Index does; a list that
// retention or --archive-keep 0 drops is not read, even if it is gone.
func TestChangeListArchiveFull(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	var notices []string
	build := func(day int, keep time.Duration) {
		t.Helper()
		tr.write("a.txt", fmt.Sprintf("alpha %d", day), acDay(day).Add(-time.Hour))
		cfg := archiveConfig(tr.dir, out, out, acDay(day), keep)
		cfg.Limits.MaxEntries = 3
		cfg.Notice = func(m string) { notices = append(notices, m) }
		mustBuild(t, cfg)
	}
	for day := 2; day <= 5; day++ {
		build(day, 365*24*time.Hour)
	}
	got := archiveOf(t, out)
	if len(got) != 3 || !strings.HasPrefix(got[0], "2024-06-02T00:00:00Z 2024-06-03T00:00:00Z ") {
		t.Errorf("a full archive lists\n%s\nwant the 3 newest", strings.Join(got, "\n"))
	}
	if !slices.ContainsFunc(notices, func(m string) bool {
		return strings.Contains(m, "can list no more: its 1 oldest Change List no longer published")
	}) {
		t.Errorf("no notice of the list left out: %q", notices)
	}
	acValidate(t, out)

	// The oldest list kept is gone from the output: a build that drops it
	// by retention does not need it.
	if err := os.Remove(filepath.Join(out, docsDir, "archive", "changelist-20240603T000000Z.xml")); err != nil {
		t.Fatal(err)
	}
	cfg := archiveConfig(tr.dir, out, out, acDay(34), 30*24*time.Hour)
	cfg.Limits.MaxEntries = 3
	tr.write("b.txt", "beta 34", acDay(33))
	mustBuild(t, cfg)
	if got := archiveOf(t, out); len(got) != 3 || strings.Contains(strings.Join(got, "\n"), "20240603") {
		t.Errorf("after retention the archive lists\n%s", strings.Join(got, "\n"))
	}
	// Nor does a build that drops the whole archive.
	if err := os.Remove(filepath.Join(out, docsDir, "archive", "changelist-20240604T000000Z.xml")); err != nil {
		t.Fatal(err)
	}
	cfg = archiveConfig(tr.dir, out, out, acDay(35), 0)
	cfg.Changes.Drop = []string{"changelist-archive"}
	mustBuild(t, cfg)
	if got := archiveOf(t, out); got != nil {
		t.Errorf("the archive dropped still lists %q", got)
	}
}

// A document of the previous build that is published again but fails
// validation is the previous build's fault, said so before the check of
// the stage would blame rsgen.
func TestCarriedInvalidIsThePreviousBuilds(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	tr.write("a.txt", "alpha 2", acTime("2024-06-01T12:00:00Z"))
	mustBuild(t, archiveConfig(tr.dir, out, out, acDay(2), 365*24*time.Hour))
	p := filepath.Join(out, docsDir, "archive", "changelist-20240602T000000Z.xml")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(b), `length="7"`, `length="-7"`, 1)
	if bad == string(b) {
		t.Fatalf("no length=\"7\" in\n%s", b)
	}
	if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	tr.write("new.txt", "new", acTime("2024-06-02T12:00:00Z"))
	_, err = Build(context.Background(), archiveConfig(tr.dir, out, out, acDay(3), 365*24*time.Hour))
	if kindOf(err) != KindPrevious || !strings.Contains(err.Error(), "to be published again, is not valid") || !strings.Contains(err.Error(), "changelist-20240602T000000Z.xml") {
		t.Fatalf("a carried list with a negative length: %v, want an *InvalidPreviousError naming it", err)
	}
}

// The S3 script uploads the archive before changelist.xml, which links to
// it: a Destination never follows a link to a document not there yet.
func TestChangeListArchiveUploadedFirst(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	tr.write("a.txt", "alpha 2", acTime("2024-06-01T12:00:00Z"))
	cfg := archiveConfig(tr.dir, out, out, acDay(2), 365*24*time.Hour)
	cfg.Hosts = []string{hosting.S3}
	mustBuild(t, cfg)
	b, err := os.ReadFile(filepath.Join(out, "resourcesync-s3.sh"))
	if err != nil {
		t.Fatal(err)
	}
	script := string(b)
	archive, list := strings.Index(script, "aws s3 cp resourcesync/changelist-archive.xml"), strings.Index(script, "aws s3 cp resourcesync/changelist.xml")
	if archive < 0 || list < 0 || archive > list {
		t.Errorf("the script uploads changelist.xml at %d, the archive at %d:\n%s", list, archive, script)
	}
}

// dumpArchiveOf returns what the Change Dump Archive of out lists, as
// "from until name" lines, or nil if out has none.
func dumpArchiveOf(t *testing.T, out string) []string {
	t.Helper()
	return archivedIn(t, out, archives.ChangeDumpArchiveName, rsxml.CapChangeDumpArchive, func(md *rsxml.MD) string { return md.From + " " + md.Until })
}

// With the Change Dump, each build that packages changes archives a
// Change Dump of its packages; the packages stay published while an
// archived dump lists them, after the Change Dump has let them go.
func TestChangeDumpArchive(t *testing.T) {
	t.Parallel()
	const year = 365 * 24 * time.Hour
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	build := func(at time.Time, out, prev string) {
		t.Helper()
		cfg := archiveConfig(tr.dir, out, prev, at, year)
		cfg.Changes.Dump = true
		mustBuild(t, cfg)
	}
	tr.write("a.txt", "alpha 2", acTime("2024-06-01T12:00:00Z"))
	build(acDay(2), out, out)
	build(acDay(3), out, out) // nothing changed
	tr.write("new.txt", "new", acTime("2024-06-03T12:00:00Z"))
	build(acDay(4), out, out)
	want := []string{
		"2024-06-01T00:00:00Z 2024-06-02T00:00:00Z archive/changedump-20240602T000000Z.xml",
		"2024-06-02T00:00:00Z 2024-06-04T00:00:00Z archive/changedump-20240604T000000Z.xml",
	}
	if got := dumpArchiveOf(t, out); !slices.Equal(got, want) {
		t.Errorf("the Change Dump Archive lists\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := acCapabilities(t, out); !slices.Equal(got, []string{rsxml.CapResourceList, rsxml.CapChangeList, rsxml.CapChangeDump, rsxml.CapChangeListArchive, rsxml.CapChangeDumpArchive}) {
		t.Errorf("the Capability List lists %q", got)
	}
	if doc, _ := testenv.ReadDoc(t, filepath.Join(out, docsDir, dumps.ChangeDumpName)); doc.Link("archives") != acBase+docsDir+"/"+archives.ChangeDumpArchiveName {
		t.Errorf("changedump.xml links rel=\"archives\" to %q", doc.Link("archives"))
	}
	acValidate(t, out)

	// Two months on, the Change Dump holds only the new package; the
	// archived dumps still list theirs, which are still published, from
	// the directory as from a fresh output.
	tr.write("late.txt", "late", acTime("2024-08-01T12:00:00Z"))
	late := time.Date(2024, 8, 2, 0, 0, 0, 0, time.UTC)
	fresh := t.TempDir()
	build(late, fresh, out)
	build(late, out, out)
	sameFiles(t, "into a fresh output and into the same", testenv.ReadTree(t, fresh), testenv.ReadTree(t, out))
	if _, entries := testenv.ReadDoc(t, filepath.Join(out, docsDir, dumps.ChangeDumpName)); len(entries) != 1 {
		t.Errorf("the Change Dump lists %d packages, want this build's", len(entries))
	}
	for _, name := range []string{"changedump-20240602T000000Z-00001.zip", "changedump-20240604T000000Z-00001.manifest.xml"} {
		if _, err := os.Stat(filepath.Join(out, docsDir, name)); err != nil {
			t.Errorf("%s, which an archived dump lists: %v", name, err)
		}
	}
	if got := dumpArchiveOf(t, out); len(got) != 3 || !strings.HasPrefix(got[2], "2024-06-04T00:00:00Z 2024-08-02T00:00:00Z ") {
		t.Errorf("the Change Dump Archive lists\n%s", strings.Join(got, "\n"))
	}
	acValidate(t, out)

	// Forty days later, nothing changed: the Change Dump has let every
	// package go, but the archive keeps them, and a build without the
	// Change Dump would drop it with them.
	quiet := late.Add(40 * 24 * time.Hour)
	build(quiet, out, out)
	if _, err := os.Stat(filepath.Join(out, docsDir, dumps.ChangeDumpName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("changedump.xml with every package expired: %v", err)
	}
	if got := dumpArchiveOf(t, out); len(got) != 3 {
		t.Errorf("the Change Dump Archive lists\n%s", strings.Join(got, "\n"))
	}
	acValidate(t, out)
	before := testenv.Snapshot(t, out)
	_, err := Build(context.Background(), archiveConfig(tr.dir, out, out, quiet.Add(time.Hour), year))
	var dde *Error
	if !errors.As(err, &dde) || dde.Kind != KindDropped {
		t.Errorf("a build without the Change Dump: %v, want a *DumpDroppedError", err)
	}
	testenv.SameSnapshot(t, "after the refused build", testenv.Snapshot(t, out), before)

	// A year after that, everything has gone: no archive, no package.
	cfg := archiveConfig(tr.dir, out, out, late.Add(2*year), year)
	cfg.Changes.Dump = true
	mustBuild(t, cfg)
	if got := dumpArchiveOf(t, out); got != nil {
		t.Errorf("after retention the archive lists %q", got)
	}
	if _, err := os.Stat(filepath.Join(out, docsDir, "changedump-20240602T000000Z-00001.zip")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a package no document lists is still published: %v", err)
	}
	acValidate(t, out)
}

// An archived dump must list a package as the Change Dump does: one that
// does not is the previous build's error, and nothing is published. (A
// package listed by two archived dumps is refused too, but the intervals
// of the dumps, which may not overlap, refuse it first.)
func TestChangeDumpArchiveDisagreement(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	build := func(day int) error {
		cfg := archiveConfig(tr.dir, out, out, acDay(day), 365*24*time.Hour)
		cfg.Changes.Dump = true
		_, err := Build(context.Background(), cfg)
		return err
	}
	tr.write("a.txt", "alpha 2", acTime("2024-06-01T12:00:00Z"))
	if err := build(2); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(out, docsDir, "archive", "changedump-20240602T000000Z.xml")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, regexp.MustCompile(`length="[0-9]+"`).ReplaceAll(b, []byte(`length="1"`)), 0o644); err != nil {
		t.Fatal(err)
	}
	before := testenv.Snapshot(t, out)
	tr.write("c.txt", "charlie", acTime("2024-06-02T12:00:00Z"))
	err = build(3)
	if !errors.Is(err, errPrevious) || !strings.Contains(err.Error(), "otherwise than the Change Dump") {
		t.Fatalf("build: %v, want the previous build's error", err)
	}
	testenv.SameSnapshot(t, "after the refused build", testenv.Snapshot(t, out), before)
}

// listArchiveOf returns what the Resource List Archive of out lists, as
// "at name" lines, or nil if out has none.
func listArchiveOf(t *testing.T, out string) []string {
	t.Helper()
	return archivedIn(t, out, archives.ResourceListArchiveName, rsxml.CapResourceListArchive, func(md *rsxml.MD) string { return md.At })
}

// The Resource List is archived whole, an index and its parts past the
// limits, when the newest archived one is old enough; archived lists are
// carried forward byte for byte, and dropped after Archive.Keep.
func TestResourceListArchive(t *testing.T) {
	t.Parallel()
	const day = 24 * time.Hour
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	build := func(at time.Time, out string) {
		t.Helper()
		cfg := archiveConfig(tr.dir, out, out, at, 60*day)
		cfg.Changes.Archive.ResourceLists = units.Duration(2 * day)
		cfg.Limits.MaxEntries = 2 // the archived lists are indexes over parts
		mustBuild(t, cfg)
	}
	build(acDay(2), out)
	first := testenv.ReadTree(t, out)
	for d := 3; d <= 5; d++ {
		build(acDay(d), out)
	}
	want := []string{"2024-06-02T00:00:00Z archive/resourcelist-20240602T000000Z.xml", "2024-06-04T00:00:00Z archive/resourcelist-20240604T000000Z.xml"}
	if got := listArchiveOf(t, out); !slices.Equal(got, want) {
		t.Errorf("the Resource List Archive lists\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	files := testenv.ReadTree(t, out)
	index := files["resourcesync/archive/resourcelist-20240602T000000Z.xml"]
	if !strings.Contains(index, "<sitemapindex") || files["resourcesync/archive/resourcelist-20240602T000000Z-00001.xml"] == "" {
		t.Errorf("the archived list is not an index over its parts:\n%s", index)
	}
	for name, content := range first {
		if strings.HasPrefix(name, "resourcesync/archive/resourcelist-") && files[name] != content {
			t.Errorf("%s changed when carried forward", name)
		}
	}
	if doc, _ := testenv.ReadDoc(t, filepath.Join(out, docsDir, "resourcelist.xml")); doc.Link("archives") != acBase+docsDir+"/"+archives.ResourceListArchiveName {
		t.Errorf("resourcelist.xml links rel=\"archives\" to %q", doc.Link("archives"))
	}
	if got := acCapabilities(t, out); !slices.Equal(got, []string{rsxml.CapResourceList, rsxml.CapResourceListArchive}) {
		t.Errorf("the Capability List lists %q", got) // no change: no Change List, nor its archive
	}
	acValidate(t, out)

	// Without the flag, the archive would be dropped: refused.
	before := testenv.Snapshot(t, out)
	_, err := Build(context.Background(), archiveConfig(tr.dir, out, out, acDay(6), 60*day))
	var ade *Error
	if !errors.As(err, &ade) || ade.Kind != KindDropped || ade.Capability != rsxml.CapResourceListArchive || ade.N != 2 {
		t.Fatalf("a build without Archive.ResourceLists: %v", err)
	}
	testenv.SameSnapshot(t, "after the refused build", testenv.Snapshot(t, out), before)

	// 60 days after the first, it is dropped; the newest is kept, and a
	// new one taken.
	build(acDay(2).Add(61*day), out)
	if got := listArchiveOf(t, out); len(got) != 2 || !strings.HasPrefix(got[0], "2024-06-04T00:00:00Z ") {
		t.Errorf("after retention the archive lists\n%s", strings.Join(got, "\n"))
	}
	if _, err := os.Stat(filepath.Join(out, docsDir, "archive", "resourcelist-20240602T000000Z-00001.xml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a part of a dropped list is still published: %v", err)
	}
	acValidate(t, out)
}

// An archived Resource List must have its parts numbered as rsgen numbers
// them: one edited by hand is the previous build's error (one not named by
// its at is docs.TestPlanSnapshots').
func TestResourceListArchiveRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		edit func(t *testing.T, docs string)
		want string
	}{
		{"a part numbered otherwise", func(t *testing.T, docs string) {
			dir := filepath.Join(docs, "archive")
			os.Rename(filepath.Join(dir, "resourcelist-20240602T000000Z-00002.xml"), filepath.Join(dir, "resourcelist-20240602T000000Z-00009.xml"))
			p := filepath.Join(dir, "resourcelist-20240602T000000Z.xml")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(b), "-00002.xml", "-00009.xml", 1)), 0o644)
		}, "where rsgen archives"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := acNewTree(t, acFiles, acT0)
			out := t.TempDir()
			mustBuild(t, acConfig(tr.dir, out, acDay(1)))
			build := func(day int, into string) error {
				cfg := archiveConfig(tr.dir, into, out, acDay(day), 60*24*time.Hour)
				cfg.Changes.Archive.ResourceLists = units.Duration(time.Nanosecond)
				cfg.Limits.MaxEntries = 2
				_, err := Build(context.Background(), cfg)
				return err
			}
			if err := build(2, out); err != nil {
				t.Fatal(err)
			}
			tt.edit(t, filepath.Join(out, docsDir))
			err := build(3, t.TempDir()) // a fresh output: out's own files are guarded otherwise
			if !errors.Is(err, errPrevious) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("build: %v, want the previous build's error %q", err, tt.want)
			}
		})
	}
}
