//go:build unix

package confined

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// A Root is a directory opened once: see the package documentation.
type Root struct {
	f    *os.File
	name string
}

// Open opens the directory dir as a Root.
func Open(dir string) (*Root, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	return &Root{f: f, name: dir}, nil
}

func (r *Root) Close() error { return r.f.Close() }

// TryLock takes an exclusive flock(2) of f without waiting, and reports
// whether it did. The system releases it when the process ends, however:
// a lock that can be taken is held by no running build.
func TryLock(f *os.File) (bool, error) {
	err := retry(func() error { return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) })
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// Unlock releases the lock of f, before f is closed: a process forked
// meanwhile (os/exec, between fork and exec) shares the open file and
// would hold the lock until it execs.
func Unlock(f *os.File) { unix.Flock(int(f.Fd()), unix.LOCK_UN) }

// SyncDir makes the entries of dir durable. File systems that cannot sync
// a directory order their metadata themselves.
func SyncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if errors.Is(err, unix.EINVAL) || errors.Is(err, errors.ErrUnsupported) {
		err = nil
	}
	return CloseAfter(f, err)
}

func retry(f func() error) error {
	for {
		if err := f(); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

func openDir(dirfd int, name string) (int, error) {
	var fd int
	err := retry(func() (err error) {
		fd, err = unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return -1, linkErr(dirfd, name, err)
	}
	return fd, nil
}

// linkErr returns ErrSymlink if name in dirfd is a symbolic link (what
// O_NOFOLLOW reports as ELOOP, ENOTDIR or EMLINK, by system), else err.
func linkErr(dirfd int, name string, err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EMLINK) {
		var st unix.Stat_t
		if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return ErrSymlink
		}
	}
	return err
}

// parent opens the directory that holds the last part of name, walking
// from r without following a link (making the missing ones if mkdir), and
// returns it with that last part; the caller closes it with closeDir.
func (r *Root) parent(op, name string, mkdir bool) (int, string, error) {
	parts, err := split(name)
	if err != nil {
		return -1, "", &fs.PathError{Op: op, Path: r.Path(name), Err: err}
	}
	fd := int(r.f.Fd())
	if len(parts) == 0 {
		return fd, ".", nil
	}
	for i, p := range parts[:len(parts)-1] {
		next, err := openDir(fd, p)
		if mkdir && errors.Is(err, unix.ENOENT) {
			if err = unix.Mkdirat(fd, p, 0o755); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = openDir(fd, p)
			}
		}
		r.closeDir(fd)
		if err != nil {
			return -1, "", &fs.PathError{Op: op, Path: r.Path(filepath.Join(parts[:i+1]...)), Err: err}
		}
		fd = next
	}
	return fd, parts[len(parts)-1], nil
}

// at calls fn with the parent of name and its last part; its error is
// wrapped in an *fs.PathError of op.
func (r *Root) at(op, name string, mkdir bool, fn func(dirfd int, base string) error) error {
	dirfd, base, err := r.parent(op, name, mkdir)
	if err != nil {
		return err
	}
	defer r.closeDir(dirfd)
	if err := fn(dirfd, base); err != nil {
		return &fs.PathError{Op: op, Path: r.Path(name), Err: err}
	}
	return nil
}

// at2 is at for oldname in r and newname in dst (whose missing
// directories it makes if mkdir), with an *os.LinkError.
func (r *Root) at2(op, oldname string, dst *Root, newname string, mkdir bool, fn func(ofd int, obase string, nfd int, nbase string) error) error {
	ofd, obase, err := r.parent(op, oldname, false)
	if err != nil {
		return err
	}
	defer r.closeDir(ofd)
	nfd, nbase, err := dst.parent(op, newname, mkdir)
	if err != nil {
		return err
	}
	defer dst.closeDir(nfd)
	if err := fn(ofd, obase, nfd, nbase); err != nil {
		return &os.LinkError{Op: op, Old: r.Path(oldname), New: dst.Path(newname), Err: err}
	}
	return nil
}

func (r *Root) closeDir(fd int) {
	if fd != int(r.f.Fd()) {
		unix.Close(fd)
	}
}

