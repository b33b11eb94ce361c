package regfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is wrapped by the error of opening what is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// OpenFlags open a file for reading without blocking, whatever it is.
const OpenFlags = os.O_RDONLY | syscall.O_NONBLOCK

// Open opens the regular file name for reading.
func Open(name string) (*os.File, fs.FileInfo, error) {
	return Check(os.OpenFile(name, OpenFlags, 0))
}

// OpenIn opens the regular file name inside root for reading.
func OpenIn(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	return Check(root.OpenFile(name, OpenFlags, 0))
}

// Check passes on what an open with OpenFlags returned, closing and
// refusing what is not a regular file.
func Check(f *os.File, err error) (*os.File, fs.FileInfo, error) {
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
