//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package hashcache

import (
	"errors"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/rsgen/rsgen/internal/storage/confined"
)

// lock takes an exclusive flock(2) of f without waiting, and reports
// whether it did: a temporary file whose lock can be taken is written by
// no one, as the system releases it when the process ends.
func lock(f *os.File) bool {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			return err == nil
		}
	}
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
		f, err := root.OpenFile(e.Name(), os.O_RDONLY|unix.O_NONBLOCK, 0)
		if err != nil {
			continue
		}
		if lock(f) {
			root.Remove(e.Name())
		}
		f.Close()
	}
}
