//go:build unix

package hashing

import (
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// O_NOFOLLOW refuses a symbolic link swapped in after the walk saw a file;
// O_NONBLOCK keeps open from waiting for a writer on a FIFO.
const openFlags = os.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_CLOEXEC

// openAt opens the file name of dir with openFlags, relative to its
// descriptor.
func openAt(dir Dir, name string) (int, error) {
	var fd int
	err := retryEINTR(func() (err error) {
		fd, err = unix.Openat(dir.Fd(), name, openFlags, 0)
		return err
	})
	return fd, err
}

// FileInfoOf is the FileInfo of a stat.
func FileInfoOf(st *unix.Stat_t) FileInfo {
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
