package zipdump

import (
	"bufio"
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/mediatype"
)

// probeNeeded is the method of an item whose content decides it.
const probeNeeded uint16 = 0xffff

// bufSize is the capacity of a read or Deflate buffer: a chunk and its
// dictionary (Deflate output of a chunk that does not compress grows the
// buffer a little, once).
const bufSize = chunkSize + dictSize

// smallBufSize is the capacity of the buffers of small items, which are
// most items of most trees: a tree of small files then needs a small
// fraction of the memory that buffers of bufSize would take.
const smallBufSize = 64 << 10

func (p *packer) getBuf(n int) *[]byte {
	list, size := p.bufs, bufSize
	if n <= smallBufSize {
		list, size = p.smallBufs, smallBufSize
	}
	b := get(list, func() *[]byte { b := make([]byte, 0, size); return &b })
	*b = (*b)[:0]
	return b
}

func (p *packer) putBuf(b *[]byte) {
	switch {
	case b == nil:
	case cap(*b) < bufSize:
		put(p.smallBufs, b)
	default:
		put(p.bufs, b)
	}
}

// get takes a value from a free list, or makes a new one; put gives it
// back, unless the list is full. The window bounds how many buffers are in
// use, so the free lists (unlike a sync.Pool, which the garbage collector
// empties) keep them all.
func get[T any](list chan T, fresh func() T) T {
	select {
	case v := <-list:
		return v
	default:
		return fresh()
	}
}

func put[T any](list chan T, v T) {
	select {
	case list <- v:
	default:
	}
}

// tools are what one goroutine needs to read and compress, reused from
// one job to the next.
type tools struct {
	h  *hashing.Hasher
	cw countWriter
}

// getFlate returns a flate.Writer at level (Options.Level, or BestSpeed
// for a probe) from the free list of the Run, or a new one; putFlate gives
// it back. One is taken for each compression and given back after it, so
// that a Run has as many as compress at once (about GOMAXPROCS), not two
// for each worker, most of which wait for reads: each holds about 1 MB.
func (p *packer) getFlate(level int) *flate.Writer {
	return get(p.flateList(level), func() *flate.Writer { w, _ := flate.NewWriter(nil, level); return w })
}

func (p *packer) putFlate(level int, w *flate.Writer) { put(p.flateList(level), w) }

func (p *packer) flateList(level int) chan *flate.Writer {
	if level == flate.BestSpeed {
		return p.probes
	}
	return p.flates
}

type bufWriter struct{ b *[]byte }

func (w bufWriter) Write(p []byte) (int, error) { *w.b = append(*w.b, p...); return len(p), nil }

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

func (p *packer) work(ctx context.Context, work <-chan *job) error {
	t := &tools{h: hashing.NewHasher(p.opt.Hashes)}
	for {
		var j *job
		select {
		case <-ctx.Done():
			return ctx.Err()
		case j = <-work:
			if j == nil {
				return nil
			}
		}
		if j.whole {
			p.doWhole(ctx, t, j)
		} else {
			p.doChunk(ctx, t, j)
		}
		close(j.done)
	}
}

// waitTurn waits until the job before j in its chain of reads has read;
// endTurn lets the job after j read, and may be called more than once.
func waitTurn(ctx context.Context, j *job) bool {
	if j.after == nil {
		return true
	}
	select {
	case <-j.after:
		return true
	case <-ctx.Done():
		j.err = ctx.Err()
		return false
	}
}

func endTurn(j *job) {
	if j.readDone != nil {
		close(j.readDone)
		j.readDone = nil
	}
}

// open opens the bytes of it and checks, if the reader can say, that they
// are still a regular file of the length that was published.
func (p *packer) open(it *Item) (io.ReadCloser, error) {
	f, err := p.opt.Open(it)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("%w: it vanished", ErrChanged)
		case errors.Is(err, ErrChanged):
			return nil, err
		}
		return nil, fmt.Errorf("opening: %w", err)
	}
	s, ok := f.(interface{ Stat() (fs.FileInfo, error) }) // an *os.File, a member of a zip.Reader
	if !ok {
		return f, nil
	}
	st, err := s.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("opening: %w", err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w: it is no longer a regular file", ErrChanged)
	}
	if st.Size() != it.Size {
		f.Close()
		return nil, fmt.Errorf("%w: %d bytes now, %d when hashed", ErrChanged, st.Size(), it.Size)
	}
	return f, nil
}

