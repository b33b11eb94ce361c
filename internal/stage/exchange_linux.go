package stage

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// exchange puts the directory newDir at oldDir. If oldDir exists, the two
// are swapped atomically (renameat2 RENAME_EXCHANGE) and newDir then holds
// the old content; it reports whether a swap happened.
func exchange(newDir, oldDir string) (bool, error) {
	err := unix.Renameat2(unix.AT_FDCWD, newDir, unix.AT_FDCWD, oldDir, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.ENOENT):
		if _, serr := os.Lstat(oldDir); errors.Is(serr, fs.ErrNotExist) {
			return false, os.Rename(newDir, oldDir)
		}
		return false, err
	case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL):
		return exchangeByRename(newDir, oldDir)
	}
	return false, err
}
