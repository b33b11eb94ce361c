package generator

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The official validator, rs-validate.py, sits in ../shared/tools beside
// the checkout (as in CI) and needs /usr/bin/python3 with lxml. Looked for
// once: starting python costs more than the builds it checks.
var findOfficial = sync.OnceValues(func() (string, error) {
	script, err := filepath.Abs("../../shared/tools/rs-validate.py")
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(script); err != nil {
		return "", errors.New("the official validator is not beside the checkout (../shared/tools/rs-validate.py)")
	}
	if err := exec.Command(officialPython, "-c", "import lxml").Run(); err != nil {
		return "", errors.New("python3-lxml is not installed")
	}
	return script, nil
})

const officialPython = "/usr/bin/python3"

// officialValidator returns the official validator's script, or "" where
// it cannot run: a newcomer's machine with Go alone. In CI (CI=true),
// which installs what it needs, a missing validator fails the test.
func officialValidator(t testing.TB) string {
	t.Helper()
	script, err := findOfficial()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v, and CI must run it", err)
		}
		t.Logf("%v: documents not checked with it", err)
		return ""
	}
	return script
}

// runOfficial runs the official validator with -w --require-up over the
// documents and Source Description of each output directory, where it can
// run, and fails the test on an error or a warning.
func runOfficial(t testing.TB, outs ...string) {
	t.Helper()
	script := officialValidator(t)
	if script == "" {
		return
	}
	for _, out := range outs {
		cmd := exec.Command(officialPython, script, "-w", "--require-up", filepath.Join(out, DocsDir), filepath.Join(out, WellKnownFile))
		b, err := cmd.CombinedOutput()
		if err != nil || strings.Contains(string(b), "WARN") {
			t.Errorf("the official validator rejects %s: %v\n%s", out, err, b)
		}
	}
}
