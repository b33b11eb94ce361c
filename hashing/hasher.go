package hashing

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"sync"
	"time"

	"github.com/rsgen/rsgen/internal/storage/regfile"
)

const (
	bufSize  = 256 << 10 // few reads of a large file, and in L2 cache
	SniffLen = 512       // the head a Hasher keeps, as net/http.DetectContentType reads
)

var ErrChanged = errors.New("file changed while it was read")

type Hasher struct {
	hashes []hash.Hash
	buf    []byte
	head   []byte
	ctx    context.Context // if set, reading stops when it is done
	read   func(n int64)   // if set, called with the bytes of each read (Pool.Read)
	// hashing, if set, is held while hashing: Pool.Workers of Pool.Reads.
	hashing chan struct{}
	waited  func() // if set, called after a read that waited for the disk (Pool.ReadsBlock)
}

// waitedRead: a read from the page cache takes tens of microseconds.
const waitedRead = time.Millisecond

func (h *Hasher) timedRead(r io.Reader, p []byte) (int, error) {
	if h.waited == nil {
		return r.Read(p)
	}
	start := time.Now()
	n, err := r.Read(p)
	if time.Since(start) > waitedRead {
		h.waited()
	}
	return n, err
}

// bufs keeps the buffers of Hashers done with, for the next Pool: a build
// runs one per resource set.
var bufs = sync.Pool{New: func() any { return new([bufSize]byte) }}

func NewHasher(set Set) *Hasher {
	h := &Hasher{buf: bufs.Get().(*[bufSize]byte)[:], head: make([]byte, 0, SniffLen)}
	for _, a := range set {
		h.hashes = append(h.hashes, a.New())
	}
	return h
}

func (h *Hasher) release() {
	bufs.Put((*[bufSize]byte)(h.buf))
	h.buf = nil
}

// Sum reads r to its end through every hash, and returns the bytes read
// and the digests appended to dst in the order of the Set.
func (h *Hasher) Sum(dst []byte, r io.Reader) (n int64, sum []byte, err error) {
	return h.sum(dst, r, -1)
}

// SumFile is Sum over a regular file of size bytes, reporting one that
// grew or shrank with ErrChanged. Near the end it asks for one byte more
// than is left: a short read has met the end, which saves the read(2)
// that would return 0, one of the two of a small file.
func (h *Hasher) SumFile(dst []byte, r io.Reader, size int64) ([]byte, error) {
	n, sum, err := h.sum(dst, r, size)
	if err != nil {
		return sum, err
	}
	if n != size {
		return sum, fmt.Errorf("%w: %d bytes read, %d expected", ErrChanged, n, size)
	}
	return sum, nil
}

func (h *Hasher) sum(dst []byte, r io.Reader, size int64) (n int64, sum []byte, err error) {
	for _, hh := range h.hashes {
		hh.Reset()
	}
	h.head = h.head[:0]
	for {
		want := len(h.buf)
		if left := size - n; size >= 0 && left >= 0 && left < int64(want) {
			want = int(left) + 1
		}
		m, rerr := h.timedRead(r, h.buf[:want])
		if m > 0 {
			h.write(h.buf[:m])
			n += int64(m)
			if h.read != nil {
				h.read(int64(m))
			}
		}
		if rerr == io.EOF || rerr == nil && size >= 0 && n == size && m < want {
			break
		}
		if rerr != nil {
			return n, dst, rerr
		}
		// An interrupt does not wait for a file of many GB; a small file
		// never pays for the check.
		if h.ctx != nil && n >= int64(len(h.buf)) {
			if err := h.ctx.Err(); err != nil {
				return n, dst, err
			}
		}
	}
	for _, hh := range h.hashes {
		dst = hh.Sum(dst)
	}
	return n, dst, nil
}

func (h *Hasher) write(chunk []byte) {
	if h.hashing != nil {
		h.hashing <- struct{}{}
		defer func() { <-h.hashing }()
	}
	if len(h.head) < SniffLen {
		h.head = append(h.head, chunk[:min(len(chunk), SniffLen-len(h.head))]...)
	}
	for _, hh := range h.hashes {
		hh.Write(chunk)
	}
}

// Head returns the first SniffLen bytes last read, until the next read.
func (h *Hasher) Head() []byte { return h.head }

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
