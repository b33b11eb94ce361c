package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/internal/testenv"
)

// inOrder checks that s holds each of want, in that order.
func inOrder(t *testing.T, s string, want ...string) {
	t.Helper()
	rest := s
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Errorf("lacks %q (in order):\n%s", w, s)
			return
		}
		rest = rest[i+len(w):]
	}
}

// TestCLIPartial: a file that cannot be published is named, the rest is
// published, and the exit code is 3; with --on-error=fail nothing changes and
// the exit code is 1.
func TestCLIPartial(t *testing.T) {
	clearEnv(t)
	src := testenv.CopySite(t, siteMtime)
	bad := filepath.Join(src, "data", "bad\xff.csv")
	if err := os.WriteFile(bad, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "build", "--base-url", "https://example.org/", "--out", out, src)
	if code != exitPartial {
		t.Fatalf("exit code %d, want %d\n%s", code, exitPartial, stderr)
	}
	inOrder(t, stderr,
		`rsgen: skipped: "data/bad\xff.csv": the name is not valid UTF-8 and has no URL; rename the file`,
		"rsgen: published 9 files",
		"rsgen: error: 1 file could not be published (named above)",
		"rsgen: hint: fix or --exclude them; --on-error=fail makes this a failure")
	checkMessages(t, stderr)
	if stdout != "" {
		t.Errorf("stdout: %s", stdout)
	}
	if _, entries := testenv.ReadList(t, filepath.Join(out, "resourcesync"), "resourcelist.xml"); len(entries) != 9 {
		t.Errorf("%d entries published, want 9", len(entries))
	}

	before := treeState(t, out)
	code, _, stderr = runCLI(t, context.Background(), "build", "--base-url", "https://example.org/", "--out", out, "--on-error=fail", "--at", "2030-01-01T00:00:00Z", src)
	if code != exitFailure {
		t.Fatalf("--on-error=fail: exit code %d, want %d\n%s", code, exitFailure, stderr)
	}
	inOrder(t, stderr, "rsgen: error: stopped at the first file", `data/bad\xff.csv`, "rsgen: hint: fix or --exclude the file, or drop --on-error=fail")
	checkMessages(t, stderr)
	sameTree(t, treeState(t, out), before)
	testenv.NoStage(t, out)

	// Excluding it makes the build whole.
	code, _, stderr = runCLI(t, context.Background(), "build", "-q", "--base-url", "https://example.org/", "--out", out, "--exclude", "**/*.csv", src)
	if code != exitOK || stderr != "" {
		t.Errorf("--exclude: exit code %d, stderr %q; want 0 and nothing", code, stderr)
	}
}

// TestCLIEnvironment: RSGEN_BASE_URL, RSGEN_HASH and SOURCE_DATE_EPOCH are
// honoured, and flags win over them.
func TestCLIEnvironment(t *testing.T) {
	src := testenv.CopySite(t, siteMtime)
	for _, tc := range []struct {
		name     string
		env      map[string]string
		args     []string
		loc      string // prefix of every <loc>
		hash     string // prefix of every hash attribute
		at       string
		checkAt  bool
		repeated bool // a second build gives the same bytes
	}{
		{name: "RSGEN_BASE_URL", env: map[string]string{"RSGEN_BASE_URL": "https://env.example.org/x"}, loc: "https://env.example.org/x/", hash: "sha-256:"},
		{name: "--base-url beats RSGEN_BASE_URL", env: map[string]string{"RSGEN_BASE_URL": "https://env.example.org/"},
			args: []string{"--base-url", "https://flag.example.org/"}, loc: "https://flag.example.org/", hash: "sha-256:"},
		{name: "RSGEN_HASH", env: map[string]string{"RSGEN_BASE_URL": "https://example.org/", "RSGEN_HASH": "md5,blake3"}, loc: "https://example.org/", hash: "md5:"},
		{name: "SOURCE_DATE_EPOCH", env: map[string]string{"RSGEN_BASE_URL": "https://example.org/", envSourceDateEpoch: "1700000000"},
			loc: "https://example.org/", hash: "sha-256:", at: "2023-11-14T22:13:20Z", checkAt: true, repeated: true},
		{name: "--at beats SOURCE_DATE_EPOCH", env: map[string]string{"RSGEN_BASE_URL": "https://example.org/", envSourceDateEpoch: "1700000000"},
			args: []string{"--at", "2024-06-01T14:00:00+02:00"}, loc: "https://example.org/", hash: "sha-256:", at: "2024-06-01T12:00:00Z", checkAt: true, repeated: true},
		{name: "an empty SOURCE_DATE_EPOCH is unset", env: map[string]string{"RSGEN_BASE_URL": "https://example.org/", envSourceDateEpoch: ""},
			loc: "https://example.org/", hash: "sha-256:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var lists []string
			for range 2 {
				out := t.TempDir()
				args := append(append([]string{"build", "-q", "--out", out}, tc.args...), src)
				code, _, stderr := runCLI(t, context.Background(), args...)
				if code != exitOK {
					t.Fatalf("exit code %d\n%s", code, stderr)
				}
				doc, entries := testenv.ReadList(t, filepath.Join(out, "resourcesync"), "resourcelist.xml")
				if len(entries) != 9 {
					t.Errorf("%d entries, want 9", len(entries))
				}
				for _, e := range entries {
					if !strings.HasPrefix(e.Loc, tc.loc) || !strings.HasPrefix(e.MD.Hash, tc.hash) {
						t.Errorf("entry %s with hash %s, want a URL under %s and a hash %s…", e.Loc, e.MD.Hash, tc.loc, tc.hash)
					}
				}
				if tc.checkAt && (doc.MD.At != tc.at || doc.MD.Completed != tc.at) {
					t.Errorf("at %s, completed %s; want both %s", doc.MD.At, doc.MD.Completed, tc.at)
				}
				b, err := os.ReadFile(filepath.Join(out, "resourcesync", "resourcelist.xml"))
				if err != nil {
					t.Fatal(err)
				}
				lists = append(lists, string(b))
			}
			if tc.repeated && lists[0] != lists[1] {
				t.Error("two builds with a fixed time differ")
			}
		})
	}
}

