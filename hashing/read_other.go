//go:build !linux

package hashing

import "fmt"

// An opener opens the files of one worker of a Pool. Outside Linux it
// keeps nothing: each file is opened by OpenRegular.
type opener struct{}

func newOpener() *opener { return &opener{} }

func (o *opener) close() {}

// sum opens the regular file at path with OpenRegular, reads it once
// through h and returns its FileInfo and sum (appended to dst).
func (o *opener) sum(h *Hasher, dst []byte, path string) (FileInfo, []byte, error) {
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
