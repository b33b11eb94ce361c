package confined

import (
	"errors"

	"golang.org/x/sys/unix"
)

// Exchange swaps oldname in r and newname in dst atomically; it fails with
// errors.ErrUnsupported where the system or file system cannot.
func (r *Root) Exchange(oldname string, dst *Root, newname string) error {
	err := r.at2("exchange", oldname, dst, newname, false, func(ofd int, obase string, nfd int, nbase string) error {
		return unix.Renameat2(ofd, obase, nfd, nbase, unix.RENAME_EXCHANGE)
	})
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) {
		return errors.ErrUnsupported
	}
	return err
}
