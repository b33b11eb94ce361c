//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package hashcache

import (
	"os"
	"strings"

	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/regfile"
)

// lock takes the lock of f (confined.TryLock), and reports whether it did.
func lock(f *os.File) bool {
	ok, _ := confined.TryLock(f)
	return ok
}

// removeStale removes the temporary files, each as large as a cache, of
// killed writers: those no running writer holds locked.
func removeStale(dir, prefix string) {
	root, err := confined.Open(dir)
	if err != nil {
		return
	}
	defer root.Close()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) || !e.Type().IsRegular() {
			continue
		}
		f, err := root.OpenFile(e.Name(), regfile.OpenFlags, 0)
		if err != nil {
			continue
		}
		if lock(f) {
			root.Remove(e.Name())
		}
		f.Close()
	}
}
