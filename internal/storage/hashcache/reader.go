package hashcache

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"

	"github.com/rsgen/rsgen/internal/storage/binrec"
	"github.com/rsgen/rsgen/internal/storage/regfile"
)

// errOrder reports paths given to a Reader or a Writer out of order.
var errOrder = errors.New("paths out of order")

// ErrChanged is wrapped, with ErrCorrupt, when a cache is written to while read.
var ErrChanged = errors.New("changed while read")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const readBuffer = 64 << 10 // of each pass over a cache file

// A Reader streams the entries of a cache file in the order of their
// paths. An error met while streaming ends the stream: every later Find
// misses, which is always safe for a cache, and [Reader.Err] tells why.
type Reader struct {
	f     *os.File // nil for a Reader over bytes (tests, fuzzing)
	count uint64   // entries the file says it holds
	read  uint64   // entries decoded
	sum   uint32   // the checksum at the end of the file

	br      *bufio.Reader
	src     *checkedReader
	left    int64 // bytes not consumed
	scratch []byte

	path   []byte // the path of cur
	other  []byte // the buffer of the path before
	cur    Entry
	sums   []byte          // backs cur.sums
	loaded bool            // cur holds an entry not yet passed
	types  binrec.Interner // media types, shared between entries: a site has few

	asked  string // the last path asked for
	anyAsk bool
	err    error
}

// Open opens the cache at path, made for the source directory root, for
// streaming. It first checks the whole file (a cache, of this Version, for
// root, with a matching checksum) in a pass that holds no entry, and fails
// with ErrNotRegular, ErrForeign, ErrVersion, ErrCorrupt or ErrOtherDir.
// Both passes read the one open file; one written in place meanwhile is
// detected by the end of the stream at the latest (see [Reader.Err]).
func Open(path, root string) (*Reader, error) {
	f, fi, err := regfile.Open(path)
	if errors.Is(err, regfile.ErrNotRegular) {
		return nil, ErrNotRegular
	}
	if err != nil {
		return nil, err
	}
	// A write changes the size or the modification time. Not the change
	// time: renaming a new cache over path changes that of the old file
	// (one link less), which this Reader may go on reading.
	unchanged := func() error {
		now, err := f.Stat()
		if err != nil {
			return err
		}
		if now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime()) {
			return fmt.Errorf("%w (%w)", ErrCorrupt, ErrChanged)
		}
		return nil
	}
	r, err := newReader(f, fi.Size(), root, unchanged)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.f = f
	return r, nil
}

// newReader checks the cache in data and returns a Reader before its first
// entry. check, if not nil, is called after each read of the stream and
// ends it with its error.
func newReader(data io.ReaderAt, size int64, root string, check func() error) (*Reader, error) {
	if size < int64(len(magic))+4 {
		return nil, ErrForeign
	}
	head := make([]byte, len(magic)+binary.MaxVarintLen64)
	n, err := data.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	head = head[:n]
	if string(head[:len(magic)]) != magic {
		return nil, ErrForeign
	}
	v, vn := binary.Uvarint(head[len(magic):])
	if vn <= 0 || v != Version {
		return nil, fmt.Errorf("%w (format %d, this rsgen reads %d)", ErrVersion, v, Version)
	}
	body := size - 4 // everything the checksum covers
	if body < int64(len(magic)+vn) {
		return nil, ErrCorrupt
	}
	var trailer [4]byte
	if _, err := data.ReadAt(trailer[:], body); err != nil {
		return nil, err
	}
	sum := binary.BigEndian.Uint32(trailer[:])
	crc := crc32.New(castagnoli)
	if _, err := io.CopyBuffer(crc, io.NewSectionReader(data, 0, body), make([]byte, readBuffer)); err != nil {
		return nil, err
	}
	if crc.Sum32() != sum {
		return nil, fmt.Errorf("%w (checksum mismatch)", ErrCorrupt)
	}

	// The second pass: the same bytes, checksummed again as they stream.
	src := &checkedReader{r: io.NewSectionReader(data, 0, body), crc: crc32.New(castagnoli), check: check}
	r := &Reader{sum: sum, types: binrec.Interner{}, br: bufio.NewReaderSize(src, readBuffer), left: body, src: src}
	r.fixed(nil, len(magic)+vn)
	rootBytes := r.bytes(nil)
	if r.err == nil && string(rootBytes) != root {
		return nil, fmt.Errorf("%w (%s)", ErrOtherDir, rootBytes)
	}
	if r.count = r.uvarint(); r.err == nil && r.count > uint64(r.left) {
		r.err = ErrCorrupt
	}
	if r.err != nil {
		return nil, r.err
	}
	return r, nil
}

