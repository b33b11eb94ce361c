//go:build linux

package hashing

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// An opener opens the files of one worker of a Pool. It keeps the
// directory of the last file open and opens the next file of the same
// directory relative to it (openat), so that the kernel walks the path of a
// directory once per worker rather than once per file: the walker hands out
// a directory's files in a row. A directory renamed or replaced while its
// files are being hashed is read where the descriptor points, the directory
// the walker listed, as a file already open would be. An opener is owned by
// one goroutine.
type opener struct {
	dir   string // directory dirfd refers to; "" if none
	dirfd int
}

func newOpener() *opener { return &opener{dirfd: -1} }

// close releases the directory descriptor.
func (o *opener) close() {
	if o.dirfd >= 0 {
		unix.Close(o.dirfd)
	}
	o.dir, o.dirfd = "", -1
}

// open opens path with openFlags, relative to its directory's descriptor
// when it can have one. A directory that cannot be opened is not an error
// here: the file is then opened by its full path, which reports the error
// a person can act on.
func (o *opener) open(path string) (int, error) {
	dir, base := filepath.Split(path)
	if dir != o.dir && base != "" {
		o.close()
		var fd int
		err := retryEINTR(func() (err error) {
			fd, err = unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			return err
		})
		if err == nil {
			o.dir, o.dirfd = dir, fd
		}
	}
	var fd int
	err := retryEINTR(func() (err error) {
		if o.dirfd >= 0 && dir == o.dir {
			fd, err = unix.Openat(o.dirfd, base, openFlags, 0)
		} else {
			fd, err = unix.Open(path, openFlags, 0)
		}
		return err
	})
	return fd, err
}

// sum opens the regular file at path as OpenRegular does, reads it once
// through h and returns its FileInfo and sum (appended to dst).
//
// It works on the raw descriptor rather than an *os.File: on Linux,
// os.OpenFile tries to register every descriptor with the netpoller (a
// failing epoll_ctl per file) and sets up locking and a finalizer that a
// file read once by one goroutine does not need. Together with
// sumRegular, which saves the read(2) that only confirms the end of a
// small file, this takes reading a small file from 6 system calls to 4
// (openat, fstat, read, close); see docs/PERFORMANCE.md for the effect.
func (o *opener) sum(h *Hasher, dst []byte, path string) (FileInfo, []byte, error) {
	fd, err := o.open(path)
	if err != nil {
		return FileInfo{}, dst, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := retryEINTR(func() error { return unix.Fstat(fd, &st) }); err != nil {
		return FileInfo{}, dst, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return FileInfo{}, dst, fmt.Errorf("%w (%s)", ErrNotRegular, typeName(modeType(st.Mode)))
	}
	info := FileInfo{
		Size:    st.Size,
		ModTime: time.Unix(st.Mtim.Unix()),
		Dev:     uint64(st.Dev), //nolint:unconvert // uint32 on some architectures
		Ino:     st.Ino,
	}
	sum, err := h.sumRegular(dst, fdReader(fd), info.Size)
	if err != nil {
		return info, sum, fmt.Errorf("reading: %w", err)
	}
	return info, sum, nil
}

// fdReader reads a descriptor with read(2).
type fdReader int

func (r fdReader) Read(p []byte) (int, error) {
	var n int
	err := retryEINTR(func() (err error) {
		n, err = unix.Read(int(r), p)
		return err
	})
	switch {
	case err != nil:
		return 0, err
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}

func retryEINTR(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}

func modeType(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
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
