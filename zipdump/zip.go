package zipdump

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/rsgen/rsgen/hashing"
)

// File is what a package is written to, as *os.File: the writer patches
// a streamed entry's local header, truncates an entry taken back, and
// reads back what it patched to digest it.
type File interface {
	io.Writer
	io.WriterAt
	io.ReaderAt
	io.Seeker
	Truncate(size int64) error
	Close() error
}

// APPNOTE.TXT 4.4.5, 4.3.7, 4.3.12, 4.3.14-16, 4.5.3, and the Info-ZIP
// "UT" extra field.
const (
	methodStore   uint16 = 0
	methodDeflate uint16 = 8

	localSig    = 0x04034b50
	centralSig  = 0x02014b50
	end64Sig    = 0x06064b50
	end64LocSig = 0x07064b50
	endSig      = 0x06054b50

	localLen    = 30
	centralLen  = 46
	end64Len    = 56
	end64LocLen = 20
	endLen      = 22

	zip64ID = 0x0001
	utID    = 0x5455
	utLen   = 9 // tag, size, flags, mtime

	max16 = 0xffff
	max32 = 0xffffffff

	version20 = 20 // Deflate
	version45 = 45 // ZIP64
	unixHost  = 3 << 8

	flagUTF8 = 0x800
	unixMode = 0o100644 << 16 // a regular file, rw-r--r--, as Info-ZIP writes it

	// The most a central header takes besides its name (with a full ZIP64
	// extra), and the end records after the central directory.
	boundCentral = centralLen + utLen + 4 + 24
	boundEnd     = end64Len + end64LocLen + endLen
)

// deflateBound is the most Deflate output for n bytes: compress/flate
// falls back to stored blocks (5 bytes of header each) of no fewer than
// 16,384 bytes, and each chunk adds a 5-byte sync marker.
func deflateBound(n int64) int64 { return n + 10*(n/16384+1) + 16 }

// zipWriter writes one ZIP file. Every local header carries the sizes (in
// a ZIP64 extra field if need be), with no data descriptor, for streaming
// and strict readers alike. A streamed entry can be taken back (abort);
// its bytes reach the hashPipe once its header is patched, read back.
type zipWriter struct {
	f    File
	bw   *bufio.Writer // writes to the file and, unless held, to hw
	off  int64         // bytes written
	hw   *hashPipe
	hold bool // bytes written go to the file only
	done bool // the hasher has stopped
	dir  []dirEntry
	date uint16 // MS-DOS date and time of every entry
	time uint16
	ut   [utLen]byte // the UT extra field: the same time in Unix seconds

	cur    *dirEntry // the entry being streamed, if any
	curHdr int       // length of its local header
}

type dirEntry struct {
	name   string
	method uint16
	crc    uint32
	csize  uint64
	usize  uint64
	offset uint64
	zip64  bool // the local header has a ZIP64 extra field
}

func newZipWriter(f File, modified time.Time, set hashing.Set) *zipWriter {
	z := &zipWriter{f: f, hw: newHashPipe(set)}
	z.bw = bufio.NewWriterSize(teeWriter{z}, 256<<10)
	z.date, z.time = msDosTime(modified)
	binary.LittleEndian.PutUint16(z.ut[0:], utID)
	binary.LittleEndian.PutUint16(z.ut[2:], 5)
	z.ut[4] = 1 // mtime present
	binary.LittleEndian.PutUint32(z.ut[5:], unixTime(modified))
	return z
}

// msDosTime returns t (UTC) as an MS-DOS date and time, clamped to 1980-2107.
func msDosTime(t time.Time) (uint16, uint16) {
	t = t.UTC()
	switch {
	case t.Year() < 1980:
		t = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	case t.Year() > 2107:
		t = time.Date(2107, 12, 31, 23, 59, 58, 0, time.UTC)
	}
	date := uint16(t.Day() + int(t.Month())<<5 + (t.Year()-1980)<<9)
	tm := uint16(t.Second()/2 + t.Minute()<<5 + t.Hour()<<11)
	return date, tm
}

func unixTime(t time.Time) uint32 {
	s := t.Unix()
	switch {
	case s < 0:
		return 0
	case s > max32:
		return max32
	}
	return uint32(s)
}

func needsZip64(usize, csize uint64) bool { return usize >= max32 || csize >= max32 }

func localSize(name string, zip64 bool) int64 {
	n := int64(localLen + len(name) + utLen)
	if zip64 {
		n += 4 + 16
	}
	return n
}

// teeWriter writes to the file, and to the hasher unless bytes are held.
type teeWriter struct{ z *zipWriter }

func (t teeWriter) Write(p []byte) (int, error) {
	n, err := t.z.f.Write(p)
	if !t.z.hold && n > 0 {
		t.z.hw.Write(p[:n])
	}
	return n, err
}

