package zipdump

import (
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/mediatype"
)

// probeNeeded is the method of an item whose content decides it.
const probeNeeded uint16 = 0xffff

// bufSize is the capacity of a read or Deflate buffer: a chunk and its
// dictionary (Deflate output of a chunk that does not compress grows the
// buffer a little, once).
const bufSize = chunkSize + dictSize

// getBuf returns an empty buffer from the free list, or a new one. The
// window bounds how many are in use, so the free list (unlike a
// sync.Pool, which the garbage collector empties) keeps them all.
func (p *packer) getBuf() *[]byte {
	select {
	case b := <-p.bufs:
		*b = (*b)[:0]
		return b
	default:
		b := make([]byte, 0, bufSize)
		return &b
	}
}

func (p *packer) putBuf(b *[]byte) {
	if b == nil {
		return
	}
	select {
	case p.bufs <- b:
	default:
	}
}

// tools are what one goroutine needs to read and compress, reused from
// one job to the next.
type tools struct {
	h     *hashing.Hasher
	fw    *flate.Writer // at Options.Level
	probe *flate.Writer // at BestSpeed
	cw    countWriter
}

func newTools(opt *Options) *tools {
	t := &tools{h: hashing.NewHasher(opt.Hashes)}
	t.fw, _ = flate.NewWriter(nil, opt.Level)
	t.probe, _ = flate.NewWriter(nil, flate.BestSpeed)
	return t
}

// bufWriter appends to a pooled buffer.
type bufWriter struct{ b *[]byte }

func (w bufWriter) Write(p []byte) (int, error) { *w.b = append(*w.b, p...); return len(p), nil }

// countWriter counts bytes and discards them.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// work runs jobs until work is closed.
func (p *packer) work(ctx context.Context, work <-chan *job) error {
	t := newTools(p.opt)
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
			p.doWhole(t, j)
		} else {
			p.doChunk(t, j)
		}
		close(j.done)
	}
}

// open opens the file of it and checks that it is still a regular file of
// the length that was published.
func (p *packer) open(it *Item) (*os.File, error) {
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
	st, err := f.Stat()
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
func (t *tools) decide(head []byte) uint16 {
	t.cw.n = 0
	t.probe.Reset(&t.cw)
	t.probe.Write(head)
	t.probe.Close()
	if !saves(t.cw.n, int64(len(head))) {
		return methodStore
	}
	return methodDeflate
}

// saves reports whether comp bytes save at least 2% of raw bytes.
func saves(comp, raw int64) bool { return comp*50 <= raw*49 }

// doWhole reads, checks and compresses an item small enough for one job.
func (p *packer) doWhole(t *tools, j *job) {
	it := &p.items[j.item]
	f, err := p.open(it)
	if err != nil {
		j.err = err
		return
	}
	defer f.Close()
	raw := p.getBuf()
	j.raw = raw
	// Read one byte more than expected, to see a file that grew. The
	// buffer holds chunkSize+dictSize bytes, and it.Size <= chunkSize.
	*raw = (*raw)[:it.Size+1]
	n, err := io.ReadFull(f, *raw)
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
	if p.opt.Hashes.Format(sum) != it.Entry.MD.Hash {
		j.err = fmt.Errorf("%w: its digest differs", ErrChanged)
		return
	}
	j.crc = crc32.ChecksumIEEE(*raw)
	j.method = p.method(it)
	if j.method == methodStore {
		return
	}
	if j.method == probeNeeded && it.Size > probeSize {
		if j.method = t.decide((*raw)[:probeSize]); j.method == methodStore {
			return
		}
	}
	comp := p.getBuf()
	t.fw.Reset(bufWriter{comp})
	t.fw.Write(*raw)
	t.fw.Close()
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

// doChunk reads and compresses one chunk of a split item. For Deflate,
// the 32 KiB before the chunk are read with it, as its dictionary; the
// writer checks that they equal the end of the chunk before, which it
// has hashed, so that a file changing under the workers can never yield
// a stream that decodes to other bytes than those hashed.
func (p *packer) doChunk(t *tools, j *job) {
	dict := int64(0)
	if j.method == methodDeflate {
		dict = min(dictSize, j.off)
	}
	raw := p.getBuf()
	j.raw, j.dict = raw, int(dict)
	*raw = (*raw)[:dict+j.n]
	n, err := j.src.f.ReadAt(*raw, j.off-dict)
	if int64(n) < dict+j.n {
		*raw = (*raw)[:n]
		j.err = changed(err)
		return
	}
	if j.last {
		// The file must end here.
		var one [1]byte
		if m, _ := j.src.f.ReadAt(one[:], j.off+j.n); m > 0 {
			j.err = fmt.Errorf("%w: it grew", ErrChanged)
			return
		}
	}
	if j.method != methodDeflate {
		return
	}
	comp := p.getBuf()
	j.comp = comp
	w := t.fw
	if j.chunk == 0 {
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

// changed describes a read that ended early.
func changed(err error) error {
	if err == nil || err == io.EOF {
		return fmt.Errorf("%w: it shrank", ErrChanged)
	}
	return fmt.Errorf("reading: %w", err)
}
