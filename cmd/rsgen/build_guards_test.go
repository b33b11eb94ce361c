package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// guardTree writes n small files into a new directory.
func guardTree(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.txt", i)), []byte(fmt.Sprint("file ", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// guardRun runs build with args and checks its exit code and that stderr
// says each of want, in that order, in rsgen's style.
func guardRun(t *testing.T, code int, want []string, args ...string) string {
	t.Helper()
	got, stdout, stderr := rsgenRun(append([]string{"build"}, args...)...)
	if got != code {
		t.Fatalf("rsgen build %s: exit %d, want %d; stderr:\n%s", strings.Join(args, " "), got, code, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout: %q", stdout)
	}
	inOrder(t, stderr, want...)
	checkMessages(t, stderr)
	return stderr
}

// sameContents fails the test unless dir holds what before says.
func sameContents(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	after := fileContents(t, dir)
	for p, c := range before {
		if a, ok := after[p]; !ok || a != c {
			t.Errorf("%s changed or gone after a refused build", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s written by a refused build", p)
		}
	}
}

func TestBuildGuardEmptySource(t *testing.T) {
	clearEnv(t)
	src, out := t.TempDir(), t.TempDir()
	base := []string{"--base-url", "https://example.org/", "--out", out}
	guardRun(t, exitFailure, []string{
		"rsgen: error: nothing to publish: the source " + src + " holds no file to publish; nothing was published\n",
		"rsgen: hint: check SOURCE (did the site's own build fail?); to publish an empty Resource List on purpose add --allow-empty\n"},
		append(base, src)...)
	sameContents(t, out, map[string]string{})
	guardRun(t, exitOK, nil, append(base, "-q", "--allow-empty", "--at", "2024-05-31T00:00:00Z", src)...)

	// With --previous, every resource published before would be deleted.
	full := guardTree(t, 3)
	guardRun(t, exitOK, nil, append(base, "-q", "--at", "2024-06-01T00:00:00Z", full)...)
	before := fileContents(t, out)
	withPrev := append(base, "--previous", out, "--at", "2024-06-02T00:00:00Z")
	guardRun(t, exitFailure, []string{"rsgen: error: nothing to publish",
		"rsgen: hint: check SOURCE (did the site's own build fail?); to publish an empty Resource List on purpose, which deletes every resource published before, add --allow-empty\n"},
		append(withPrev, src)...)
	sameContents(t, out, before)
	guardRun(t, exitOK, []string{"rsgen: since 2024-06-01T00:00:00Z: 0 created, 0 updated, 3 deleted"}, append(withPrev, "--allow-empty", src)...)
}

func TestBuildGuardMaxDelete(t *testing.T) {
	clearEnv(t)
	src, out := guardTree(t, 12), t.TempDir()
	base := []string{"--base-url", "https://example.org/", "--out", out}
	guardRun(t, exitOK, nil, append(base, "-q", "--at", "2024-06-01T00:00:00Z", src)...)
	for i := range 7 {
		os.Remove(filepath.Join(src, fmt.Sprintf("f%02d.txt", i)))
	}
	before := fileContents(t, out)
	next := append(base, "--previous", out, "--at", "2024-06-02T00:00:00Z")
	guardRun(t, exitFailure, []string{
		"rsgen: error: this build would delete 7 of the 12 resources published before (58%), more than the limit of 50%; nothing was published\n",
		"rsgen: hint: check SOURCE; if these deletions are meant, allow them with --max-delete 7 (or a higher percentage, or all)\n"},
		append(next, src)...)
	sameContents(t, out, before)
	guardRun(t, exitFailure, []string{"more than the limit of 6;"}, append(next, "--max-delete", "6", src)...)
	sameContents(t, out, before)
	guardRun(t, exitUsage, []string{`rsgen: error: --max-delete: "half" is not a count, a percentage from 0% to 100%, or all`},
		append(next, "--max-delete", "half", src)...)
	guardRun(t, exitUsage, []string{"rsgen: error: --max-delete needs --previous"}, append(base, "--max-delete", "all", src)...)
	guardRun(t, exitOK, []string{"0 created, 0 updated, 7 deleted"}, append(next, "--max-delete", "60%", src)...)
}

func TestBuildGuardOtherSite(t *testing.T) {
	clearEnv(t)
	src, out := guardTree(t, 3), t.TempDir()
	guardRun(t, exitOK, nil, "-q", "--base-url", "https://staging.example.org/", "--out", out, "--at", "2024-06-01T00:00:00Z", src)
	os.WriteFile(filepath.Join(src, "new.txt"), []byte("new"), 0o644)
	before := fileContents(t, out)
	prod := []string{"--base-url", "https://example.org/", "--out", out, "--previous", out, "--at", "2024-06-02T00:00:00Z"}
	guardRun(t, exitFailure, []string{
		"rsgen: error: the previous build cannot be used: the previous build was published at https://staging.example.org/, this build at https://example.org/: its change history is not this site's\n",
		"rsgen: hint: check --previous (another site's, such as staging?); to start a new change history at https://example.org/ on purpose, add --new-history\n"},
		append(prod, src)...)
	sameContents(t, out, before)
	guardRun(t, exitOK, []string{"rsgen: notice: --previous was published at https://staging.example.org/, this build at https://example.org/: starting a new change history"},
		append(prod, "--new-history", src)...)
	if _, err := os.Stat(filepath.Join(out, "resourcesync", "changelist.xml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("changelist.xml: %v, want none in a new history", err)
	}
	guardRun(t, exitUsage, []string{"rsgen: error: --new-history needs --previous"}, "--base-url", "https://example.org/", "--new-history", src)
}

func TestBuildGuardDumpDropped(t *testing.T) {
	clearEnv(t)
	src, out := guardTree(t, 3), t.TempDir()
	base := []string{"--base-url", "https://example.org/", "--out", out}
	guardRun(t, exitOK, nil, append(base, "-q", "--resource-dump", "--at", "2024-06-01T00:00:00Z", src)...)
	before := fileContents(t, out)
	next := append(base, "--previous", out, "--at", "2024-06-02T00:00:00Z")
	guardRun(t, exitFailure, []string{
		"rsgen: error: the previous build published a Resource Dump, which this build would delete\n",
		"rsgen: hint: add --resource-dump to keep publishing it, or --resource-dump=false to drop it on purpose\n"},
		append(next, src)...)
	sameContents(t, out, before)
	guardRun(t, exitOK, nil, append(next, "-q", "--resource-dump", src)...)
	os.WriteFile(filepath.Join(src, "new.txt"), []byte("new"), 0o644)
	guardRun(t, exitOK, nil, append(base, "-q", "--previous", out, "--at", "2024-06-03T00:00:00Z", "--resource-dump=false", src)...)
	if _, err := os.Stat(filepath.Join(out, "resourcesync", "resourcedump.xml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("resourcedump.xml: %v, want it dropped", err)
	}
}

// TestBuildGuardSnapshotTime: without a fixed time, builds in quick
// succession just work; a fixed time that leaves no interval for the
// changes names where it came from.
func TestBuildGuardSnapshotTime(t *testing.T) {
	clearEnv(t)
	src, out := guardTree(t, 3), t.TempDir()
	base := []string{"--base-url", "https://example.org/", "--out", out}
	guardRun(t, exitOK, nil, append(base, "-q", src)...)
	for i := range 3 { // within a second, most likely: each takes milliseconds
		os.WriteFile(filepath.Join(src, fmt.Sprintf("new%d.txt", i)), []byte("new"), 0o644)
		guardRun(t, exitOK, nil, append(base, "-q", "--previous", out, src)...)
	}

	out = t.TempDir()
	base = []string{"--base-url", "https://example.org/", "--out", out}
	t.Setenv(envSourceDateEpoch, "1717200000") // 2024-06-01T00:00:00Z
	guardRun(t, exitOK, nil, append(base, "-q", src)...)
	os.WriteFile(filepath.Join(src, "later.txt"), []byte("later"), 0o644)
	before := fileContents(t, out)
	guardRun(t, exitFailure, []string{
		"rsgen: error: the previous build cannot be used: the previous build's snapshot time 2024-06-01T00:00:00Z is this build's too, yet 1 resource changed: a Change List needs a later snapshot time (this build's snapshot time, from $SOURCE_DATE_EPOCH)\n",
		"rsgen: hint: give this build a later $SOURCE_DATE_EPOCH, where its snapshot time came from, or leave --at and $SOURCE_DATE_EPOCH unset to take the clock\n"},
		append(base, "--previous", out, src)...)
	sameContents(t, out, before)
	guardRun(t, exitFailure, []string{"(this build's snapshot time, from --at)\n", "rsgen: hint: give this build a later --at, or"},
		append(base, "--previous", out, "--at", "2024-06-01T00:00:00Z", src)...)
	t.Setenv(envSourceDateEpoch, "1714521600") // 2024-05-01T00:00:00Z, before the previous build
	guardRun(t, exitFailure, []string{"rsgen: hint: --previous must be an earlier build: check it, or give this build a later $SOURCE_DATE_EPOCH, where its snapshot time came from\n"},
		append(base, "--previous", out, src)...)
	sameContents(t, out, before)
}

func TestBuildAtRange(t *testing.T) {
	clearEnv(t)
	src := guardTree(t, 1)
	for _, tc := range []struct{ at, want string }{
		{"0001-01-01T00:00:00Z", `rsgen: error: --at "0001-01-01T00:00:00Z" is out of range` + "\nrsgen: hint: give a time from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z, as $SOURCE_DATE_EPOCH takes\n"},
		{"1969-12-31T23:59:59Z", `rsgen: error: --at "1969-12-31T23:59:59Z" is out of range`},
		{"2016-12-31T23:59:60Z", `rsgen: error: --at "2016-12-31T23:59:60Z" is a leap second, which rsgen cannot represent` + "\nrsgen: hint: give the second before it (:59) or after it\n"},
		{"2016-12-31T23:59:61Z", `rsgen: error: --at "2016-12-31T23:59:61Z" is not an RFC 3339 time`},
		{"yesterday", `rsgen: error: --at "yesterday" is not an RFC 3339 time` + "\nrsgen: hint: for example --at 2024-05-01T12:00:00Z\n"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		guardRun(t, exitUsage, []string{tc.want}, "--base-url", "https://example.org/", "--out", out, "--at", tc.at, src)
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("--at %s: output %v", tc.at, err)
		}
	}
	guardRun(t, exitOK, nil, "-q", "--base-url", "https://example.org/", "--out", t.TempDir(), "--at", "1970-01-01T00:00:00Z", src)
}

func TestBuildGuardExport(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	out := filepath.Join(dir, "out")
	args := []string{"--base-url", "https://example.org/", "--out", out, "--at", "2024-06-01T00:00:00Z", "--export"}
	guardRun(t, exitFailure, []string{
		"rsgen: error: nothing to publish: the record export " + empty + " holds no records; nothing was published\n",
		"rsgen: hint: check --export (did the export fail upstream?); to publish an empty Resource List on purpose add --allow-empty\n"},
		append(args, empty)...)
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output after a refused build: %v", err)
	}
	guardRun(t, exitOK, nil, append([]string{"-q", "--allow-empty"}, append(args, empty)...)...)

	old := filepath.Join(dir, "old.jsonl")
	os.WriteFile(old, []byte(`{"loc":"a.html","lastmod":"2020-01-01T00:00:00Z"}`+"\n"), 0o644)
	guardRun(t, exitOK, []string{"rsgen: published 1 record", "; no change since 2024-05-02T00:00:00Z, so no Change List\n"}, append(args, old)...)
	if _, err := os.Stat(filepath.Join(out, "resourcesync", "changelist.xml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("changelist.xml: %v, want none", err)
	}
}

// TestBuildFutureSnapshotWayOut: a build with --at far in the future was
// published; the builds with the clock after it are refused, and the hints
// must lead out: "build once without --previous" alone is refused too.
func TestBuildFutureSnapshotWayOut(t *testing.T) {
	clearEnv(t)
	src, out := guardTree(t, 3), t.TempDir()
	base := []string{"-q", "--base-url", "https://example.org/", "--out", out}
	guardRun(t, exitOK, nil, append(base, "--at", "2999-01-01T00:00:00Z", src)...)
	guardRun(t, exitFailure, []string{"rsgen: hint: wait until the clock has passed it, or give a later --at; if that snapshot time is wrong, start afresh: remove resourcesync/ from --out and build without --previous\n"}, append(base, "--previous", out, src)...)
	guardRun(t, exitFailure, []string{"rsgen: hint: give a later --at (or SOURCE_DATE_EPOCH), or publish into another --out; if the published snapshot time is wrong, remove resourcesync/ from --out (Destinations then sync afresh)\n"}, append(base, src)...)
	os.RemoveAll(filepath.Join(out, "resourcesync"))
	guardRun(t, exitOK, nil, append(base, src)...)
}
