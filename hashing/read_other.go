//go:build !linux

package hashing

import "fmt"

// sumPath opens the regular file at path with OpenRegular, reads it once
// through h and returns its FileInfo and sum (appended to dst).
func (h *Hasher) sumPath(dst []byte, path string) (FileInfo, []byte, error) {
	f, info, err := OpenRegular(path)
	if err != nil {
		return FileInfo{}, dst, err
	}
	defer f.Close()
	sum, err := h.sumRegular(dst, f, info.Size)
	if err != nil {
		return info, sum, fmt.Errorf("reading: %w", err)
	}
	return info, sum, nil
}
