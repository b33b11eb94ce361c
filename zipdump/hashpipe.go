package zipdump

import (
	"errors"
	"io"

	"github.com/rsgen/rsgen/hashing"
)

// hashPipe hashes what is written to it in a goroutine of its own, a few
// buffers behind, so that hashing a package takes no time from writing it.
type hashPipe struct {
	full chan []byte // written, to be hashed
	free chan []byte // hashed, to be reused
	sum  chan digest
	cur  []byte // the buffer being read by the hasher
	rest []byte // what is left of it to read
	err  error  // set by abort: the reader stops with it
}

type digest struct {
	sum []byte
	err error
}

const (
	hashPipeBufs = 4
	hashPipeSize = 256 << 10
)

func newHashPipe(set hashing.Set) *hashPipe {
	h := &hashPipe{full: make(chan []byte, hashPipeBufs), free: make(chan []byte, hashPipeBufs), sum: make(chan digest, 1)}
	for range hashPipeBufs {
		h.free <- make([]byte, 0, hashPipeSize)
	}
	go func() {
		_, sum, err := hashing.NewHasher(set).Sum(nil, h)
		h.sum <- digest{sum, err}
	}()
	return h
}

func (h *hashPipe) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		b := <-h.free
		m := min(len(p), hashPipeSize)
		h.full <- append(b[:0], p[:m]...)
		p = p[m:]
	}
	return n, nil
}

func (h *hashPipe) Read(p []byte) (int, error) {
	if h.cur == nil {
		b, ok := <-h.full
		if !ok {
			if h.err != nil {
				return 0, h.err
			}
			return 0, io.EOF
		}
		h.cur, h.rest = b, b
	}
	n := copy(p, h.rest)
	h.rest = h.rest[n:]
	if len(h.rest) == 0 {
		h.free <- h.cur[:0]
		h.cur = nil
	}
	return n, nil
}

func (h *hashPipe) Sum() ([]byte, error) {
	close(h.full)
	d := <-h.sum
	return d.sum, d.err
}

func (h *hashPipe) abort() {
	h.err = errors.New("zipdump: package given up")
	close(h.full)
	<-h.sum
}
