package generator

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/archives"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/internal/text/units"
)

// dumpArchiveConfig is a build with a Resource Dump archived every two
// days and kept for keep.
func dumpArchiveConfig(src, out, prev string, at time.Time, keep time.Duration) Config {
	cfg := archiveConfig(src, out, prev, at, keep)
	cfg.Dump.Enabled = true
	cfg.Changes.Archive.ResourceDumps = units.Duration(2 * 24 * time.Hour)
	return cfg
}

// The Resource Dump is archived with its packages when the newest archived
// one is old enough; archived dumps and their packages are carried forward
// byte for byte, from a directory or over HTTP, and dropped after
// Archive.Keep; a build that would drop the archive is refused.
func TestResourceDumpArchive(t *testing.T) {
	t.Parallel()
	const day = 24 * time.Hour
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	first := acConfig(tr.dir, out, acDay(1))
	first.Dump.Enabled = true
	mustBuild(t, first)
	for d := 2; d <= 5; d++ {
		tr.write("day.txt", strings.Repeat("x", d), acDay(d)) // a package of other bytes each day
		mustBuild(t, dumpArchiveConfig(tr.dir, out, out, acDay(d), 60*day))
	}
	dumpArchiveOf := func(out string) []string {
		return archivedIn(t, out, archives.ResourceDumpArchiveName, rsxml.CapResourceDumpArchive, func(md *rsxml.MD) string { return md.At })
	}
	want := []string{"2024-06-02T00:00:00Z archive/resourcedump-20240602T000000Z.xml", "2024-06-04T00:00:00Z archive/resourcedump-20240604T000000Z.xml"}
	if got := dumpArchiveOf(out); !slices.Equal(got, want) {
		t.Errorf("the Resource Dump Archive lists\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The archived packages hold the files as they were at 06-02.
	files := testenv.ReadTree(t, out)
	pkg := files["resourcesync/archive/resourcedump-20240602T000000Z-00001.zip"]
	if pkg == "" || files["resourcesync/archive/resourcedump-20240602T000000Z-00001.manifest.xml"] == "" {
		t.Fatal("the packages of the archived dump are not published")
	}
	if !strings.Contains(pkg, "xx") || strings.Contains(pkg, "xxx") || pkg == files["resourcesync/resourcedump-00001.zip"] {
		t.Error("the archived package is not the Resource Dump of its snapshot")
	}
	_, entries := testenv.ReadDoc(t, filepath.Join(out, docsDir, "archive", "resourcedump-20240602T000000Z.xml"))
	if len(entries) != 1 || entries[0].Loc != acBase+"resourcesync/archive/resourcedump-20240602T000000Z-00001.zip" ||
		entries[0].Link("contents") != acBase+"resourcesync/archive/resourcedump-20240602T000000Z-00001.manifest.xml" {
		t.Errorf("the archived dump lists %+v", entries)
	}
	if doc, _ := testenv.ReadDoc(t, filepath.Join(out, docsDir, "resourcedump.xml")); doc.Link("archives") != acBase+docsDir+"/"+archives.ResourceDumpArchiveName {
		t.Errorf("resourcedump.xml links rel=\"archives\" to %q", doc.Link("archives"))
	}
	acValidate(t, out)
	// The Capability List gives each archive after the documents it
	// archives, in one order whatever the build wrote first.
	order := []string{rsxml.CapResourceList, rsxml.CapResourceDump, rsxml.CapChangeList, rsxml.CapChangeDump,
		rsxml.CapResourceListArchive, rsxml.CapResourceDumpArchive, rsxml.CapChangeListArchive, rsxml.CapChangeDumpArchive}
	_, caps := testenv.ReadDoc(t, filepath.Join(out, docsDir, "capabilitylist.xml"))
	var listed []string
	for _, c := range caps {
		listed = append(listed, c.MD.Capability)
	}
	if !slices.Contains(listed, rsxml.CapResourceDumpArchive) || !slices.IsSortedFunc(listed, func(a, b string) int {
		return slices.Index(order, a) - slices.Index(order, b)
	}) {
		t.Errorf("the Capability List lists %q, not in the order %q", listed, order)
	}

	// Carried forward from the directory into a fresh output (the
	// packages copied: linked only within a file system), byte for byte.
	fromDir := t.TempDir()
	mustBuild(t, dumpArchiveConfig(tr.dir, fromDir, out, acDay(5).Add(time.Hour), 60*day))
	got := testenv.ReadTree(t, fromDir)
	for name, content := range files {
		if strings.HasPrefix(name, "resourcesync/archive/resourcedump-") && got[name] != content {
			t.Errorf("%s changed when carried forward", name)
		}
	}

	// Without the flag, the archive would be dropped: refused.
	before := testenv.Snapshot(t, out)
	cfg := archiveConfig(tr.dir, out, out, acDay(6), 60*day)
	cfg.Dump.Enabled = true
	_, err := Build(context.Background(), cfg)
	var ade *Error
	cfg.Limits = Limits{}
	if !errors.As(err, &ade) || ade.Kind != KindDropped || ade.Capability != rsxml.CapResourceDumpArchive || ade.N != 2 {
		t.Fatalf("a build without Archive.ResourceDumps: %v", err)
	}
	testenv.SameSnapshot(t, "after the refused build", testenv.Snapshot(t, out), before)

	// 60 days after the first, it is dropped, with its packages.
	mustBuild(t, dumpArchiveConfig(tr.dir, out, out, acDay(2).Add(61*day), 60*day))
	if got := dumpArchiveOf(out); len(got) != 2 || !strings.HasPrefix(got[0], "2024-06-04T00:00:00Z ") {
		t.Errorf("after retention the archive lists\n%s", strings.Join(got, "\n"))
	}
	if _, err := os.Stat(filepath.Join(out, docsDir, "archive", "resourcedump-20240602T000000Z-00001.zip")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a package of a dropped dump is still published: %v", err)
	}
	acValidate(t, out)

	// Dropped on purpose.
	cfg = archiveConfig(tr.dir, out, out, acDay(2).Add(62*day), 60*day)
	cfg.Dump.Enabled, cfg.Changes.Drop = true, []string{"resourcedump-archive"}
	mustBuild(t, cfg)
	if _, err := os.Stat(filepath.Join(out, docsDir, archives.ResourceDumpArchiveName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the archive dropped on purpose is still published: %v", err)
	}
}

// An archived package must be where rsgen archives it, and be the bytes
// its entry describes: one edited by hand is the previous build's error.
func TestResourceDumpArchiveRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		edit func(t *testing.T, docs string)
		want string
	}{
		{"a package renamed", func(t *testing.T, docs string) {
			dir := filepath.Join(docs, "archive")
			os.Rename(filepath.Join(dir, "resourcedump-20240602T000000Z-00001.zip"), filepath.Join(dir, "other.zip"))
			p := filepath.Join(dir, "resourcedump-20240602T000000Z.xml")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(b), "resourcedump-20240602T000000Z-00001.zip", "other.zip", 1)), 0o644)
		}, "not where rsgen archives its packages"},
		{"a package truncated", func(t *testing.T, docs string) {
			if err := os.Truncate(filepath.Join(docs, "archive", "resourcedump-20240602T000000Z-00001.zip"), 10); err != nil {
				t.Fatal(err)
			}
		}, "is 10 bytes"},
		{"a package listed twice", func(t *testing.T, docs string) {
			p := filepath.Join(docs, "archive", "resourcedump-20240602T000000Z.xml")
			b, _ := os.ReadFile(p)
			s := string(b)
			i, j := strings.Index(s, "<url>"), strings.Index(s, "</url>")+len("</url>")
			os.WriteFile(p, []byte(s[:j]+s[i:j]+s[j:]), 0o644)
		}, "twice"},
		{"linked up elsewhere", func(t *testing.T, docs string) {
			p := filepath.Join(docs, "archive", "resourcedump-20240602T000000Z.xml")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(b), `rel="up" href="https://example.org/`, `rel="up" href="https://evil.example/`, 1)), 0o644)
		}, "not to the Capability List"},
		{"a package of a later time", func(t *testing.T, docs string) {
			p := filepath.Join(docs, "archive", "resourcedump-20240602T000000Z.xml")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(b), `completed="2024-06-02T00:00:00Z" hash=`, `completed="2025-01-01T00:00:00Z" hash=`, 1)), 0o644)
		}, "is after the dump's completed"},
		{"taken at another time", func(t *testing.T, docs string) {
			p := filepath.Join(docs, "archive", "resourcedump-20240602T000000Z.xml")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(b), `at="2024-06-02T00:00:00Z"`, `at="2024-06-01T00:00:00Z"`, 1)), 0o644)
		}, "but the Resource Dump Archive"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := acNewTree(t, acFiles, acT0)
			out := t.TempDir()
			first := acConfig(tr.dir, out, acDay(1))
			first.Dump.Enabled = true
			mustBuild(t, first)
			mustBuild(t, dumpArchiveConfig(tr.dir, out, out, acDay(2), 60*24*time.Hour))
			tt.edit(t, filepath.Join(out, docsDir))
			_, err := Build(context.Background(), dumpArchiveConfig(tr.dir, t.TempDir(), out, acDay(3), 60*24*time.Hour))
			if !errors.Is(err, errPrevious) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("build: %v, want the previous build's error %q", err, tt.want)
			}
			// The way out: a build without that archive.
			var pae *Error
			if !errors.As(err, &pae) || pae.Kind != KindPrevious || pae.Drop != "Changes.Drop[resourcedump-archive]" {
				t.Errorf("build: %v, want a PreviousArchiveError naming Changes.Drop[resourcedump-archive]", err)
			}
			cfg := dumpArchiveConfig(tr.dir, t.TempDir(), out, acDay(3), 60*24*time.Hour)
			cfg.Changes.Archive.ResourceDumps, cfg.Changes.Drop = 0, []string{"resourcedump-archive"}
			mustBuild(t, cfg)
		})
	}
}

