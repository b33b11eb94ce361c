package generator

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

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
	acBuild(t, acCachedConfig(tr.dir, out, cache, acDay(1)))
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
		acSameFiles(t, "the directory after a full disk", testenv.ReadTree(t, dir), before)
		if n <= after {
			t.Errorf("full after %d resources: only %d were spooled", after, n)
		}
	}
}

// The changes of a build are sorted on disk: a build that changes more of
// them than the sort's memory holds, with a Change Dump, publishes the
// bytes of one whose changes are sorted in memory.
func TestChangesSortSpills(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 2000 {
		files[fmt.Sprintf("d%d/f%04d.txt", i%13, i)] = fmt.Sprint("v", i)
	}
	var golden map[string]string
	for _, mem := range []int{16 << 20, 8 << 10} {
		func() {
			tr := acNewTree(t, files, acT0)
			out := t.TempDir()
			acBuild(t, acConfig(tr.dir, out, acDay(1)))
			i := 0
			for _, rel := range slices.Sorted(maps.Keys(files)) {
				switch i++; i % 4 {
				case 0:
					tr.remove(rel)
				case 1, 2:
					tr.write(rel, files[rel]+" changed", acT0.Add(time.Duration(i%50)*time.Hour))
				}
			}
			for i := range 300 {
				tr.write(fmt.Sprintf("new/%04d.txt", i), "new", acDay(1).Add(time.Duration(i)*time.Minute))
			}
			cfg := acConfig(tr.dir, out, acDay(2))
			cfg.Changes.Previous, cfg.Changes.Dump = out, true
			cfg.sortMemory = mem
			cfg.MaxDelete = &DeleteLimit{N: 100, Percent: true}
			rep := acBuild(t, cfg)
			if rep.Changes.Created != 300 || rep.Changes.Updated != 1000 || rep.Changes.Deleted != 500 {
				t.Fatalf("changes %+v", rep.Changes)
			}
			got := testenv.ReadTree(t, out)
			if golden == nil {
				golden = got
				return
			}
			acSameFiles(t, fmt.Sprintf("changes sorted in %d bytes", mem), got, golden)
		}()
	}
}
