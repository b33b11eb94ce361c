package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// changesSource writes a small tree whose files were last modified long ago.
func changesSource(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	old := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for name, content := range map[string]string{"a.txt": "alpha", "b.html": "<p>b</p>", "sub/c.csv": "x,y\n"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fileContents returns the files under dir and their content.
func fileContents(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			files[p] = string(b)
		}
		return err
	})
	return files
}

func TestBuildWithPrevious(t *testing.T) {
	src, out := changesSource(t), t.TempDir()
	base := []string{"build", "-q", "--base-url", "https://example.org/", "--out", out}
	if code, _, stderr := runCLI(t, t.Context(), append(base, "--at", "2024-06-01T00:00:00Z", src)...); code != 0 {
		t.Fatalf("first build: exit %d: %s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(src, "new.txt"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, t.Context(), "build", "--base-url", "https://example.org/", "--out", out, "--previous", out,
		"--at", "2024-06-02T00:00:00Z", src)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "rsgen: since 2024-06-01T00:00:00Z: 1 created, 0 updated, 0 deleted; 1 Change List published\n") {
		t.Errorf("stderr:\n%s", stderr)
	}
	// One Change List, at the URL the Capability List gives.
	if _, err := os.Stat(filepath.Join(out, "resourcesync", "changelist.xml")); err != nil {
		t.Error(err)
	}
	// With a Change Dump, made like the Resource Dump's packages.
	if err := os.WriteFile(filepath.Join(src, "sub", "d.txt"), []byte("delta"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, t.Context(), "build", "--base-url", "https://example.org/", "--out", out, "--previous", out,
		"--change-dump", "--at", "2024-06-03T00:00:00Z", src)
	if code != 0 || !strings.Contains(stderr, "; 1 Change List published, 1 package in the Change Dump\n") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, name := range []string{"changedump.xml", "changedump-20240603T000000Z-00001.zip", "changedump-20240603T000000Z-00001.manifest.xml"} {
		if _, err := os.Stat(filepath.Join(out, "resourcesync", name)); err != nil {
			t.Error(err)
		}
	}
}

func TestBuildChangesNotForExports(t *testing.T) {
	for _, flag := range []string{"--previous=public", "--change-dump", "--cache=rsgen.cache"} {
		code, _, stderr := runCLI(t, t.Context(), "build", "--out", t.TempDir(), "--base-url", "https://example.org/", "--export", "records.jsonl", flag)
		name, _, _ := strings.Cut(flag, "=")
		if code != exitUsage || !strings.HasPrefix(stderr, "rsgen: error: "+name+" does not apply with --export: ") {
			t.Errorf("%s: exit %d, stderr %q", flag, code, stderr)
		}
	}
}

func TestBuildChangeDumpNeedsPrevious(t *testing.T) {
	code, _, stderr := runCLI(t, t.Context(), "build", "--base-url", "https://example.org/", "--change-dump", changesSource(t))
	if code != exitUsage || stderr != "rsgen: error: --change-dump needs --previous: a Change Dump holds what changed since the previous build (the first build publishes none)\nrsgen: hint: see 'rsgen build --help'\n" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestBuildWithBadPrevious(t *testing.T) {
	src, out := changesSource(t), t.TempDir()
	if code, _, stderr := runCLI(t, t.Context(), "build", "-q", "--base-url", "https://example.org/", "--out", out, "--at", "2024-06-01T00:00:00Z", src); code != 0 {
		t.Fatalf("first build: exit %d: %s", code, stderr)
	}
	before := fileContents(t, out)
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"missing", []string{"--previous", filepath.Join(out, "nope"), "--at", "2024-06-02T00:00:00Z"}, exitFailure, []string{
			"rsgen: error: the previous build cannot be used: " + filepath.Join(out, "nope") + ": no such file\n",
			"rsgen: hint: for the very first build there is nothing to compare with: leave --previous out, or add --first-build-ok to run the same command from the first deploy on\n"}},
		{"later", []string{"--previous", out, "--at", "2024-05-01T00:00:00Z"}, exitFailure, []string{
			"later than this build's snapshot time 2024-05-01T00:00:00Z\n",
			"rsgen: hint: --previous must be an earlier build: check it, or give this build a later --at\n"}},
		{"not a URL rsgen reads", []string{"--previous", "ftp://example.org/", "--at", "2024-06-02T00:00:00Z"}, exitUsage, []string{
			"rsgen: error: --previous \"ftp://example.org/\" is not valid: only http and https URLs (or a directory) can be read\n"}},
		{"bad --changes-keep", []string{"--previous", out, "--changes-keep", "a month"}, exitUsage, []string{
			"rsgen: error: --changes-keep: \"a month\" is not a duration (examples: 30d, 36h)\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"build", "--base-url", "https://example.org/", "--out", out}, tt.args...)
			code, stdout, stderr := runCLI(t, t.Context(), append(args, src)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout: %q", stdout)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr does not say %q:\n%s", s, stderr)
				}
			}
			after := fileContents(t, out)
			if len(after) != len(before) {
				t.Errorf("%d files in the output after a failure, %d before", len(after), len(before))
			}
			for p, c := range before {
				if after[p] != c {
					t.Errorf("%s changed after a failure", p)
				}
			}
		})
	}
}