// Over HTTP, the archived dumps and their packages are fetched, checked
// against their entries and published again into a fresh output.
func TestResourceDumpArchiveHTTP(t *testing.T) {
	t.Parallel()
	const day = 24 * time.Hour
	tr := acNewTree(t, acFiles, acT0)
	live := t.TempDir()
	srv := httptest.NewServer(http.FileServer(http.Dir(live)))
	defer srv.Close()
	base := mustBaseURL(t, srv.URL+"/")
	cfg := acConfig(tr.dir, live, acDay(1))
	cfg.BaseURL, cfg.Dump.Enabled = base, true
	mustBuild(t, cfg)
	cfg = dumpArchiveConfig(tr.dir, live, srv.URL+"/", acDay(2), 60*day)
	cfg.BaseURL = base
	mustBuild(t, cfg)
	want := testenv.ReadTree(t, live)

	fresh := t.TempDir()
	tr.write("day.txt", "new", acDay(3))
	cfg = dumpArchiveConfig(tr.dir, fresh, srv.URL+"/", acDay(3), 60*day)
	cfg.BaseURL = base
	mustBuild(t, cfg)
	got := testenv.ReadTree(t, fresh)
	n := 0
	for name, content := range want {
		if strings.HasPrefix(name, "resourcesync/archive/resourcedump-") {
			n++
			if got[name] != content {
				t.Errorf("%s differs when carried over HTTP", name)
			}
		}
	}
	if n != 3 { // the dump, its package, its manifest
		t.Errorf("%d archived files, want 3", n)
	}
}

