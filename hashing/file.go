package hashing

import (
	"fmt"
	"io/fs"
	"os"
	"time"
)

// FileInfo is what a build needs to know of a file besides its bytes: its
// size and modification time, and its device and inode for the hash cache.
type FileInfo struct {
	Size    int64
	ModTime time.Time
	Dev     uint64
	Ino     uint64
}

// ErrNotRegular reports a path that is not (or is no longer) a regular file:
// a FIFO, socket, device, directory or symbolic link found where a file was.
var ErrNotRegular = fmt.Errorf("not a regular file")

// OpenRegular opens path for reading without following a final symbolic
// link and without blocking on a FIFO, and returns it only if it is a
// regular file.
func OpenRegular(path string) (*os.File, FileInfo, error) {
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, FileInfo{}, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, FileInfo{}, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, FileInfo{}, fmt.Errorf("%w (%s)", ErrNotRegular, typeName(st.Mode()))
	}
	if err := clearNonblock(f); err != nil {
		f.Close()
		return nil, FileInfo{}, err
	}
	info := FileInfo{Size: st.Size(), ModTime: st.ModTime()}
	info.Dev, info.Ino = devIno(st)
	return f, info, nil
}

func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m.IsDir():
		return "directory"
	}
	return m.Type().String()
}
