package previous

import (
	"context"
	"crypto/sha256"
	"hash"
	"io"
)

// OpenList streams the bytes of a Change List of s (one of ChangeLists,
// or OpenChangeList) to publish them again: from its file when s was read
// from a directory, else fetched again, whole (it is one document), with
// the client, retries, deadline and limits of Read. Read keeps only their
// size and SHA-256: the reader fails with an [*Error] of kind [ErrChanged]
// at its end if they are no longer those Read checked (the previous build
// was published again meanwhile), so a copy must be thrown away unless
// the reader reached io.EOF. Close it.
//
// OpenList may be called from several goroutines at once.
func (s *Site) OpenList(ctx context.Context, cl *ChangeList) (io.ReadCloser, error) {
	body, err := s.src.part(ctx, cl.URL, max(cl.Bytes, s.opts.maxBytes), "")
	if err != nil {
		return nil, err
	}
	return &checkedReader{body: body, name: s.src.name(cl.URL), want: cl.sum, size: cl.Bytes, h: sha256.New()}, nil
}

// checkedReader passes on the bytes of body, and fails at their end if
// they are not size bytes of SHA-256 want.
type checkedReader struct {
	body io.ReadCloser
	name string
	want [sha256.Size]byte
	size int64
	n    int64
	h    hash.Hash
	err  error
}

func (c *checkedReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.body.Read(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	if c.n > c.size {
		c.err = newError(c.name, 0, ErrChanged, "has more than the %d bytes it had when it was read", c.size)
		return 0, c.err
	}
	if err == io.EOF {
		var sum [sha256.Size]byte
		if c.n != c.size || [sha256.Size]byte(c.h.Sum(sum[:0])) != c.want {
			c.err = newError(c.name, 0, ErrChanged, "is no longer what it was when it was read (%d bytes, now %d): the previous build was published again meanwhile", c.size, c.n)
			return n, c.err
		}
	}
	if err != nil {
		c.err = err
	}
	return n, err
}

func (c *checkedReader) Close() error { return c.body.Close() }
