//go:build unix && !linux

package confined

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Exchange fails with errors.ErrUnsupported: only Linux has renameat2.
func (r *Root) Exchange(oldname string, dst *Root, newname string) error {
	return errors.ErrUnsupported
}

// linkFile fails: there is no /proc/self/fd to link an open file by.
func linkFile(*os.File, int, string) error { return unix.ENOSYS }
