//go:build !unix

package hashing

import (
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
