//go:build darwin || freebsd || netbsd || dragonfly

package hashcache

import (
	"io/fs"
	"syscall"
)

// StatOf returns what the cache compares of the file fi describes.
func StatOf(fi fs.FileInfo) Stat {
	s := Stat{Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.Ctime = int64(st.Ctimespec.Sec)*1e9 + int64(st.Ctimespec.Nsec) //nolint:unconvert // types differ by platform
		s.Ino = uint64(st.Ino)                                           //nolint:unconvert
		s.Dev = uint64(st.Dev)                                           //nolint:unconvert
	}
	return s
}
