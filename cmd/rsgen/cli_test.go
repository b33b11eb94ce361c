package main

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/testenv"
)

// The environment variables rsgen reads: cleared for every test, so that
// the caller's environment does not change the results.
var rsgenEnv = []string{envBaseURL, envDocsURL, envHash, envSourceDateEpoch, envPrevious, envCache, envHub, envState}

func clearEnv(t *testing.T) {
	t.Helper()
	for _, k := range rsgenEnv {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}

// siteMtime is the modification time of the files of the example
// collection copied for a test (testenv.CopySite).
var siteMtime = time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC)

// treeState maps every path under dir to its mode and content.
func treeState(t testing.TB, dir string) map[string]string {
	t.Helper()
	st := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		v := info.Mode().String()
		if info.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			v += " " + string(b)
		}
		st[rel] = v
		return nil
	})
	return st
}

func sameTree(t testing.TB, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s changed or vanished", k)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s appeared", k)
		}
	}
}

// messageStyle is how every error and hint line reads: lower case, no
// final period.
var messageStyle = regexp.MustCompile(`^rsgen: (error|hint|skipped|notice|warning): [^A-Z].*[^.]$`)

func checkMessages(t *testing.T, stderr string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		if strings.HasPrefix(line, "rsgen: error:") || strings.HasPrefix(line, "rsgen: hint:") {
			if !messageStyle.MatchString(line) {
				t.Errorf("stderr line %q: messages are lower case, without a final period", line)
			}
		}
	}
}

