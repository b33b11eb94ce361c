package testenv

import (
	gobuild "go/build"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// CI reports whether the tests run in CI ($CI is true), where .ci/run has
// installed every tool the tests use.
func CI() bool { return os.Getenv("CI") == "true" }

// Need skips t for want of what (a tool, a package), saying how to get it;
// in CI, where .ci/run installs every tool, a missing one fails t instead.
func Need(t testing.TB, what, how string) {
	t.Helper()
	if CI() {
		t.Fatalf("%s not found (CI=true: .ci/run installs it: %s)", what, how)
	}
	t.Skipf("%s not found: skipped (%s)", what, how)
}

// Tool returns the path of the program name: $env if env is set, else
// name on PATH or in $GOPATH/bin, else the first of paths that exists;
// "" if none.
func Tool(env, name string, paths ...string) string {
	if env != "" {
		if p := os.Getenv(env); p != "" {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	paths = append(paths, filepath.Join(gobuild.Default.GOPATH, "bin", name))
	for _, p := range paths {
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			return p
		}
	}
	return ""
}