// OpenFile opens name with flag (os.O_RDONLY and the others) and, if it is
// created, perm; a last name that is a link fails with ErrSymlink.
func (r *Root) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	var fd int
	err := r.at("open", name, false, func(dirfd int, base string) error {
		err := retry(func() (err error) {
			fd, err = unix.Openat(dirfd, base, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
			return err
		})
		if err != nil && !errors.Is(err, unix.EEXIST) {
			err = linkErr(dirfd, base, err)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), r.Path(name)), nil
}

func (r *Root) Mkdir(name string, perm fs.FileMode) error {
	return r.at("mkdir", name, false, func(dirfd int, base string) error {
		return unix.Mkdirat(dirfd, base, uint32(perm.Perm()))
	})
}

// MkdirAll makes the directory name and those missing on the way; a link
// on the way, or as name, fails it.
func (r *Root) MkdirAll(name string, perm fs.FileMode) error {
	return r.at("mkdir", name, true, func(dirfd int, base string) error {
		if base == "." {
			return nil
		}
		err := unix.Mkdirat(dirfd, base, uint32(perm.Perm()))
		if errors.Is(err, unix.EEXIST) {
			var fd int
			if fd, err = openDir(dirfd, base); err == nil {
				unix.Close(fd)
			}
		}
		return err
	})
}

// Remove removes the file, link or empty directory name.
func (r *Root) Remove(name string) error { return r.at("remove", name, false, removeAt) }

func removeAt(dirfd int, name string) error { // EISDIR on Linux, EPERM elsewhere
	err := unix.Unlinkat(dirfd, name, 0)
	if errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EPERM) {
		if derr := unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR); !errors.Is(derr, unix.ENOTDIR) {
			err = derr
		}
	}
	return err
}

// RemoveDir removes the directory name if it is empty; a link is left.
func (r *Root) RemoveDir(name string) error {
	return r.at("remove", name, false, func(dirfd int, base string) error {
		return unix.Unlinkat(dirfd, base, unix.AT_REMOVEDIR)
	})
}

// RemoveAll removes name and, if it is a directory, everything in it; a
// link is removed, never followed. A name that does not exist is no error.
func (r *Root) RemoveAll(name string) error {
	err := r.at("remove", name, false, func(dirfd int, base string) error {
		if base == "." {
			return errName
		}
		return removeAllAt(dirfd, base)
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func removeAllAt(dirfd int, name string) error {
	err := removeAt(dirfd, name)
	if err == nil || !(errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST)) {
		return err
	}
	fd, err := openDir(dirfd, name)
	if err != nil {
		return err
	}
	d := os.NewFile(uintptr(fd), name)
	defer d.Close()
	// All the names first: removing entries while a directory is read may
	// make the reading skip some.
	names, err := d.Readdirnames(-1)
	if err != nil {
		return err
	}
	for _, n := range names {
		if err := removeAllAt(fd, n); err != nil && !errors.Is(err, unix.ENOENT) {
			return err
		}
	}
	return unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
}

// Rename renames oldname in r to newname in dst (r itself, or another Root
// on the same file system), replacing what newname is unless it is a
// non-empty directory; neither name is followed if it is a link.
func (r *Root) Rename(oldname string, dst *Root, newname string) error {
	return r.at2("rename", oldname, dst, newname, false, unix.Renameat)
}

// LinkAt makes newname in dst a hard link to oldname in r, which is linked
// itself if it is a symbolic link, never its target.
func (r *Root) LinkAt(oldname string, dst *Root, newname string) error {
	return r.at2("link", oldname, dst, newname, true, func(ofd int, obase string, nfd int, nbase string) error {
		return unix.Linkat(ofd, obase, nfd, nbase, 0)
	})
}

// Chtimes sets the access and modification times of name, not of what it
// leads to if it is a link.
func (r *Root) Chtimes(name string, atime, mtime time.Time) error {
	ts := []unix.Timespec{unix.NsecToTimespec(atime.UnixNano()), unix.NsecToTimespec(mtime.UnixNano())}
	return r.at("chtimes", name, false, func(dirfd int, base string) error {
		return unix.UtimesNanoAt(dirfd, base, ts, unix.AT_SYMLINK_NOFOLLOW)
	})
}

// Link makes name a hard link to the very file f, whatever its name now
// leads to. It fails with errors.ErrUnsupported where that cannot be done
// (another file system, a name swapped meanwhile): copy from f then.
func (r *Root) Link(f *os.File, name string) error {
	dirfd, base, err := r.parent("link", name, true)
	if err != nil {
		return err
	}
	defer r.closeDir(dirfd)
	err = linkFile(f, dirfd, base)
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

// linkFile makes base in dirfd a hard link to the open file f, through
// /proc/self/fd, which only some systems have.
func linkFile(f *os.File, dirfd int, base string) error {
	return unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), dirfd, base, unix.AT_SYMLINK_FOLLOW)
}

// linkByName links base in dirfd to the name f was opened by, and keeps
// the link only if it is the very file f (device and inode).
func linkByName(f *os.File, dirfd int, base string) error {
	var want, got unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &want); err != nil {
		return errors.ErrUnsupported
	}
	if err := unix.Linkat(unix.AT_FDCWD, f.Name(), dirfd, base, 0); err != nil {
		if errors.Is(err, unix.EEXIST) {
			return err
		}
		return errors.ErrUnsupported
	}
	if unix.Fstatat(dirfd, base, &got, unix.AT_SYMLINK_NOFOLLOW) != nil || got.Dev != want.Dev || got.Ino != want.Ino {
		unix.Unlinkat(dirfd, base, 0)
		return errors.ErrUnsupported
	}
	return nil
}
