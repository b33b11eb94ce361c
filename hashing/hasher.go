package hashing

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"io"
	"sync"
	"time"
)

// bufSize is the read buffer of a Hasher. 256 KiB keeps the number of read
// calls per large file low while staying in L2 cache; small files need one
// read whatever the size.
const bufSize = 256 << 10

// SniffLen is how many leading bytes a Hasher keeps for content sniffing
// (the amount net/http.DetectContentType looks at).
const SniffLen = 512

// ErrChanged reports a file whose size changed while it was being read.
var ErrChanged = errors.New("file changed while it was read")

// A Hasher computes the digests of a Set over one stream at a time, with
// reused hash states and a reused buffer. It is not safe for concurrent use.
type Hasher struct {
	hashes []hash.Hash
	buf    []byte
	head   []byte
	ctx    context.Context // if set, reading stops when it is done
	read   func(n int64)   // if set, called with the bytes of each read (Pool.Read)
	// hashing, if set, is held while the bytes of a read are hashed: it
	// bounds the hashing of a Pool whose readers outnumber its Workers.
	hashing chan struct{}
	// waited, if set, is called after a read that waited for the disk
	// (Pool.ReadsBlock).
	waited func()
}

// waitedRead is how long a read of at most a buffer takes only if it
// waited for the disk: from the page cache it takes tens of microseconds.
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

// bufs keeps the read buffers of the Hashers a Pool is done with, for the
// next Pool: a build of many resource sets runs one for each, and their
// workers' buffers were 2 MB of garbage a set.
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

// Sum reads r to its end, once, through every hash, and returns the number
// of bytes read and the digests appended to dst in the order of the Set.
// Head returns the first bytes read, until the next call.
func (h *Hasher) Sum(dst []byte, r io.Reader) (n int64, sum []byte, err error) {
	return h.sum(dst, r, -1)
}

// SumFile is Sum over r, a regular file read from its start whose size
// was size when it was opened: a file that grew or shrank while it was
// read is reported with ErrChanged. It reads until a short read at size
// rather than until a read returns nothing: near the expected end it asks
// for one byte more than is left, and a read of a regular file that
// returns less than asked has met the end. That saves the read(2) that
// would only return 0, one of the two of reading a small file; a file
// that grew fills the extra byte and is read on to its end.
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
		// A large file is not read to its end once the pool is stopped: an
		// interrupt would otherwise wait minutes for a file of many GB. The
		// check runs once a buffer, so a small file never pays for it.
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

// write hashes chunk and keeps its first bytes.
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

// Head returns the first bytes (at most SniffLen) of the stream last read
// by Sum. The slice is reused by the next call.
func (h *Hasher) Head() []byte { return h.head }
