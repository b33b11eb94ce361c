//go:build unix

package validate_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rsgen/rsgen/validate"
)

// A listed file that is now a FIFO is reported as not a regular file,
// and the audit goes on: it is never opened for a writer that never comes.
func TestAuditFIFO(t *testing.T) {
	t.Parallel()
	dir := oddSite(t, "https://example.org/")
	p := filepath.Join(dir, "plain.txt")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	rep, err := validate.Path(context.Background(), dir, validate.Options{Resources: dir})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range rep.Findings {
		if strings.Contains(f.Message, "plain.txt is not a regular file") {
			found = true
		}
	}
	if !found {
		t.Errorf("no finding says plain.txt is not a regular file: %v", rep.Findings)
	}
}