func (z *zipWriter) write(p []byte) error {
	_, err := z.Write(p)
	return err
}

// writeLocal writes e's local header; finish patches a streamed one's.
func (z *zipWriter) writeLocal(e *dirEntry) (int, error) {
	b := binary.LittleEndian.AppendUint32(nil, localSig)
	if e.zip64 {
		b = z.appendHeader(b, e, version45, max32, max32, utLen+4+16)
	} else {
		b = z.appendHeader(b, e, version20, uint32(e.csize), uint32(e.usize), utLen)
	}
	b = append(b, e.name...)
	if e.zip64 { // both sizes, not the offset (APPNOTE.TXT 4.5.3)
		b = binary.LittleEndian.AppendUint16(b, zip64ID)
		b = binary.LittleEndian.AppendUint16(b, 16)
		b = binary.LittleEndian.AppendUint64(b, e.usize)
		b = binary.LittleEndian.AppendUint64(b, e.csize)
	}
	b = append(b, z.ut[:]...)
	return len(b), z.write(b)
}

// appendHeader appends the fields the local and central headers share.
func (z *zipWriter) appendHeader(b []byte, e *dirEntry, version uint16, csize, usize uint32, extra int) []byte {
	b = binary.LittleEndian.AppendUint16(b, version)
	b = binary.LittleEndian.AppendUint16(b, nameFlags(e.name))
	b = binary.LittleEndian.AppendUint16(b, e.method)
	b = binary.LittleEndian.AppendUint16(b, z.time)
	b = binary.LittleEndian.AppendUint16(b, z.date)
	b = binary.LittleEndian.AppendUint32(b, e.crc)
	b = binary.LittleEndian.AppendUint32(b, csize)
	b = binary.LittleEndian.AppendUint32(b, usize)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(e.name)))
	return binary.LittleEndian.AppendUint16(b, uint16(extra))
}

// nameFlags sets the UTF-8 flag (APPNOTE.TXT 4.4.4) for a non-ASCII name.
func nameFlags(name string) uint16 {
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			return flagUTF8
		}
	}
	return 0
}

func (z *zipWriter) writeEntry(name string, method uint16, crc uint32, usize int64, data []byte) error {
	e := dirEntry{name: name, method: method, crc: crc, csize: uint64(len(data)), usize: uint64(usize), offset: uint64(z.off)}
	e.zip64 = needsZip64(e.usize, e.csize)
	if _, err := z.writeLocal(&e); err != nil {
		return err
	}
	if err := z.write(data); err != nil {
		return err
	}
	z.dir = append(z.dir, e)
	return nil
}

// begin starts a streamed entry of usize bytes, stored in at most bound:
// Write its data, then finish or abort.
func (z *zipWriter) begin(name string, method uint16, usize, bound int64) error {
	if err := z.bw.Flush(); err != nil { // what is before the entry is final
		return err
	}
	z.hold = true
	e := dirEntry{name: name, method: method, usize: uint64(usize), offset: uint64(z.off)}
	e.zip64 = needsZip64(uint64(usize), uint64(bound))
	n, err := z.writeLocal(&e)
	if err != nil {
		return err
	}
	z.cur, z.curHdr = &e, n
	return nil
}

func (z *zipWriter) Write(p []byte) (int, error) {
	n, err := z.bw.Write(p)
	z.off += int64(n)
	return n, err
}

// finish patches the streamed entry's header, and hashes it read back.
func (z *zipWriter) finish(crc uint32) error {
	e := z.cur
	z.cur = nil
	e.crc = crc
	e.csize = uint64(z.off) - e.offset - uint64(z.curHdr)
	if !e.zip64 && e.csize >= max32 {
		return fmt.Errorf("zipdump: %s: stored size %d passed its bound", e.name, e.csize)
	}
	if err := z.bw.Flush(); err != nil {
		return err
	}
	var b [8]byte
	binary.LittleEndian.PutUint32(b[:], crc)
	if _, err := z.f.WriteAt(b[:4], int64(e.offset)+14); err != nil {
		return err
	}
	if e.zip64 {
		binary.LittleEndian.PutUint64(b[:], e.csize)
		_, err := z.f.WriteAt(b[:8], int64(e.offset)+localLen+int64(len(e.name))+4+8)
		if err != nil {
			return err
		}
	} else {
		binary.LittleEndian.PutUint32(b[:], uint32(e.csize))
		if _, err := z.f.WriteAt(b[:4], int64(e.offset)+18); err != nil {
			return err
		}
	}
	z.dir = append(z.dir, *e)
	z.hold = false
	_, err := io.Copy(z.hw, io.NewSectionReader(z.f, int64(e.offset), z.off-int64(e.offset)))
	return err
}

