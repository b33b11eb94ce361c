//go:build unix

package notify

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/rsgen/rsgen/internal/storage/regfile"
)

// A FIFO as the state file is refused at once: a plain open would wait
// for a writer forever.
func TestLoadStateFIFO(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "state.json")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	if _, err := loadState(p); !errors.Is(err, regfile.ErrNotRegular) {
		t.Fatalf("LoadState: %v, want regfile.ErrNotRegular", err)
	}
}
