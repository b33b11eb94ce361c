//go:build unix

package hashing

import (
	"io/fs"
	"os"
	"syscall"
)

// O_NOFOLLOW refuses a symbolic link swapped in after the walk saw a file;
// O_NONBLOCK keeps open from waiting for a writer on a FIFO.
const openFlags = os.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_CLOEXEC

// clearNonblock is a no-op for regular files: O_NONBLOCK does not change how
// reads of a regular file behave on any unix, so the flag can stay set.
func clearNonblock(*os.File) error { return nil }

func devIno(st fs.FileInfo) (uint64, uint64) {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Dev), uint64(s.Ino) //nolint:unconvert // types differ by platform
	}
	return 0, 0
}