// abort takes the streamed entry back: the file is cut where it began.
func (z *zipWriter) abort() error {
	e := z.cur
	z.cur = nil
	z.bw.Reset(teeWriter{z}) // drop what is buffered: it all belongs to e
	if err := z.f.Truncate(int64(e.offset)); err != nil {
		return err
	}
	if _, err := z.f.Seek(int64(e.offset), io.SeekStart); err != nil {
		return err
	}
	z.off = int64(e.offset)
	z.hold = false
	return nil
}

func (z *zipWriter) discard() {
	if !z.done {
		z.done = true
		z.hw.abort()
	}
}

// Close writes the central directory and end records, and returns the
// digests of the whole file, which it leaves open.
func (z *zipWriter) Close() ([]byte, error) {
	sum, err := z.close()
	if err != nil {
		z.discard()
	}
	return sum, err
}

func (z *zipWriter) close() ([]byte, error) {
	start := z.off
	var b []byte
	for i := range z.dir {
		b = z.appendCentral(b[:0], &z.dir[i])
		if err := z.write(b); err != nil {
			return nil, err
		}
	}
	size := uint64(z.off - start)
	records := uint64(len(z.dir))
	offset := uint64(start)
	b = b[:0]
	if records >= max16 || size >= max32 || offset >= max32 {
		end64 := uint64(z.off)
		b = binary.LittleEndian.AppendUint32(b, end64Sig)
		b = binary.LittleEndian.AppendUint64(b, end64Len-12)
		b = binary.LittleEndian.AppendUint16(b, unixHost|version45)
		b = binary.LittleEndian.AppendUint16(b, version45)
		b = binary.LittleEndian.AppendUint32(b, 0) // this disk
		b = binary.LittleEndian.AppendUint32(b, 0) // disk of the central directory
		b = binary.LittleEndian.AppendUint64(b, records)
		b = binary.LittleEndian.AppendUint64(b, records)
		b = binary.LittleEndian.AppendUint64(b, size)
		b = binary.LittleEndian.AppendUint64(b, offset)
		b = binary.LittleEndian.AppendUint32(b, end64LocSig)
		b = binary.LittleEndian.AppendUint32(b, 0) // disk of the ZIP64 end record
		b = binary.LittleEndian.AppendUint64(b, end64)
		b = binary.LittleEndian.AppendUint32(b, 1) // disks
		// "see ZIP64" in every field, as archive/zip and Info-ZIP write it
		records, size, offset = max16, max32, max32
	}
	b = binary.LittleEndian.AppendUint32(b, endSig)
	b = binary.LittleEndian.AppendUint16(b, 0) // this disk
	b = binary.LittleEndian.AppendUint16(b, 0) // disk of the central directory
	b = binary.LittleEndian.AppendUint16(b, uint16(records))
	b = binary.LittleEndian.AppendUint16(b, uint16(records))
	b = binary.LittleEndian.AppendUint32(b, uint32(size))
	b = binary.LittleEndian.AppendUint32(b, uint32(offset))
	b = binary.LittleEndian.AppendUint16(b, 0) // comment length
	if err := z.write(b); err != nil {
		return nil, err
	}
	if err := z.bw.Flush(); err != nil {
		return nil, err
	}
	z.done = true
	return z.hw.Sum()
}

// appendCentral appends e's central header. Its ZIP64 extra holds only
// the fields whose slot is full (APPNOTE.TXT 4.5.3): both sizes if the
// local header used ZIP64, the offset past 32 bits.
func (z *zipWriter) appendCentral(b []byte, e *dirEntry) []byte {
	version := uint16(version20)
	if e.zip64 || e.offset >= max32 {
		version = version45
	}
	var x []byte
	csize, usize, offset := uint32(e.csize), uint32(e.usize), uint32(e.offset)
	if e.zip64 {
		x = binary.LittleEndian.AppendUint64(x, e.usize)
		x = binary.LittleEndian.AppendUint64(x, e.csize)
		csize, usize = max32, max32
	}
	if e.offset >= max32 {
		x = binary.LittleEndian.AppendUint64(x, e.offset)
		offset = max32
	}
	extra := utLen
	if len(x) > 0 {
		extra += 4 + len(x)
	}
	b = binary.LittleEndian.AppendUint32(b, centralSig)
	b = binary.LittleEndian.AppendUint16(b, unixHost|version)
	b = z.appendHeader(b, e, version, csize, usize, extra)
	b = binary.LittleEndian.AppendUint16(b, 0) // comment length
	b = binary.LittleEndian.AppendUint16(b, 0) // disk
	b = binary.LittleEndian.AppendUint16(b, 0) // internal attributes
	b = binary.LittleEndian.AppendUint32(b, unixMode)
	b = binary.LittleEndian.AppendUint32(b, offset)
	b = append(b, e.name...)
	if len(x) > 0 {
		b = binary.LittleEndian.AppendUint16(b, zip64ID)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(x)))
		b = append(b, x...)
	}
	return append(b, z.ut[:]...)
}

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