// Packages that cannot be linked (another file system) are copied, checked
// against the digests of their entries, and given the time of their entry,
// so that an upload that compares times does not send them again.
func TestResourceDumpArchiveCopied(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	first := acConfig(tr.dir, out, acDay(1))
	first.Dump.Enabled = true
	mustBuild(t, first)
	copied := func(src, out, prev string, at time.Time) Config { // packages copied, as from another file system
		cfg := dumpArchiveConfig(src, out, prev, at, 60*24*time.Hour)
		cfg.noLinks = true
		return cfg
	}
	mustBuild(t, copied(tr.dir, out, out, acDay(2)))

	fresh := t.TempDir()
	mustBuild(t, copied(tr.dir, fresh, out, acDay(3)))
	pkg := filepath.Join(fresh, docsDir, "archive", "resourcedump-20240602T000000Z-00001.zip")
	st, err := os.Stat(pkg)
	if err != nil {
		t.Fatal(err)
	}
	if !st.ModTime().Equal(acDay(2)) {
		t.Errorf("the copied package's time is %v, want its entry's %v", st.ModTime(), acDay(2))
	}

	// Corrupted at the same length: refused, by its digest.
	p := filepath.Join(out, docsDir, "archive", "resourcedump-20240602T000000Z-00001.zip")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Build(context.Background(), copied(tr.dir, t.TempDir(), out, acDay(3)))
	if !errors.Is(err, errPrevious) || !strings.Contains(err.Error(), "digest") {
		t.Fatalf("a corrupted package copied: %v, want the previous build's error naming its digest", err)
	}
}

