//go:build !(linux || openbsd || solaris || illumos || aix || darwin || freebsd || netbsd || dragonfly)

package hashcache

import "io/fs"

// StatOf returns what the cache compares of the file fi describes. This
// system gives no change time, inode or device: size and modification time
// are all there is.
func StatOf(fi fs.FileInfo) Stat {
	return Stat{Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}
}