// method chooses how it is stored, or asks for a probe of its content.
func (p *packer) method(it *Item) uint16 {
	switch {
	case it.Size == 0:
		return methodStore // Deflate would add 2 bytes to nothing
	case p.opt.Compression == Store:
		return methodStore
	case p.opt.Compression == Deflate:
		return methodDeflate
	case mediatype.IsCompressed(it.Entry.MD.Type):
		return methodStore
	}
	return probeNeeded
}

// decide decides, from the first bytes of a file, whether Deflate pays:
// it must save 2% of them at level 1, whose verdict on whether data is
// compressible at all is that of the higher levels at a fraction of their
// time.
func (p *packer) decide(t *tools, head []byte) uint16 {
	t.cw.n = 0
	probe := p.getFlate(flate.BestSpeed)
	probe.Reset(&t.cw)
	probe.Write(head)
	probe.Close()
	p.putFlate(flate.BestSpeed, probe)
	if !saves(t.cw.n, int64(len(head))) {
		return methodStore
	}
	return methodDeflate
}

func saves(comp, raw int64) bool { return comp*50 <= raw*49 }

// doWhole reads, checks and compresses an item of one job.
func (p *packer) doWhole(ctx context.Context, t *tools, j *job) {
	defer endTurn(j)
	if !waitTurn(ctx, j) {
		return
	}
	it := j.it
	f, err := p.open(it)
	if err != nil {
		j.err = err
		return
	}
	raw := p.getBuf(int(it.Size) + 1)
	j.raw = raw
	// Read one byte more than expected, to see a file that grew. The
	// buffer holds that (getBuf), and it.Size <= chunkSize.
	*raw = (*raw)[:it.Size+1]
	n, err := io.ReadFull(f, *raw)
	f.Close()
	endTurn(j)
	*raw = (*raw)[:n]
	switch {
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		if int64(n) != it.Size {
			j.err = fmt.Errorf("%w: %d bytes read, %d when hashed", ErrChanged, n, it.Size)
			return
		}
	case err != nil:
		j.err = fmt.Errorf("reading: %w", err)
		return
	default:
		j.err = fmt.Errorf("%w: it grew past %d bytes", ErrChanged, it.Size)
		return
	}
	_, sum, _ := t.h.Sum(nil, bytes.NewReader(*raw))
	if !p.opt.Hashes.Holds(it.Hash, sum) {
		j.err = fmt.Errorf("%w: its digest differs", ErrChanged)
		return
	}
	j.crc = crc32.ChecksumIEEE(*raw)
	j.method = p.method(it)
	if j.method == methodStore {
		return
	}
	if j.method == probeNeeded && it.Size > probeSize {
		if j.method = p.decide(t, (*raw)[:probeSize]); j.method == methodStore {
			return
		}
	}
	comp := p.getBuf(len(*raw))
	fw := p.getFlate(p.opt.Level)
	fw.Reset(bufWriter{comp})
	fw.Write(*raw)
	fw.Close()
	p.putFlate(p.opt.Level, fw)
	if j.method == probeNeeded {
		// Small enough to have been compressed whole: judge the result.
		j.method = methodDeflate
		if !saves(int64(len(*comp)), it.Size) {
			p.putBuf(comp)
			j.method = methodStore
			return
		}
	}
	j.comp = comp
}

// openSource opens the reader of a split item and chooses how to store
// the item, for all its chunks.
func (p *packer) openSource(t *tools, src *source, it *Item) {
	defer close(src.opened)
	rc, err := p.open(it)
	if err != nil {
		src.openErr = err
		return
	}
	src.rc, src.r = rc, rc
	if ra, ok := rc.(io.ReaderAt); ok && !p.opt.Sequential {
		src.ra = ra
	}
	method := p.method(it)
	if method == probeNeeded {
		var head []byte
		if src.ra != nil {
			head = make([]byte, probeSize)
			_, err = src.ra.ReadAt(head, 0)
		} else {
			br := bufio.NewReaderSize(rc, probeSize)
			head, err = br.Peek(probeSize)
			src.r = br
		}
		if err != nil {
			src.openErr = changed(err)
			src.close()
			return
		}
		method = p.decide(t, head)
	}
	src.method = method
}