// Find returns the entry of the file at rel, if the cache has one. Paths
// must not descend in byte order: one that does ends the stream (errOrder).
// The entry is valid until the next call of Find ([Entry.Clone] keeps one).
func (r *Reader) Find(rel string) (*Entry, bool) {
	if r.err != nil {
		return nil, false
	}
	if r.anyAsk && rel < r.asked {
		r.err = fmt.Errorf("%w: %q asked for after %q", errOrder, rel, r.asked)
		return nil, false
	}
	r.asked, r.anyAsk = rel, true
	for {
		if !r.loaded && !r.next() {
			return nil, false
		}
		switch {
		case string(r.path) < rel:
			r.loaded = false
		case string(r.path) == rel:
			return &r.cur, true
		default:
			return nil, false
		}
	}
}

func (r *Reader) Err() error { return r.err }

// Close closes the file; the stream's error is Err's.
func (r *Reader) Close() error {
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}

// next decodes the next entry into cur; false at the end or on an error.
func (r *Reader) next() bool {
	if r.read == r.count {
		return false
	}
	// The path is rebuilt in the other buffer: the order check needs both.
	shared := r.uvarint()
	if r.err == nil && shared > uint64(len(r.path)) {
		r.setErr(ErrCorrupt)
	}
	if r.err != nil {
		return r.fail(r.err)
	}
	path := r.bytes(append(r.other[:0], r.path[:shared]...))
	e := &r.cur
	e.Size = r.varint()
	e.Mtime = r.varint()
	e.Ctime = r.varint()
	e.Ino = r.uvarint()
	e.Dev = r.uvarint()
	e.algs = r.byte()
	if r.err == nil && e.algs&^uint8(1<<len(algorithms)-1) != 0 {
		r.setErr(ErrCorrupt)
	}
	size := 0
	for _, a := range algorithms {
		if e.algs&(1<<a) != 0 {
			size += a.Size()
		}
	}
	r.sums = r.fixed(r.sums[:0], size)
	r.scratch = r.bytes(r.scratch[:0])
	if r.err != nil {
		return r.fail(r.err)
	}
	e.sums = r.sums[:size:size]
	e.Type = r.types.String(r.scratch)
	if r.read > 0 && string(path) <= string(r.path) {
		return r.fail(fmt.Errorf("%w (%w)", ErrCorrupt, errOrder))
	}
	r.path, r.other = path, r.path
	r.read++
	if r.read == r.count {
		// The stream must end here, on the bytes the first pass checked.
		if r.left != 0 {
			return r.fail(fmt.Errorf("%w (%d bytes after the last entry)", ErrCorrupt, r.left))
		}
		if r.src.crc.Sum32() != r.sum {
			return r.fail(fmt.Errorf("%w (%w)", ErrCorrupt, ErrChanged))
		}
	}
	r.loaded = true
	return true
}

func (r *Reader) fail(err error) bool {
	r.err, r.loaded = err, false
	return false
}

// checkedReader checksums what it reads and calls check after each read.
type checkedReader struct {
	r     io.Reader
	crc   hash.Hash32
	check func() error
}

func (c *checkedReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.crc.Write(p[:n])
	if c.check != nil && n > 0 {
		if cerr := c.check(); cerr != nil {
			return 0, cerr
		}
	}
	return n, err
}

// setErr records the first error of the stream: a read error of the
// file, or a change seen, as it is; anything else is damage.
func (r *Reader) setErr(err error) {
	if r.err != nil {
		return
	}
	var pathErr *fs.PathError
	if !errors.Is(err, ErrCorrupt) && !errors.As(err, &pathErr) {
		err = ErrCorrupt
	}
	r.err = err
}

// byteReader reads the stream for encoding/binary, within the bytes left.
type byteReader Reader

func (b *byteReader) ReadByte() (byte, error) {
	if b.left <= 0 {
		return 0, io.ErrUnexpectedEOF
	}
	c, err := b.br.ReadByte()
	if err == nil {
		b.left--
	}
	return c, err
}

func field[T any](r *Reader, read func(io.ByteReader) (T, error)) T {
	var v T
	if r.err == nil {
		var err error
		if v, err = read((*byteReader)(r)); err != nil {
			r.setErr(err)
			var zero T
			return zero
		}
	}
	return v
}

func (r *Reader) uvarint() uint64 { return field(r, binary.ReadUvarint) }
func (r *Reader) varint() int64   { return field(r, binary.ReadVarint) }
func (r *Reader) byte() byte      { return field(r, io.ByteReader.ReadByte) }

func (r *Reader) fixed(dst []byte, n int) []byte {
	if r.err != nil {
		return dst
	}
	if int64(n) > r.left {
		r.setErr(ErrCorrupt)
		return dst
	}
	start := len(dst)
	dst = append(dst, make([]byte, n)...)[:start+n]
	if _, err := io.ReadFull(r.br, dst[start:]); err != nil {
		r.setErr(err)
		return dst[:start]
	}
	r.left -= int64(n)
	return dst
}

func (r *Reader) bytes(dst []byte) []byte {
	n := r.uvarint()
	if r.err == nil && n > uint64(r.left) {
		r.setErr(ErrCorrupt)
	}
	return r.fixed(dst, int(n))
}
