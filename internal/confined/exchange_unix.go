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

// Link makes name a hard link to the open file f, by the name f was
// opened by, kept only if it is then the very file f; it fails with
// errors.ErrUnsupported where that cannot be done (another file system, a
// name swapped meanwhile): copy from f then.
func (r *Root) Link(f *os.File, name string) error {
	dirfd, base, err := r.parent("link", name, true)
	if err != nil {
		return err
	}
	defer r.closeDir(dirfd)
	return linkByName(f, dirfd, base)
}
