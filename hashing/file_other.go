//go:build !unix

package hashing

import (
	"fmt"
	"os"
	"path/filepath"
)

const openFlags = os.O_RDONLY

// statFile returns the FileInfo of an open file.
func statFile(f *os.File) (FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		return FileInfo{}, err
	}
	return FileInfo{Size: st.Size(), ModTime: st.ModTime(), Mode: st.Mode().Type()}, nil
}

// openIn opens the regular file name of dir by its path: outside unix a
// Dir has no descriptor.
func openIn(dir Dir, name string) (*os.File, FileInfo, error) {
	return openRegular(filepath.Join(dir.Path(), name))
}

// openRegular opens path for reading without following a final symbolic
// link and without blocking on a FIFO, and returns it only if it is a
// regular file. (Package regfile opens the files rsgen reads whole; this
// is the Pool's, outside unix, which needs the FileInfo of the file.)
func openRegular(path string) (*os.File, FileInfo, error) {
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, FileInfo{}, err
	}
	info, err := regularInfo(f)
	if err != nil {
		return nil, FileInfo{}, err
	}
	return f, info, nil
}

// regularInfo stats the open file f and returns what it found if f is a
// regular file; otherwise it closes f and returns an error (ErrNotRegular
// for another type).
func regularInfo(f *os.File) (FileInfo, error) {
	info, err := statFile(f)
	if err != nil {
		f.Close()
		return FileInfo{}, err
	}
	if info.Mode != 0 {
		f.Close()
		return FileInfo{}, fmt.Errorf("%w (%s)", ErrNotRegular, typeName(info.Mode))
	}
	return info, nil
}
