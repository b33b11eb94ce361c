package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rsgen/rsgen/cmd/rsgen/internal/signals"
	"github.com/rsgen/rsgen/internal/testenv"
)

// TestMain lets the scripts run rsgen: testscript puts a command of that
// name, this test binary running Main, on their PATH.
func TestMain(m *testing.M) {
	// testscript runs this binary again as the scripts' "rsgen", named so
	// in os.Args[0]: that run keeps the environment the script gave it.
	if filepath.Base(os.Args[0]) != "rsgen" {
		clearCallerEnv()
		signals.Stop() // the tests themselves stop at Ctrl-C, as tests do
	}
	testscript.RunMain(memTemp{m}, map[string]func() int{"rsgen": Main})
}

// memTemp runs the tests with their temporary directories, the scripts'
// too, on a memory file system where there is one (testenv.MemTemp).
type memTemp struct{ m *testing.M }

func (t memTemp) Run() int { return testenv.Main(t.m) }

// runCLI runs rsgen in-process with args (without the program name): the
// one runner of the Go tests, as Main is the scripts'.
func runCLI(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(ctx, append([]string{"rsgen"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// TestScript runs the scripts of testdata/script: the behaviour of the
// command line as a user sees it, command by command (see their README).
func TestScript(t *testing.T) {
	// What the caller's environment holds must not reach the scripts:
	// testscript starts from a clean one, and scrubEnv makes sure.
	t.Setenv("RSGEN_BASE_URL", "https://leaked.example/")
	t.Setenv(envSourceDateEpoch, "0")
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			env.Vars = scrubEnv(env.Vars)
			repo, err := filepath.Abs(filepath.Join("..", ".."))
			env.Setenv("REPO", repo) // the repository's test data: $REPO/testdata/site, $REPO/validate/testdata
			return err
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"exits":     cmdExits,
			"snapshot":  cmdSnapshot,
			"unchanged": cmdUnchanged,
		},
		RequireExplicitExec: true,
	})
}

// cmdExits runs "exits CODE PROGRAM [ARGS...]": PROGRAM must exit with
// CODE, and its error and hint lines be in rsgen's style (messageStyle);
// its stdout and stderr are kept for the commands that follow.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
	// Every error and hint reads the same way: lower case, no final period.
	for _, line := range strings.Split(ts.ReadFile("stderr"), "\n") {
		if (strings.HasPrefix(line, "rsgen: error:") || strings.HasPrefix(line, "rsgen: hint:")) && !messageStyle.MatchString(line) {
			ts.Fatalf("stderr line %q: messages are lower case, without a final period", line)
		}
	}
}

// cmdSnapshot runs "snapshot DIR": it remembers every file under DIR, with
// its content, for unchanged.
func cmdSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: snapshot DIR")
	}
	ts.Setenv("SNAPSHOT_"+args[0], treeDigest(ts, args[0]))
}

// cmdUnchanged runs "unchanged DIR": DIR must hold exactly the files, with
// the same contents, that it held at its last snapshot.
func cmdUnchanged(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: unchanged DIR")
	}
	before := ts.Getenv("SNAPSHOT_" + args[0])
	if before == "" {
		ts.Fatalf("unchanged %s: no snapshot of it", args[0])
	}
	if now := treeDigest(ts, args[0]); now != before {
		ts.Fatalf("%s changed since its snapshot:\nbefore:\n%s\nnow:\n%s", args[0], before, now)
	}
}

// treeDigest lists the files under dir, each with the SHA-256 of its
// content, one a line, sorted.
func treeDigest(ts *testscript.TestScript, dir string) string {
	root := ts.MkAbs(dir)
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		lines = append(lines, fmt.Sprintf("%x %s", sha256.Sum256(data), filepath.ToSlash(rel)))
		return err
	})
	ts.Check(err)
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// scrubEnv drops from vars every variable that rsgen reads.
func scrubEnv(vars []string) []string {
	return slices.DeleteFunc(slices.Clone(vars), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return strings.HasPrefix(k, "RSGEN_") || k == envSourceDateEpoch
	})
}

func TestScrubEnv(t *testing.T) {
	got := scrubEnv([]string{"PATH=/bin", "RSGEN_BASE_URL" + "=https://x/", "RSGEN_ANYTHING=1", envSourceDateEpoch + "=1", "HOME=/no-home"})
	if want := []string{"PATH=/bin", "HOME=/no-home"}; !slices.Equal(got, want) {
		t.Errorf("scrubEnv = %q, want %q", got, want)
	}
}
