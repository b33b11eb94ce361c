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
	"sync"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/mediatype"
)

// probeNeeded is the method of an item whose content decides it.
const probeNeeded uint16 = 0xffff

// bufPool holds read and Deflate buffers of up to chunkSize+dictSize bytes
// (more for the rare whole item whose Deflate output grows).
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, chunkSize+dictSize); return &b }}

func getBuf() *[]byte { b := bufPool.Get().(*[]byte); *b = (*b)[:0]; return b }

func putBuf(b *[]byte) {
	if b != nil && cap(*b) <= 2*(chunkSize+dictSize) {
		bufPool.Put(b)
	}
}

// bufWriter appends to a pooled buffer.
type bufWriter struct{ b *[]byte }

func (w bufWriter) Write(p []byte) (int, error) { *w.b = append(*w.b, p...); return len(p), nil }

// countWriter counts bytes and discards them.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// work runs jobs until work is closed.
func (p *packer) work(ctx context.Context, work <-chan *job) error {
	h := hashing.NewHasher(p.opt.Hashes)
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
			p.doWhole(h, j)
		} else {
			p.doChunk(j)
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

// probe decides, from the first bytes of a file, whether Deflate pays:
// it must save 2% of them at level 1, whose verdict on whether data is
// compressible at all is that of the higher levels at a fraction of their
// time.
func (p *packer) probe(head []byte) uint16 {
	var cw countWriter
	w, _ := flate.NewWriter(&cw, flate.BestSpeed)
	w.Write(head)
	w.Close()
	if !saves(cw.n, int64(len(head))) {
		return methodStore
	}
	return methodDeflate
}

// saves reports whether comp bytes save at least 2% of raw bytes.
func saves(comp, raw int64) bool { return comp*50 <= raw*49 }

// doWhole reads, checks and compresses an item small enough for one job.
func (p *packer) doWhole(h *hashing.Hasher, j *job) {
	it := &p.items[j.item]
	f, err := p.open(it)
	if err != nil {
		j.err = err
		return
	}
	defer f.Close()
	raw := getBuf()
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
	_, sum, _ := h.Sum(nil, bytes.NewReader(*raw))
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
		if j.method = p.probe((*raw)[:probeSize]); j.method == methodStore {
			return
		}
	}
	comp := getBuf()
	w := p.flates.Get().(*flate.Writer)
	w.Reset(bufWriter{comp})
	w.Write(*raw)
	w.Close()
	p.flates.Put(w)
	if j.method == probeNeeded {
		// Small enough to have been compressed whole: judge the result.
		j.method = methodDeflate
		if !saves(int64(len(*comp)), it.Size) {
			putBuf(comp)
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
func (p *packer) doChunk(j *job) {
	dict := int64(0)
	if j.method == methodDeflate {
		dict = min(dictSize, j.off)
	}
	raw := getBuf()
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
	comp := getBuf()
	j.comp = comp
	var w *flate.Writer
	if j.chunk == 0 {
		w = p.flates.Get().(*flate.Writer)
		w.Reset(bufWriter{comp})
		defer p.flates.Put(w)
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
