package archivescan

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"github.com/rsgen/rsgen/internal/text/display"
)

// ErrDamaged reports an archive whose bytes are not what it says they
// are: a checksum or length that does not match, a stream that ends too
// soon, or data after its end. Nothing of such an archive is published.
var ErrDamaged = errors.New("the archive is damaged")

// tarStream is the tar stream of an archive, decompressed if needed.
type tarStream struct {
	tr    *tar.Reader
	rest  io.Reader // what tr reads: after its end, once tr.Next returned io.EOF
	read  blockCounter
	close func() error
}

// blockCounter counts the bytes the tar reader reads: tar.Reader takes a
// stream cut in the padding of its last member for the end of the
// archive, but a tar is made of whole 512-byte blocks.
type blockCounter struct {
	r io.Reader
	n int64
}

func (c *blockCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func openTar(a *Archive) (*tarStream, error) {
	f, err := os.Open(a.Path)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", a.Path, display.WithoutPath(err))
	}
	br := bufio.NewReaderSize(f, 256<<10)
	s := &tarStream{rest: br, close: f.Close}
	if a.Kind == TarGz {
		zr, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("source %s: %w", a.Path, err)
		}
		zr.Multistream(false)
		s.rest = &gzipStream{br: br, zr: zr}
	}
	s.read.r = s.rest
	s.tr = tar.NewReader(&s.read)
	return s, nil
}

// end reads what follows the end of the tar archive, which must be zero
// bytes alone (tar pads its last record with them, and so may a tape),
// and, for a .tar.gz, the rest of the gzip stream: a tar reader stops at
// the two zero blocks that end the archive, and would never see the gzip
// trailer, whose CRC-32 and length tell a damaged .tar.gz from a good one.
func (s *tarStream) end() error {
	if s.read.n%512 != 0 {
		return fmt.Errorf("%w: the tar archive ends inside a block (the file is cut short)", ErrDamaged)
	}
	n, err := nonZero(s.rest)
	switch {
	case err != nil:
		return err
	case n >= 0:
		return fmt.Errorf("%w: data after the end of the tar archive (at byte %d after its end)", ErrDamaged, n)
	}
	return nil
}

// nonZero reads r to its end and returns the offset of its first byte
// that is not zero, or -1.
func nonZero(r io.Reader) (int64, error) {
	buf := make([]byte, 32<<10)
	var off int64
	for {
		n, err := r.Read(buf)
		for i, c := range buf[:n] {
			if c != 0 {
				return off + int64(i), nil
			}
		}
		off += int64(n)
		if errors.Is(err, io.EOF) {
			return -1, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// gzipStream decompresses every member of a gzip file (RFC 1952 §2.2: a
// file may hold several, as pigz and cat write them), each checked at its
// end by compress/gzip. After the last member, zero bytes are allowed, as
// gzip -t allows them (tape blocking pads a file so); anything else is
// damage.
type gzipStream struct {
	br   *bufio.Reader
	zr   *gzip.Reader
	done bool
	err  error // kept for the next Read when it came with bytes, which io.ReadFull would drop
}

func (g *gzipStream) Read(p []byte) (int, error) {
	for g.err == nil && !g.done {
		n, err := g.zr.Read(p)
		switch {
		case errors.Is(err, io.EOF):
			err = g.next()
		case errors.Is(err, gzip.ErrChecksum):
			err = fmt.Errorf("%w: gzip checksum or length does not match the data (gzip -t says the same)", ErrDamaged)
		case errors.Is(err, io.ErrUnexpectedEOF):
			err = fmt.Errorf("%w: the gzip stream ends too soon (the file is cut short)", ErrDamaged)
		case err != nil:
			err = fmt.Errorf("%w: %w", ErrDamaged, err)
		}
		g.err = err
		if n > 0 {
			return n, nil
		}
	}
	if g.err != nil {
		return 0, g.err
	}
	return 0, io.EOF
}

// next starts the member of the gzip file after the one that ended, if
// any.
func (g *gzipStream) next() error {
	head, err := g.br.Peek(2)
	switch {
	case len(head) == 0 && errors.Is(err, io.EOF):
		g.done = true
		return nil
	case len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b:
		if err := g.zr.Reset(g.br); err != nil {
			return fmt.Errorf("%w: %w", ErrDamaged, err)
		}
		g.zr.Multistream(false)
		return nil
	case err != nil && !errors.Is(err, io.EOF):
		return err
	}
	n, err := nonZero(g.br)
	if err != nil {
		return err
	}
	if n >= 0 {
		return fmt.Errorf("%w: data after the end of the gzip stream", ErrDamaged)
	}
	g.done = true
	return nil
}

// zipCRC checks the CRC-32 of a zip member whose header says 0 and that
// has no data descriptor: archive/zip takes 0 to mean "not set" then and
// checks nothing, but the CRC-32 of any bytes is a field every zip writer
// fills in, and it is 0 for few of them.
type zipCRC struct {
	r   io.ReadCloser
	crc uint32
}

func (z *zipCRC) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	z.crc = crc32.Update(z.crc, crc32.IEEETable, p[:n])
	if errors.Is(err, io.EOF) && z.crc != 0 {
		return n, fmt.Errorf("%w: the member's CRC-32 is %08x, its header says 0", ErrDamaged, z.crc)
	}
	return n, err
}

func (z *zipCRC) Close() error { return z.r.Close() }

// openZipMember opens a zip member, its CRC-32 checked at its end.
func openZipMember(f *zip.File) (io.ReadCloser, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	const dataDescriptor = 0x8 // archive/zip checks the CRC-32 of one
	if f.CRC32 == 0 && f.Flags&dataDescriptor == 0 && f.UncompressedSize64 > 0 {
		return &zipCRC{r: rc}, nil
	}
	return rc, nil
}

// damaged marks the errors of reading an archive that say its bytes are
// wrong, rather than that they could not be read, with ErrDamaged.
func damaged(err error) error {
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, ErrDamaged):
		return err
	case errors.Is(err, zip.ErrChecksum), errors.Is(err, zip.ErrFormat), errors.Is(err, tar.ErrHeader),
		errors.Is(err, gzip.ErrHeader), errors.Is(err, io.ErrUnexpectedEOF), errors.As(err, &corrupt):
		return fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	return err
}
