package generator

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/testenv"
)

// runOfficial runs the official validator with -w --require-up over the
// documents and Source Description of each output directory, where it can
// run, and fails the test on an error or a warning.
func runOfficial(t testing.TB, outs ...string) {
	t.Helper()
	official := testenv.Official(t)
	if official == nil {
		return
	}
	for _, out := range outs {
		args := append(official[1:len(official):len(official)], "-w", "--require-up", filepath.Join(out, DocsDir), filepath.Join(out, WellKnownFile))
		cmd := exec.Command(official[0], args...)
		b, err := cmd.CombinedOutput()
		if err != nil || strings.Contains(string(b), "WARN") {
			t.Errorf("the official validator rejects %s: %v\n%s", out, err, b)
		}
	}
}
