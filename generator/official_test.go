package generator

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/generator/internal/archives"
	"github.com/rsgen/rsgen/generator/internal/changelists"
	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/internal/testenv"
)

// runOfficial runs the official validator with -w --require-up over the
// documents and Source Description of each output directory, where it can
// run, and fails the test on an error or a warning.
func runOfficial(t testing.TB, outs ...string) {
	t.Helper()
	if testenv.Official(t) == nil {
		return
	}
	for _, out := range outs {
		b, _ := testenv.RunOfficial(t, "-w", "--require-up", filepath.Join(out, docsDir), filepath.Join(out, stage.WellKnownFile))
		for _, line := range strings.Split(strings.TrimSpace(b), "\n") {
			if !strings.HasPrefix(line, "OK ") && !archiveCapabilityOnly(line) {
				t.Errorf("the official validator rejects %s:\n%s", out, b)
				break
			}
		}
	}
}

// archiveCapabilityOnly reports whether line is the official validator's
// failure of an archive for its capability alone: it checks ResourceSync
// 1.1, whose capabilities do not include those of ResourceSync Archives.
// The schemas take any capability (xsd:string), so any other finding (a
// schema error included) joins this one on the line.
func archiveCapabilityOnly(line string) bool {
	file, msg, ok := strings.Cut(strings.TrimPrefix(line, "FAIL "), ": ")
	if !ok || !strings.HasPrefix(line, "FAIL ") || strings.Contains(msg, "; ") {
		return false
	}
	for _, name := range []string{changelists.ArchiveName, archives.ChangeDumpArchiveName, archives.ResourceListArchiveName, archives.ResourceDumpArchiveName} {
		capability := strings.TrimSuffix(name, ".xml")
		if filepath.Base(file) == name && strings.HasPrefix(msg, "root <rs:md> capability='"+capability+"' is not one of ") {
			return true
		}
	}
	return false
}