// A previous build given by a relative path (as rsgen.toml's previous =
// "out" is, and --previous out): its packages are its own, linked.
func TestCarriedPackagesRelativePrevious(t *testing.T) {
	tr := acNewTree(t, acFiles, acT0)
	work := t.TempDir()
	t.Chdir(work)
	first := acConfig(tr.dir, "out", acDay(1))
	first.Dump.Enabled = true
	mustBuild(t, first)
	for d := 2; d <= 4; d++ {
		tr.write("day.txt", strings.Repeat("x", d), acDay(d))
		cfg := dumpArchiveConfig(tr.dir, "out", "out", acDay(d), 60*24*time.Hour)
		cfg.Changes.Dump = true
		mustBuild(t, cfg)
	}
	if _, err := os.Stat(filepath.Join(work, "out", docsDir, "archive", "resourcedump-20240602T000000Z-00001.zip")); err != nil {
		t.Error(err)
	}
}

// Two builds within one second without a fixed time: the second's
// snapshot is a second after the first's, past the clock, and the times of
// its Resource Dump, its Change Dump and their archives are never before
// it (they were the clock's, and failed the check).
func TestDumpsWithinTheSecond(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	clock := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	build := func(previous bool) {
		t.Helper()
		cfg := acConfig(tr.dir, out, time.Time{})
		cfg.FixedTime, cfg.now = false, func() time.Time { return clock }
		cfg.Dump.Enabled = true
		if previous {
			cfg.Changes.Previous, cfg.Changes.Dump = out, true
			cfg.Changes.Archive.Keep, cfg.Changes.Archive.ResourceDumps = units.Duration(30*24*time.Hour), units.Duration(time.Second)
		}
		mustBuild(t, cfg)
	}
	build(false)
	tr.write("new.txt", "new", acT0)
	build(true)
	build(true)
	doc, _ := testenv.ReadDoc(t, filepath.Join(out, docsDir, "resourcedump.xml"))
	if doc.MD.At != "2024-06-01T12:00:02Z" || doc.MD.Completed < doc.MD.At {
		t.Errorf("resourcedump.xml at %s completed %s", doc.MD.At, doc.MD.Completed)
	}
	acValidate(t, out)
}

// Packaging that runs into the next seconds: each package is taken after
// the dump's at, within its completed (rsxml.PackageTimes), and the next
// builds read the archived dump back and publish it again. The clock ticks
// a second at each reading, so that every package's time is past the
// snapshot's whatever the speed of the machine.
func TestResourceDumpArchivePackagedLater(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	var ticks atomic.Int64
	clock := func() time.Time {
		return time.Date(2026, 11, 27, 13, 2, 4, 0, time.UTC).Add(time.Duration(ticks.Add(1)) * time.Second)
	}
	build := func(previous bool) {
		t.Helper()
		cfg := acConfig(tr.dir, out, time.Time{})
		cfg.FixedTime, cfg.now = false, clock
		cfg.Dump.Enabled, cfg.Dump.MaxBytes = true, 1 // a package per file
		if previous {
			cfg.Changes.Previous = out
			cfg.Changes.Archive.Keep, cfg.Changes.Archive.ResourceDumps = units.Duration(365*24*time.Hour), units.Duration(time.Second)
		}
		mustBuild(t, cfg)
	}
	build(false)
	for i, name := range []string{"one.txt", "two.txt"} {
		tr.write(name, strings.Repeat("x", i+1), acT0)
		build(true)
	}
	doc, entries := testenv.ReadDoc(t, filepath.Join(out, docsDir, "resourcedump.xml"))
	if last := entries[len(entries)-1].MD; last.At <= doc.MD.At || last.Completed > doc.MD.Completed {
		t.Errorf("resourcedump.xml at %s completed %s, its last package at %s completed %s: want it taken after the dump's at, within its completed",
			doc.MD.At, doc.MD.Completed, last.At, last.Completed)
	}
	acValidate(t, out)
}
