package testenv

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Python is the interpreter the official validator runs with: Debian's,
// which python3-lxml installs into.
const Python = "/usr/bin/python3"

// findOfficial looks for the official validator once: starting Python
// costs more than most of the checks it makes.
var findOfficial = sync.OnceValues(func() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	script := filepath.Join(filepath.Dir(root), "shared", "tools", "rs-validate.py")
	if _, err := os.Stat(script); err != nil {
		return "", errors.New("the official validator is not beside the checkout (../shared/tools/rs-validate.py)")
	}
	if err := exec.Command(Python, "-c", "import lxml").Run(); err != nil {
		return "", errors.New(Python + " with lxml (Debian python3-lxml) is not installed")
	}
	return script, nil
})

// moduleRoot is the directory of the go.mod above the working directory,
// which go test sets to the package's directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Official returns the command that runs the official validator,
// rs-validate.py, which sits in ../shared/tools beside the checkout (as in
// CI) and needs Python with lxml; or nil where it cannot run, a newcomer's
// machine with Go alone, saying so in the test's log. In CI (CI=true),
// which installs what it needs, a missing validator fails t.
func Official(t testing.TB) []string {
	t.Helper()
	script, err := findOfficial()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v, and CI must run it", err)
		}
		t.Logf("%v: not checked with the official validator", err)
		return nil
	}
	return []string{Python, script}
}

// ReadTree reads every file under dir into a map by slash-separated path.
func ReadTree(t testing.TB, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
