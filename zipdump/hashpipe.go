package zipdump

import (
	"errors"
	"io"

	"github.com/rsgen/rsgen/hashing"
)

// hashPipe computes the digests of what is written to it in a goroutine
// of its own, so that hashing a package overlaps with writing it: a Write
// returns once the hasher has taken its bytes, while it hashes the last
// ones.
type hashPipe struct {
	*io.PipeWriter
	sum chan digest
}

type digest struct {
	sum []byte
	err error
}

func newHashPipe(set hashing.Set) *hashPipe {
	r, w := io.Pipe()
	h := &hashPipe{PipeWriter: w, sum: make(chan digest, 1)}
	go func() {
		_, sum, err := hashing.NewHasher(set).Sum(nil, r)
		h.sum <- digest{sum, err}
	}()
	return h
}

// Sum ends the input and returns the digests of everything written.
func (h *hashPipe) Sum() ([]byte, error) {
	h.Close()
	d := <-h.sum
	return d.sum, d.err
}

// abort stops the hasher, whose result is not wanted.
func (h *hashPipe) abort() {
	h.CloseWithError(errors.New("zipdump: package given up"))
	<-h.sum
}
