//go:build unix

package tree

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"

	"github.com/rsgen/rsgen/hashing"
)

// dirFlags open a directory of the walk: not through a final symbolic
// link, and only if it is a directory.
const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

type dirSys struct{ fd int }

func (s *dirSys) open(d *Dir, path string) error {
	fd, err := openRetry(func() (int, error) { return unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0) })
	if err != nil {
		return &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return s.init(d, fd)
}

func (s *dirSys) openAt(parent, d *Dir, name string) error {
	fd, err := openRetry(func() (int, error) { return unix.Openat(parent.sys.fd, name, dirFlags, 0) })
	if err != nil {
		return err
	}
	return s.init(d, fd)
}

// init takes fd and records the directory's identity.
func (s *dirSys) init(d *Dir, fd int) error {
	var st unix.Stat_t
	if err := retryEINTR(func() error { return unix.Fstat(fd, &st) }); err != nil {
		unix.Close(fd)
		return err
	}
	s.fd = fd
	d.id = DirID{dev: uint64(st.Dev), ino: uint64(st.Ino)} //nolint:unconvert // types differ by platform
	return nil
}

func (s *dirSys) close() { unix.Close(s.fd) }

// Fd returns d's descriptor, to open its files relative to it (openat).
func (d *Dir) Fd() int { return d.sys.fd }

func openRetry(open func() (int, error)) (int, error) {
	var fd int
	err := retryEINTR(func() (err error) {
		fd, err = open()
		return err
	})
	return fd, err
}

// List starts listing d a batch at a time, in the order the file system
// gives, for a directory too large to list at once.
func (d *Dir) List() (*os.File, error) {
	// A duplicate, read and closed by an *os.File, leaves d's own
	// descriptor to the openat calls of other goroutines.
	fd, err := unix.FcntlInt(uintptr(d.sys.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: d.path, Err: err}
	}
	return os.NewFile(uintptr(fd), d.path), nil
}

// Lstat returns the FileInfo of name in d, not following a symbolic link.
func (d *Dir) Lstat(name string) (hashing.FileInfo, error) {
	var st unix.Stat_t
	if err := retryEINTR(func() error { return unix.Fstatat(d.sys.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return hashing.FileInfo{}, &fs.PathError{Op: "lstat", Path: d.path + "/" + name, Err: err}
	}
	return hashing.FileInfoOf(&st), nil
}

// Readlink returns the target of the symbolic link name in d.
func (d *Dir) Readlink(name string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		var n int
		err := retryEINTR(func() (err error) {
			n, err = unix.Readlinkat(d.sys.fd, name, buf)
			return err
		})
		if err != nil {
			return "", &fs.PathError{Op: "readlink", Path: d.path + "/" + name, Err: err}
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

func retryEINTR(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}