func TestCLI(t *testing.T) {
	src := testenv.CopySite(t, siteMtime)
	file := filepath.Join(src, "index.html")
	base := "https://example.org/"
	type tc struct {
		name   string
		args   []string
		env    map[string]string
		code   int
		stderr []string // substrings of stderr, in order
		stdout []string
		quiet  bool // stderr must be empty
	}
	out := func() string { return filepath.Join(t.TempDir(), "out") }
	build := func(extra ...string) []string {
		return append(append([]string{"build", "--base-url", base, "--out", out(), "--at", "2024-06-01T00:00:00Z"}, extra...), src)
	}
	usage := func(name string, args []string, want ...string) tc {
		return tc{name: name, args: args, code: exitUsage, stderr: append([]string{"rsgen: error: "}, want...)}
	}
	for _, c := range []tc{
		// help and version: testdata/script/help.txtar, version.txtar
		usage("unknown command", []string{"publish"}, `unknown command "publish"`, "rsgen: hint: see 'rsgen --help'"),
		usage("unknown flag", []string{"build", "--bogus", src}, "bogus", "rsgen: hint: see 'rsgen build --help'"),
		usage("no source", []string{"build", "--base-url", base}, "no SOURCE given", "rsgen: hint: give a directory, or a .tar, .tar.gz, .tgz or .zip archive"),
		usage("too many arguments", []string{"build", "--base-url", base, src, "extra"}, "too many arguments", "rsgen: hint: give one SOURCE"),
		usage("no base URL", []string{"build", src}, "--base-url is required", "rsgen: hint: set --base-url (or $RSGEN_BASE_URL)"),
		usage("relative base URL", []string{"build", "--base-url", "example.org/site", src}, "--base-url", "not an absolute http or https URL", "hint: give an absolute URL"),
		usage("path as base URL", []string{"build", "--base-url", "/site/", src}, "--base-url", "not an absolute"),
		usage("ftp base URL", []string{"build", "--base-url", "ftp://example.org/", src}, "--base-url", "not an absolute http or https URL"),
		usage("base URL with a query", []string{"build", "--base-url", "https://example.org/?a=1", src}, "--base-url", "query"),
		usage("base URL with a fragment", []string{"build", "--base-url", "https://example.org/#x", src}, "--base-url", "fragment"),
		usage("base URL with credentials", []string{"build", "--base-url", "https://user:secret@example.org/", src}, "--base-url", "credentials"),
		usage("bad docs URL", []string{"build", "--base-url", base, "--docs-url", "docs", src}, "--docs-url"),
		usage("unknown hash", []string{"build", "--base-url", base, "--hash", "sha-512", src}, "--hash", `"sha-512"`, "md5, sha-1, sha-256, blake3", "hint: for example --hash sha-256"),
		usage("hash twice", []string{"build", "--base-url", base, "--hash", "md5,MD5", src}, "--hash", "twice"),
		usage("no hash", []string{"build", "--base-url", base, "--hash", ",", src}, "--hash", "no hash algorithm"),
		usage("bad --at", []string{"build", "--base-url", base, "--at", "yesterday", src}, `--at "yesterday"`, "hint: for example --at 2024-05-01T12:00:00Z"),
		usage("--at without a zone", []string{"build", "--base-url", base, "--at", "2024-06-01T00:00:00", src}, "--at"),
		{name: "bad SOURCE_DATE_EPOCH", args: []string{"build", "--base-url", base, src}, env: map[string]string{envSourceDateEpoch: "1.5e9"},
			code: exitUsage, stderr: []string{"rsgen: error: $SOURCE_DATE_EPOCH=\"1.5e9\"", "hint: it is a number of seconds"}},
		{name: "negative SOURCE_DATE_EPOCH", args: []string{"build", "--base-url", base, src}, env: map[string]string{envSourceDateEpoch: "-1"},
			code: exitUsage, stderr: []string{"rsgen: error: $SOURCE_DATE_EPOCH"}},
		{name: "SOURCE_DATE_EPOCH past year 9999", args: []string{"build", "--base-url", base, src}, env: map[string]string{envSourceDateEpoch: "253402300800"},
			code: exitUsage, stderr: []string{"rsgen: error: $SOURCE_DATE_EPOCH"}},
		usage("--jobs -1", []string{"build", "--base-url", base, "--jobs", "-1", src}, "--jobs -1"),
		usage("bad --exclude", []string{"build", "--base-url", base, "--exclude", "[a", src}, "--exclude", "doublestar"),
		{name: "missing source", args: []string{"build", "--base-url", base, filepath.Join(src, "nowhere")}, code: exitUsage,
			stderr: []string{"rsgen: error: source ", "nowhere: no such directory\n", "rsgen: hint: give as SOURCE an existing directory"}},
		{name: "source is a file", args: []string{"build", "--base-url", base, file}, code: exitUsage,
			stderr: []string{"rsgen: error: source ", "index.html is not a directory", "rsgen: hint: give as SOURCE"}},
		{name: "output under a file", args: []string{"build", "--base-url", base, "--out", filepath.Join(file, "out"), src}, code: exitFailure,
			stderr: []string{"rsgen: error: output directory ", "index.html/out", "not a directory", "rsgen: hint: give --out a directory"}},
		{name: "success", args: build(), stderr: []string{"rsgen: published 9 files (", ") in 3 documents to ", " in "}},
		{name: "quiet success", args: build("--quiet"), quiet: true},
		{name: "base URL from the environment", args: []string{"build", "--out", out(), "-q", src}, env: map[string]string{envBaseURL: base}, quiet: true},
		{name: "base URL with a path", args: []string{"build", "--base-url", base + "site", "--out", out(), src},
			stderr: []string{"rsgen: warning: --base-url https://example.org/site/ has a path", "https://example.org/site/.well-known/resourcesync", "rsgen: published"}},
		// every option, and the keys of the file only: testdata/script/file_keys.txtar
	} {
		t.Run(c.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			code, stdout, stderr := runCLI(t, context.Background(), c.args...)
			if code != c.code {
				t.Errorf("exit code %d, want %d\nstderr: %s", code, c.code, stderr)
			}
			rest := stderr
			for _, want := range c.stderr {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Errorf("stderr lacks %q (in order):\n%s", want, stderr)
					break
				}
				rest = rest[i+len(want):]
			}
			for _, want := range c.stdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			if c.quiet && stderr != "" {
				t.Errorf("stderr, want none:\n%s", stderr)
			}
			if c.code != exitOK && stdout != "" {
				t.Errorf("a failure writes on stdout:\n%s", stdout)
			}
			checkMessages(t, stderr)
		})
	}
}
