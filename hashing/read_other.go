//go:build !unix

package hashing

import "os"

// sumFile opens the regular file at path, or named path in dir if dir is
// not nil, with openRegular, reads it once through h as sumStable does and
// returns its FileInfo and sum (appended to dst).
func sumFile(h *Hasher, dst []byte, dir Dir, path string) (FileInfo, []byte, error) {
	var f *os.File
	var info FileInfo
	var err error
	if dir != nil {
		f, info, err = openIn(dir, path)
	} else {
		f, info, err = openRegular(path)
	}
	if err != nil {
		return FileInfo{}, dst, err
	}
	defer f.Close()
	return h.sumStable(dst, f, info, func() (FileInfo, error) { return statFile(f) })
}
