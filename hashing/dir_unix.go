//go:build unix

package hashing

import (
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
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

func openRetry(open func() (int, error)) (int, error) {
	var fd int
	err := retryEINTR(func() (err error) {
		fd, err = open()
		return err
	})
	return fd, err
}

// ReadDir lists d, sorted by name. On an error it returns what it could
// list, with the error.
func (d *Dir) ReadDir() ([]fs.DirEntry, error) {
	l, err := d.List()
	if err != nil {
		return nil, err
	}
	defer l.Close()
	entries, err := l.Next(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// List starts listing d a batch at a time, in the order the file system
// gives, for a directory too large to list at once.
func (d *Dir) List() (*Listing, error) {
	// A duplicate, read and closed by an *os.File, leaves d's own
	// descriptor to the openat calls of other goroutines.
	fd, err := unix.FcntlInt(uintptr(d.sys.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: d.path, Err: err}
	}
	return &Listing{f: os.NewFile(uintptr(fd), d.path)}, nil
}

// Lstat returns the FileInfo of name in d, not following a symbolic link.
func (d *Dir) Lstat(name string) (FileInfo, error) {
	var st unix.Stat_t
	if err := retryEINTR(func() error { return unix.Fstatat(d.sys.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return FileInfo{}, &fs.PathError{Op: "lstat", Path: d.path + "/" + name, Err: err}
	}
	return fileInfoOf(&st), nil
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

// openFile opens the file name of d with openFlags.
func (d *Dir) openFile(name string) (int, error) {
	return openRetry(func() (int, error) { return unix.Openat(d.sys.fd, name, openFlags, 0) })
}

// fileInfoOf is the FileInfo of a stat.
func fileInfoOf(st *unix.Stat_t) FileInfo {
	return FileInfo{
		Size:    st.Size,
		ModTime: time.Unix(st.Mtim.Unix()),
		Ctime:   time.Unix(st.Ctim.Unix()),
		Mode:    modeType(uint32(st.Mode)), //nolint:unconvert // types differ by platform
		Dev:     uint64(st.Dev),            //nolint:unconvert // uint32 on some architectures
		Ino:     uint64(st.Ino),            //nolint:unconvert
	}
}

func modeType(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}

func retryEINTR(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}
