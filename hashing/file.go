package hashing

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/rsgen/rsgen/internal/storage/regfile"
)

// FileInfo is what a build needs of a file besides its bytes; ctime, type,
// device and inode for the hash cache and to tell whether it changed.
type FileInfo struct {
	Size    int64
	ModTime time.Time
	Ctime   time.Time   // status change time; zero where the system has none
	Mode    fs.FileMode // type bits only: 0 for a regular file
	Dev     uint64
	Ino     uint64
}

// same reports whether fi and after, stats before and after a read, show
// no change. A write changes ctime even when it keeps size and mtime; Linux
// 6.13 and later makes it fine-grained once a stat read it.
func (fi FileInfo) same(after FileInfo) bool {
	return fi.Size == after.Size && fi.ModTime.Equal(after.ModTime) && fi.Ctime.Equal(after.Ctime) &&
		fi.Dev == after.Dev && fi.Ino == after.Ino
}

const readAttempts = 3

// sumStable reads r, a regular file of info when opened, through h, and
// stats it again: one written meanwhile (even in place) is read again, up
// to readAttempts times, then reported with ErrChanged. It returns the
// FileInfo of the read that counted.
func (h *Hasher) sumStable(dst []byte, r io.ReadSeeker, info FileInfo, stat func() (FileInfo, error)) (FileInfo, []byte, error) {
	for attempt := 1; ; attempt++ {
		sum, err := h.SumFile(dst, r, info.Size)
		if err != nil && !errors.Is(err, ErrChanged) {
			return info, sum, fmt.Errorf("reading: %w", err)
		}
		after, serr := stat()
		if serr != nil {
			return info, sum, serr
		}
		if err == nil && info.same(after) {
			return info, sum, nil
		}
		if after.Mode != 0 {
			return info, sum, fmt.Errorf("%w (%s)", ErrNotRegular, typeName(after.Mode))
		}
		if attempt == readAttempts {
			return info, sum, fmt.Errorf("%w, at each of %d reads", ErrChanged, readAttempts)
		}
		if _, err := r.Seek(0, io.SeekStart); err != nil {
			return info, sum, fmt.Errorf("reading: %w", err)
		}
		info = after
	}
}

// ErrNotRegular reports a path that is not (or no longer) a regular file.
var ErrNotRegular = regfile.ErrNotRegular

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
