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

// --previous, the flags that need it, a previous build that cannot be used
// and --first-build-ok: testdata/script/changes_cli.txtar.

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
