//go:build unix && !linux

package confined

import (
	"errors"
	"os"
)

// Exchange fails with errors.ErrUnsupported: only Linux has renameat2.
func (r *Root) Exchange(oldname string, dst *Root, newname string) error {
	return errors.ErrUnsupported
}

func renameat2(int, string, int, string, uint) error { return errors.ErrUnsupported }

// Link fails with errors.ErrUnsupported: without /proc/self/fd a file
// cannot be linked by its descriptor; copy from f.
func (r *Root) Link(f *os.File, name string) error { return errors.ErrUnsupported }
