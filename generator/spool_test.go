package generator

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rsgen/rsgen/internal/testenv"
)

// A disk that fills while the resources are spooled, at any step that
// spools them (the scan, the join with the previous build), fails the
// build with the error of the disk, and leaves the published output, the
// hash cache and the directory as they were: no stage, no spill file, no
// temporary cache.
func TestSpoolFullDisk(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 300 {
		files[filepath.Join("d", string(rune('a'+i%26)), strings.Repeat("x", i%7+1)+string(rune('0'+i%10))+".txt")] = strings.Repeat("y", i)
	}
	tr := acNewTree(t, files, acT0)
	dir := t.TempDir()
	out, cache := filepath.Join(dir, "out"), filepath.Join(dir, "cache")
	mustBuild(t, acCachedConfig(tr.dir, out, cache, acDay(1)))
	tr.write("new.txt", "new", acDay(1))
	before := testenv.ReadTree(t, dir)
	// The scan spools each of the 301 resources, the join each again.
	for _, after := range []int{0, 150, len(files) + 1, len(files) + 150} {
		n := 0
		cfg := acCachedConfig(tr.dir, out, cache, acDay(2))
		cfg.spooled = func() error {
			if n++; n > after {
				return &os.PathError{Op: "write", Path: "spool", Err: syscall.ENOSPC}
			}
			return nil
		}
		cfg.Changes.Previous = out
		_, err := Build(t.Context(), cfg)
		if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "no space left on device") {
			t.Errorf("full after %d resources: error %v, want the full disk", after, err)
		}
		sameFiles(t, "the directory after a full disk", testenv.ReadTree(t, dir), before)
		if n <= after {
			t.Errorf("full after %d resources: only %d were spooled", after, n)
		}
	}
}
