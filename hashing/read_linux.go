//go:build linux

package hashing

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

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

// sum opens the regular file at path, or named path in dir if dir is not
// nil, as openRegular does, reads it once through h as sumStable does and
// returns its FileInfo and sum (appended to dst).
//
// It works on the raw descriptor rather than an *os.File: on Linux,
// os.OpenFile tries to register every descriptor with the netpoller (a
// failing epoll_ctl per file) and sets up locking and a finalizer that a
// file read once by one goroutine does not need. Together with
// SumFile, which saves the read(2) that only confirms the end of a
// small file, this takes reading a small file from 6 system calls to 5
// (openat, fstat, read, fstat to see that it did not change, close); see
// docs/PERFORMANCE.md for the effect.
func (o *opener) sum(h *Hasher, dst []byte, dir Dir, path string) (FileInfo, []byte, error) {
	var fd int
	var err error
	if dir != nil {
		fd, err = openAt(dir, path)
		path = dir.Path() + "/" + path
	} else {
		fd, err = o.open(path)
	}
	if err != nil {
		return FileInfo{}, dst, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	stat := func() (FileInfo, error) {
		var st unix.Stat_t
		if err := retryEINTR(func() error { return unix.Fstat(fd, &st) }); err != nil {
			return FileInfo{}, &fs.PathError{Op: "stat", Path: path, Err: err}
		}
		return FileInfoOf(&st), nil
	}
	info, err := stat()
	if err != nil {
		return FileInfo{}, dst, err
	}
	if info.Mode != 0 {
		return FileInfo{}, dst, fmt.Errorf("%w (%s)", ErrNotRegular, typeName(info.Mode))
	}
	return h.sumStable(dst, fdReader(fd), info, stat)
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

func (r fdReader) Seek(offset int64, whence int) (int64, error) {
	return unix.Seek(int(r), offset, whence)
}
