package regfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is wrapped by the error of opening something that is not a
// regular file: a directory, a FIFO, a device, a socket.
var ErrNotRegular = errors.New("not a regular file")

// OpenFlags open a file for reading without blocking, whatever it is: for
// a reader that checks the type of what it opened itself (zipdump does).
const OpenFlags = os.O_RDONLY | syscall.O_NONBLOCK

// Open opens the regular file name for reading. The error is an
// *fs.PathError naming name.
func Open(name string) (*os.File, fs.FileInfo, error) {
	return check(os.OpenFile(name, OpenFlags, 0))
}

// OpenIn opens the regular file name inside root for reading; root refuses
// names and symbolic links that lead outside it.
func OpenIn(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	return check(root.OpenFile(name, OpenFlags, 0))
}

func check(f *os.File, err error) (*os.File, fs.FileInfo, error) {
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: f.Name(), Err: ErrNotRegular}
	}
	return f, st, nil
}
