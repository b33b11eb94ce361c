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

const (
	probeNeeded uint16 = 0xffff // the method of an item whose content decides it
	// bufSize holds a chunk and its dictionary; smallBufSize the small
	// items that most trees are made of, in a fraction of the memory.
	bufSize      = chunkSize + dictSize
	smallBufSize = 64 << 10
)

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

// get and put use a free list: the window bounds how many buffers are in
// use, so it keeps them all, where the collector empties a sync.Pool.
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

// tools are a goroutine's, reused from job to job.
type tools struct {
	h  *hashing.Hasher
	cw countWriter
}

// getFlate takes a flate.Writer at level (BestSpeed for a probe) for one
// compression: a Run then holds about GOMAXPROCS of 1 MB each, not two
// per worker, most of which wait for reads.
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
		if j.src == nil {
			p.doWhole(ctx, t, j)
		} else {
			p.doChunk(ctx, t, j)
		}
		close(j.done)
	}
}

// waitTurn waits for the read before j in its chain; endTurn lets the
// next one read, and may be called twice.
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

// open opens it and checks, if the reader can Stat, that it is still a
// regular file of the length published.
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
	s, ok := f.(interface{ Stat() (fs.FileInfo, error) })
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

// decide stores a file unless level 1, whose verdict is the higher
// levels' at a fraction of the time, saves 2% of its first bytes.
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
	raw := p.getBuf(int(it.Size) + 1) // one byte more, to see a file that grew
	j.raw = raw
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
	if j.method == probeNeeded { // compressed whole: judge the result
		j.method = methodDeflate
		if !saves(int64(len(*comp)), it.Size) {
			p.putBuf(comp)
			j.method = methodStore
			return
		}
	}
	j.comp = comp
}

// openSource opens a split item and chooses its method, for all chunks.
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

// doChunk reads and compresses a chunk. Its Deflate dictionary, the 32
// KiB before it, is read with it or kept from the chunk before; the
// writer checks it against the bytes it hashed, so that a file changing
// under the workers never yields a stream of other bytes than those.
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
		endTurn(j)
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
	if j.last { // the file must end here
		var one [1]byte
		if m, _ := j.src.ra.ReadAt(one[:], j.off+j.n); m > 0 {
			j.err = fmt.Errorf("%w: it grew", ErrChanged)
		}
	}
}

// readNext reads the chunk of j on from the one before, in turn.
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
	case j.last: // the bytes must end here (a zip member checks its CRC-32 there)
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
