//go:build unix

package hashing

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// O_NOFOLLOW refuses a symbolic link swapped in after the walk saw a file;
// O_NONBLOCK keeps open from waiting for a writer on a FIFO.
const openFlags = os.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_CLOEXEC

// statFile returns the FileInfo of an open file.
func statFile(f *os.File) (FileInfo, error) {
	var st unix.Stat_t
	if err := retryEINTR(func() error { return unix.Fstat(int(f.Fd()), &st) }); err != nil {
		return FileInfo{}, &fs.PathError{Op: "stat", Path: f.Name(), Err: err}
	}
	return fileInfoOf(&st), nil
}

// open opens the regular file name of d as openRegular opens a path.
func (d *Dir) open(name string) (*os.File, FileInfo, error) {
	fd, err := d.openFile(name)
	if err != nil {
		return nil, FileInfo{}, &fs.PathError{Op: "open", Path: d.path + "/" + name, Err: err}
	}
	f := os.NewFile(uintptr(fd), d.path+"/"+name)
	info, err := regularInfo(f)
	if err != nil {
		return nil, FileInfo{}, err
	}
	return f, info, nil
}