func TestBuildWithCache(t *testing.T) {
	src := changesSource(t)
	cache := filepath.Join(t.TempDir(), "rsgen.cache")
	// Files changed within a tenth of a second of a build are not cached:
	// they might change again within the same timestamp.
	time.Sleep(200 * time.Millisecond)
	args := []string{"build", "--base-url", "https://example.org/", "--cache", cache, "--at", "2024-06-01T00:00:00Z"}
	cold, warm := t.TempDir(), t.TempDir()
	if code, _, stderr := runCLI(t, t.Context(), append(args, "--out", cold, src)...); code != 0 || strings.Contains(stderr, "hash cache") {
		t.Fatalf("cold build: exit %d: %s", code, stderr)
	}
	code, _, stderr := runCLI(t, t.Context(), append(args, "--out", warm, src)...)
	if code != 0 || !strings.Contains(stderr, "rsgen: 3 of 3 files unchanged in the hash cache, not read\n") {
		t.Fatalf("warm build: exit %d: %s", code, stderr)
	}
	a, b := fileContents(t, cold), fileContents(t, warm)
	for p, c := range a {
		if b[strings.Replace(p, cold, warm, 1)] != c {
			t.Errorf("%s differs between a cold and a warm build", p)
		}
	}
}

// TestBuildFirstBuildOK runs the command line a CI pipeline keeps from its
// first deploy on: --previous names the published output, empty the first
// time. Without --first-build-ok that first build fails and says how to go
// on; with it, it publishes a first build, and the next one, with the same
// command line, publishes the Change List.
func TestBuildFirstBuildOK(t *testing.T) {
	src := changesSource(t)
	published := filepath.Join(t.TempDir(), "site") // not deployed yet
	cmd := func(at string, extra ...string) []string {
		args := []string{"build", "-q", "--base-url", "https://example.org/", "--out", t.TempDir(), "--previous", published, "--at", at}
		return append(append(args, extra...), src)
	}

	code, _, stderr := runCLI(t, t.Context(), cmd("2024-06-01T00:00:00Z")...)
	if code != exitFailure || !strings.Contains(stderr, "--first-build-ok") {
		t.Fatalf("first build without --first-build-ok: exit %d, want %d and a hint naming --first-build-ok: %s", code, exitFailure, stderr)
	}

	first := cmd("2024-06-01T00:00:00Z", "--first-build-ok", "--change-dump")
	out1 := first[5]
	if code, _, stderr := runCLI(t, t.Context(), first...); code != 0 {
		t.Fatalf("first build: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out1, "resourcesync", "changelist.xml")); !os.IsNotExist(err) {
		t.Errorf("a first build published a Change List (stat: %v)", err)
	}
	if err := os.Rename(out1, published); err != nil { // deploy
		t.Fatal(err)
	}

	if err := os.WriteFile(filepath.Join(src, "a.txt"), []byte("alpha, edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	second := cmd("2024-06-02T00:00:00Z", "--first-build-ok", "--change-dump")
	if code, _, stderr := runCLI(t, t.Context(), second...); code != 0 {
		t.Fatalf("second build: exit %d: %s", code, stderr)
	}
	index, err := os.ReadFile(filepath.Join(second[5], "resourcesync", "changelist.xml"))
	if err != nil {
		t.Fatalf("the second build published no Change List Index: %v", err)
	}
	if !strings.Contains(string(index), `from="2024-06-01T00:00:00Z"`) {
		t.Errorf("the Change List Index does not start at the first build:\n%s", index)
	}

	if code, _, stderr := runCLI(t, t.Context(), "build", "--base-url", "https://example.org/", "--first-build-ok", src); code != exitUsage || !strings.Contains(stderr, "--first-build-ok needs --previous") {
		t.Errorf("--first-build-ok without --previous: exit %d: %s", code, stderr)
	}
}

// An archived document of the previous build that cannot be published
// again names the way out: a build without that archive, which keeps the
// rest of the change history.
func TestBuildWithBadArchivedDump(t *testing.T) {
	src, out := changesSource(t), t.TempDir()
	build := func(at string, extra ...string) (int, string) {
		args := append([]string{"build", "-q", "--base-url", "https://example.org/", "--out", out, "--resource-dump", "--at", at}, extra...)
		code, _, stderr := runCLI(t, t.Context(), append(args, src)...)
		return code, stderr
	}
	archive := []string{"--previous", out, "--archive", "30d,dumps=1s"}
	if code, stderr := build("2024-06-01T00:00:00Z"); code != 0 {
		t.Fatalf("first build: exit %d: %s", code, stderr)
	}
	if code, stderr := build("2024-06-02T00:00:00Z", archive...); code != 0 {
		t.Fatalf("second build: exit %d: %s", code, stderr)
	}
	p := filepath.Join(out, "resourcesync", "archive", "resourcedump-20240602T000000Z.xml")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(b), `completed="2024-06-02T00:00:00Z" hash=`, `completed="2025-01-01T00:00:00Z" hash=`, 1)
	if bad == string(b) {
		t.Fatalf("the archived Resource Dump is not what the test expects:\n%s", b)
	}
	if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr := build("2024-06-03T00:00:00Z", archive...)
	if want := "rsgen: hint: to go on without that archive, keeping the rest of the change history, add --archive KEEP,dumps=0\n"; code != exitFailure || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant %q", code, stderr, want)
	}
	if code, stderr := build("2024-06-03T00:00:00Z", "--previous", out, "--archive", "30d,dumps=0"); code != 0 {
		t.Errorf("the way out: exit %d: %s", code, stderr)
	}
}