// doChunk reads and compresses one chunk of a split item. For Deflate,
// the 32 KiB before the chunk are its dictionary: read with it at its
// offset, or kept from the chunk before when the item is read from start
// to end. The writer checks that they equal the end of the chunk before,
// which it has hashed, so that a file changing under the workers can
// never yield a stream that decodes to other bytes than those hashed.
func (p *packer) doChunk(ctx context.Context, t *tools, j *job) {
	src := j.src
	defer endTurn(j)
	if j.chunk == 0 {
		if !waitTurn(ctx, j) {
			src.openErr = j.err
			close(src.opened)
			return
		}
		p.openSource(t, src, j.it)
	} else {
		select {
		case <-src.opened:
		case <-ctx.Done():
			j.err = ctx.Err()
			return
		}
		if src.ra == nil && !waitTurn(ctx, j) {
			return
		}
	}
	if src.openErr != nil {
		j.err = src.openErr
		return
	}
	j.method = src.method
	if src.ra != nil {
		endTurn(j) // reads at offsets wait for no one
		p.readAt(j)
	} else {
		p.readNext(j)
		endTurn(j)
	}
	if j.err != nil || j.method != methodDeflate {
		return
	}
	raw, dict := j.raw, j.dict
	comp := p.getBuf(bufSize)
	j.comp = comp
	var w *flate.Writer
	if j.chunk == 0 {
		w = p.getFlate(p.opt.Level)
		defer p.putFlate(p.opt.Level, w)
		w.Reset(bufWriter{comp})
	} else {
		// A writer with a dictionary cannot be reset to another one.
		w, _ = flate.NewWriterDict(bufWriter{comp}, p.opt.Level, (*raw)[:dict])
	}
	w.Write((*raw)[dict:])
	if j.last {
		w.Close()
	} else {
		w.Flush()
	}
}

func (p *packer) readAt(j *job) {
	dict := int64(0)
	if j.method == methodDeflate {
		dict = min(dictSize, j.off)
	}
	raw := p.getBuf(bufSize)
	j.raw, j.dict = raw, int(dict)
	*raw = (*raw)[:dict+j.n]
	n, err := j.src.ra.ReadAt(*raw, j.off-dict)
	if int64(n) < dict+j.n {
		*raw = (*raw)[:n]
		j.err = changed(err)
		return
	}
	if j.last {
		// The file must end here.
		var one [1]byte
		if m, _ := j.src.ra.ReadAt(one[:], j.off+j.n); m > 0 {
			j.err = fmt.Errorf("%w: it grew", ErrChanged)
		}
	}
}

// readNext reads the chunk of j from where the chunk before it ended; its
// dictionary is the end of that chunk. Chunks read this way are read one
// at a time, in order (see job.after).
func (p *packer) readNext(j *job) {
	src := j.src
	if src.readErr != nil {
		j.err = src.readErr
		return
	}
	dict := 0
	if j.method == methodDeflate {
		dict = len(src.tail)
	}
	raw := p.getBuf(bufSize)
	j.raw, j.dict = raw, dict
	*raw = append((*raw)[:0], src.tail[:dict]...)
	*raw = (*raw)[:dict+int(j.n)]
	n, err := io.ReadFull(src.r, (*raw)[dict:])
	*raw = (*raw)[:dict+n]
	switch {
	case int64(n) < j.n:
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		j.err = changed(err)
	case j.last:
		// The bytes must end here; a member of a zip file checks its
		// CRC-32 on reaching its end.
		var one [1]byte
		if m, err := io.ReadFull(src.r, one[:]); m > 0 {
			j.err = fmt.Errorf("%w: it grew", ErrChanged)
		} else if err != io.EOF {
			j.err = fmt.Errorf("reading: %w", err)
		}
	case j.method == methodDeflate:
		data := (*raw)[dict:]
		src.tail = append(src.tail[:0], data[len(data)-min(dictSize, len(data)):]...)
	}
	if j.err != nil {
		src.readErr = j.err
	}
	if j.err != nil || j.last {
		src.close()
	}
}

func changed(err error) error {
	if err == nil || err == io.EOF {
		return fmt.Errorf("%w: it shrank", ErrChanged)
	}
	return fmt.Errorf("reading: %w", err)
}