// TestCLIInterrupted: a build whose context is cancelled (as main does on
// SIGINT or SIGTERM) exits 1, says so, and changes nothing.
func TestCLIInterrupted(t *testing.T) {
	clearEnv(t)
	src := testenv.CopySite(t, siteMtime)
	out := t.TempDir()
	if code, _, stderr := runCLI(t, context.Background(), "build", "-q", "--base-url", "https://example.org/", "--out", out, src); code != exitOK {
		t.Fatalf("first build: %d\n%s", code, stderr)
	}
	before := treeState(t, out)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, _, stderr := runCLI(t, ctx, "build", "--base-url", "https://example.org/", "--out", out, "--at", "2030-01-01T00:00:00Z", src)
	if code != exitFailure {
		t.Errorf("exit code %d, want %d", code, exitFailure)
	}
	inOrder(t, stderr, "rsgen: error: interrupted; nothing was published, the output is as it was")
	checkMessages(t, stderr)
	sameTree(t, treeState(t, out), before)
	testenv.NoStage(t, out)
}

// TestCLIOutputIsSource: without --out the documents go into SOURCE, and a
// second build does not publish the first one's documents.
func TestCLIOutputIsSource(t *testing.T) {
	clearEnv(t)
	src := testenv.CopySite(t, siteMtime)
	for i := range 2 {
		code, _, stderr := runCLI(t, context.Background(), "build", "-q", "--hidden", "--base-url", "https://example.org/", src)
		if code != exitOK {
			t.Fatalf("build %d: exit code %d\n%s", i+1, code, stderr)
		}
		_, entries := testenv.ReadList(t, filepath.Join(src, "resourcesync"), "resourcelist.xml")
		if len(entries) != 10 { // the 9 files and .hidden-note
			t.Errorf("build %d: %d entries, want 10", i+1, len(entries))
		}
		for _, e := range entries {
			if strings.Contains(e.Loc, "resourcesync") || strings.Contains(e.Loc, "rsgen-stage") {
				t.Errorf("build %d publishes its own output: %s", i+1, e.Loc)
			}
		}
	}
	testenv.NoStage(t, src)
}

// TestCLILongURL: a file whose URL would pass 2,048 characters is skipped
// and named, and the exit code is 3.
func TestCLILongURL(t *testing.T) {
	clearEnv(t)
	src := testenv.CopySite(t, siteMtime)
	rel := filepath.Join(strings.Repeat(strings.Repeat("d", 200)+"/", 11), "too-long.txt")
	p := filepath.Join(src, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, _, stderr := runCLI(t, context.Background(), "build", "--base-url", "https://example.org/", "--out", out, src)
	if code != exitPartial {
		t.Errorf("exit code %d, want %d\n%s", code, exitPartial, stderr)
	}
	inOrder(t, stderr, "rsgen: skipped: "+filepath.ToSlash(rel)+": URL longer than the 2,048 characters", "rsgen: published 9 files",
		"rsgen: error: 1 file could not be published")
	checkMessages(t, stderr)
}

// TestCLIOutputNotRsgens: a resourcesync/ folder holding a user's files is
// refused (exit 1, the file named, nothing changed), and so is an output
// another build is publishing into.
func TestCLIOutputNotRsgens(t *testing.T) {
	clearEnv(t)
	t.Run("user's file", func(t *testing.T) {
		src := testenv.CopySite(t, siteMtime)
		notes := filepath.Join(src, "resourcesync", "notes.txt")
		if err := os.MkdirAll(filepath.Dir(notes), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(notes, []byte("precious"), 0o644); err != nil {
			t.Fatal(err)
		}
		before := treeState(t, src)
		code, _, stderr := runCLI(t, context.Background(), "build", "-q", "--base-url", "https://example.org/", src)
		if code != exitFailure || !strings.Contains(stderr, "resourcesync/notes.txt") || !strings.Contains(stderr, "rsgen: hint:") {
			t.Errorf("exit code %d, stderr:\n%s\nwant 1, naming resourcesync/notes.txt, with a hint", code, stderr)
		}
		sameTree(t, treeState(t, src), before)
		testenv.NoStage(t, src)
	})
	t.Run("busy", func(t *testing.T) {
		src := testenv.CopySite(t, siteMtime)
		out := t.TempDir()
		st, err := stage.New(out, false)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Discard()
		code, _, stderr := runCLI(t, context.Background(), "build", "-q", "--base-url", "https://example.org/", "--out", out, src)
		if code != exitFailure || !strings.Contains(stderr, "another build") {
			t.Errorf("exit code %d, stderr:\n%s\nwant 1, saying another build is running", code, stderr)
		}
	})
}
