package confined

import (
	"errors"
	"io/fs"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Exchange swaps oldname in r and newname in dst atomically; it fails with
// errors.ErrUnsupported where the system or file system cannot.
func (r *Root) Exchange(oldname string, dst *Root, newname string) error {
	err := r.renameAt("exchange", oldname, dst, newname, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) {
		return errors.ErrUnsupported
	}
	return err
}

func renameat2(ofd int, obase string, nfd int, nbase string, flags uint) error {
	return unix.Renameat2(ofd, obase, nfd, nbase, flags)
}

// Link makes name a hard link to the open file f, the very file opened
// (through /proc/self/fd, or by its name and then checked to be f),
// whatever its name now leads to. It fails with errors.ErrUnsupported
// where that cannot be done (another file system): copy from f then.
func (r *Root) Link(f *os.File, name string) error {
	dirfd, base, err := r.parent("link", name, true)
	if err != nil {
		return err
	}
	defer r.closeDir(dirfd)
	src := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	err = unix.Linkat(unix.AT_FDCWD, src, dirfd, base, unix.AT_SYMLINK_FOLLOW)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EEXIST):
		return &fs.PathError{Op: "link", Path: r.Path(name), Err: err}
	case errors.Is(err, unix.EXDEV):
		return errors.ErrUnsupported
	}
	return linkByName(f, dirfd, base) // no /proc

}
