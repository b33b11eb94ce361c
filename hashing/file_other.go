//go:build !unix

package hashing

import "os"

const openFlags = os.O_RDONLY

// statFile returns the FileInfo of an open file.
func statFile(f *os.File) (FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		return FileInfo{}, err
	}
	return FileInfo{Size: st.Size(), ModTime: st.ModTime(), Mode: st.Mode().Type()}, nil
}
