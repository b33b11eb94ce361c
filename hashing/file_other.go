//go:build !unix

package hashing

import (
	"fmt"
	"os"
	"path/filepath"
)

// sumFile is sumStable over the file path, in dir if not nil. Outside
// unix a Dir has no descriptor: the file is opened by its path.
func sumFile(h *Hasher, dst []byte, dir Dir, path string) (FileInfo, []byte, error) {
	if dir != nil {
		path = filepath.Join(dir.Path(), path)
	}
	f, err := os.Open(path)
	if err != nil {
		return FileInfo{}, dst, err
	}
	defer f.Close()
	info, err := statFile(f)
	if err != nil {
		return FileInfo{}, dst, err
	}
	if info.Mode != 0 {
		return FileInfo{}, dst, fmt.Errorf("%w (%s)", ErrNotRegular, typeName(info.Mode))
	}
	return h.sumStable(dst, f, info, func() (FileInfo, error) { return statFile(f) })
}

func statFile(f *os.File) (FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		return FileInfo{}, err
	}
	return FileInfo{Size: st.Size(), ModTime: st.ModTime(), Mode: st.Mode().Type()}, nil
}
