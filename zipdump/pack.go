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
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// packer is the state of one Run. Its writer side (write and what it
// calls) runs in one goroutine; workers only fill jobs.
type packer struct {
	opt       *Options
	seq       Seq
	n         int               // the number of items
	renames   map[string]string // entry names that are not the item's Name
	res       *Result
	sem       chan struct{}      // the window: one token per job queued or in work
	bufs      chan *[]byte       // free buffers of bufSize
	smallBufs chan *[]byte       // free buffers of smallBufSize
	flates    chan *flate.Writer // free writers at Options.Level
	probes    chan *flate.Writer // free writers at BestSpeed

	lastRead chan struct{} // dispatch's: the read that a Sequential job waits for

	tools *tools // the writer's
	cur   *pkg   // the package being written
	item  int    // the item being written
	line  []byte
}

type pkg struct {
	Package
	f               File
	zw              *zipWriter
	manifest        File                // the copy of the manifest, while it is written
	manifestMeasure *listwriter.Measure // its manifest so far, root and end included
	// The manifest entries wait in a file of work (partName) until the
	// root can be written, so that memory does not grow with them.
	part         File
	partW        *bufio.Writer
	partSize     int64
	entries      int
	centralBound int64 // bytes its central directory headers take at most
}

func (p *packer) now() time.Time {
	if p.opt.Now == nil {
		return p.opt.At.UTC().Truncate(time.Second)
	}
	return p.opt.Now().UTC().Truncate(time.Second)
}

func (p *packer) release(j *job) {
	p.putBuf(j.raw)
	p.putBuf(j.comp)
	j.raw, j.comp = nil, nil
	<-p.sem
}

// write takes the jobs in item order and writes them into packages.
func (p *packer) write(ctx context.Context, ordered <-chan *job) error {
	p.tools = &tools{h: hashing.NewHasher(p.opt.Hashes)}
	next := func() (*job, error) {
		select {
		case j, ok := <-ordered:
			if !ok {
				return nil, nil
			}
			if j.done != nil {
				select {
				case <-j.done:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return j, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	for {
		j, err := next()
		if err != nil {
			return err
		}
		if j == nil {
			break
		}
		if err := p.writeItem(j, next); err != nil {
			return err
		}
	}
	p.item = p.n
	if p.cur != nil {
		return p.finishPackage()
	}
	return nil
}

func (p *packer) skip(i int, err error) {
	p.res.Skipped = append(p.res.Skipped, Skipped{Index: i, Err: err})
}

// errTooLong is room's error for entries that fit no manifest.
var errTooLong = errors.New("more than a manifest may hold")

func (p *packer) writeItem(first *job, next func() (*job, error)) error {
	it, name := first.it, first.name
	p.item = first.item
	if first.err != nil {
		p.skip(first.item, first.err)
		return p.drain(first, next)
	}
	entries := append([]rsxml.Entry{it.Entry}, it.Also...)
	var bound int64
	if it.NoBitstream {
		entries = entries[:1]
	} else {
		for i := range entries {
			entries[i].MD.Path = "/" + name
		}
		bound = storedBound(first)
	}
	p.line = p.line[:0]
	for i := range entries {
		p.line = rsxml.AppendEntry(p.line, false, &entries[i])
	}
	if len(entries) > p.opt.MaxEntries {
		p.skip(first.item, fmt.Errorf("its bitstream is that of %d resources, more than a manifest may list (%d)", len(entries), p.opt.MaxEntries))
		return p.drain(first, next)
	}
	if err := p.room(name, bound, int64(len(p.line)), len(entries)); err != nil {
		if errors.Is(err, errTooLong) {
			p.skip(first.item, err)
			return p.drain(first, next)
		}
		if first.src != nil {
			first.src.close()
		}
		return err
	}
	switch {
	case it.NoBitstream:
		p.release(first)
		return p.keepLines(1)
	case first.src == nil:
		data := *first.raw
		if first.comp != nil {
			data = *first.comp
		}
		err := p.cur.zw.writeEntry(name, first.method, first.crc, it.Size, data)
		p.release(first)
		if err != nil {
			return writing(p.cur.Name, err)
		}
	default:
		if ok, err := p.stream(first, next, it, name, bound); err != nil || !ok {
			return err
		}
	}
	if err := p.keepLines(len(entries)); err != nil {
		return err
	}
	c := p.cur
	c.centralBound += boundCentral + int64(len(name))
	c.Bitstreams++
	return nil
}

// storedBound is the most bytes the item of first takes in its package.
func storedBound(first *job) int64 {
	switch {
	case first.src == nil && first.comp != nil:
		return int64(len(*first.comp))
	case first.src == nil, first.method == methodStore:
		return first.it.Size
	}
	return deflateBound(first.it.Size)
}

// drain releases the jobs of the item of first, and closes its reader.
func (p *packer) drain(first *job, next func() (*job, error)) error {
	if first.src != nil {
		defer first.src.close()
	}
	j := first
	for !j.last {
		p.release(j)
		var err error
		if j, err = nextChunk(next); err != nil {
			return err
		}
	}
	p.release(j)
	return nil
}

func nextChunk(next func() (*job, error)) (*job, error) {
	j, err := next()
	if err == nil && j == nil {
		err = errors.New("zipdump: the queue ended inside an item")
	}
	return j, err
}

// writing wraps an error of writing the output file name, without the
// path an *fs.PathError repeats: callers know where their output goes.
func writing(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("writing %s: %s: %w", name, pe.Op, pe.Err)
	}
	return fmt.Errorf("writing %s: %w", name, err)
}

// room makes sure the current package can take an entry named name of at
// most bound stored bytes and n manifest entries of line bytes, else
// starts a new one. A package takes its first bitstream whatever its size.
func (p *packer) room(name string, bound, line int64, n int) error {
	if c := p.cur; c != nil && c.entries > 0 {
		size := c.zw.off + localSize(name, true) + bound + // the entry
			localSize(ManifestName, true) + deflateBound(c.manifestMeasure.Size()+line) + // the manifest
			c.centralBound + 2*boundCentral + int64(len(name)+len(ManifestName)) + boundEnd
		if !c.manifestMeasure.Room(line, n) || size > p.opt.MaxBytes {
			if err := p.finishPackage(); err != nil {
				return err
			}
		}
	}
	if p.cur == nil {
		if err := p.startPackage(); err != nil {
			return err
		}
	}
	if !p.cur.manifestMeasure.Room(line, n) {
		return fmt.Errorf("its manifest entries are %d bytes, %w (%d bytes with its root)", line, errTooLong, p.opt.MaxManifestLen)
	}
	return nil
}

func (p *packer) startPackage() error {
	n := len(p.res.Packages) + 1
	c := &pkg{Package: Package{
		Name:         fmt.Sprintf("%s-%05d.zip", p.opt.Stem, n),
		ManifestName: fmt.Sprintf("%s-%05d.manifest.xml", p.opt.Stem, n),
		First:        p.item,
		End:          p.n, // the widest root: until is the last item's
		At:           p.now(),
	}}
	f, err := p.opt.Create(c.Name)
	if err != nil {
		return writing(c.Name, err)
	}
	c.f = f
	if c.part, err = p.opt.Create(partName(c.ManifestName)); err != nil {
		f.Close()
		return writing(partName(c.ManifestName), err)
	}
	c.partW = bufio.NewWriterSize(c.part, 64<<10)
	c.zw = newZipWriter(f, p.opt.At, p.opt.Hashes)
	doc := p.manifestDoc(c) // completed has the length of at: both are whole seconds
	c.manifestMeasure = listwriter.NewMeasure(&doc, listwriter.Limits{MaxEntries: p.opt.MaxEntries, MaxBytes: p.opt.MaxManifestLen})
	p.cur = c
	return nil
}

func partName(manifest string) string { return manifest + ".part" }

// keepLines adds the n entries of p.line to the current manifest.
func (p *packer) keepLines(n int) error {
	c := p.cur
	if _, err := c.partW.Write(p.line); err != nil {
		return writing(partName(c.ManifestName), err)
	}
	c.manifestMeasure.AddSize(int64(len(p.line)), n)
	c.partSize += int64(len(p.line))
	c.entries += n
	return nil
}

func (p *packer) dropPart(c *pkg) error {
	c.part.Close()
	if err := p.opt.Remove(partName(c.ManifestName)); err != nil {
		return fmt.Errorf("removing %s: %w", partName(c.ManifestName), err)
	}
	return nil
}

func (p *packer) manifestDoc(c *pkg) rsxml.Doc {
	doc := p.opt.Manifest
	doc.Index = false
	if p.opt.ManifestMD != nil {
		doc.MD = p.opt.ManifestMD(c.First, c.End)
		return doc
	}
	completed := c.Completed
	if completed.IsZero() {
		completed = c.At
	}
	doc.MD = rsxml.MD{Capability: rsxml.CapResourceDumpManifest, At: rsxml.FormatTime(c.At), Completed: rsxml.FormatTime(completed)}
	return doc
}

// finishPackage writes the manifest beside the package and into it, last,
// and closes the package.
func (p *packer) finishPackage() error {
	c := p.cur
	c.End = p.item
	if c.entries == 0 { // every item meant for the last one was skipped
		p.cur = nil
		c.zw.discard()
		c.f.Close()
		if err := p.dropPart(c); err != nil {
			return err
		}
		if err := p.opt.Remove(c.Name); err != nil {
			return fmt.Errorf("removing the empty %s: %w", c.Name, err)
		}
		return nil
	}
	if err := c.partW.Flush(); err != nil {
		return writing(partName(c.ManifestName), err)
	}
	c.Completed = p.now()
	mf, err := p.opt.Create(c.ManifestName)
	if err != nil {
		return writing(c.ManifestName, err)
	}
	c.manifest = mf
	w := rsxml.NewWriter(mf, p.manifestDoc(c)) // its root, now complete
	w.Copy(io.NewSectionReader(c.part, 0, c.partSize))
	if err := w.Close(); err != nil {
		return writing(c.ManifestName, err)
	}
	if err := p.dropPart(c); err != nil {
		return err
	}
	size := w.Size()
	if size > p.opt.MaxManifestLen {
		return fmt.Errorf("zipdump: manifest of %s is %d bytes, past the limit of %d", c.Name, size, p.opt.MaxManifestLen)
	}
	if err := p.packManifest(c, io.NewSectionReader(mf, 0, size)); err != nil {
		return writing(p.cur.Name, err)
	}
	c.manifest = nil
	if err := mf.Close(); err != nil {
		return writing(c.ManifestName, err)
	}
	sum, err := c.zw.Close()
	if err != nil {
		return writing(p.cur.Name, err)
	}
	p.cur = nil
	if err := c.f.Close(); err != nil {
		return writing(c.Name, err)
	}
	c.Size = c.zw.off
	c.Hash = p.opt.Hashes.Tokens(nil, sum)
	p.res.Packages = append(p.res.Packages, c.Package)
	return nil
}

// packManifest packs the copy just written beside c: the same bytes.
func (p *packer) packManifest(c *pkg, mf *io.SectionReader) error {
	if err := c.zw.begin(ManifestName, methodDeflate, mf.Size(), deflateBound(mf.Size())); err != nil {
		return err
	}
	crc := crc32.NewIEEE()
	fw := p.getFlate(p.opt.Level)
	defer p.putFlate(p.opt.Level, fw)
	fw.Reset(c.zw)
	_, err := io.Copy(fw, io.TeeReader(mf, crc))
	if err == nil {
		err = fw.Close()
	}
	if err != nil {
		return err
	}
	return c.zw.finish(crc.Sum32())
}

// chunkStream hands a split item's chunks, in order, to the hasher, and
// writes their stored bytes into the package as it goes.
type chunkStream struct {
	p     *packer
	next  func() (*job, error)
	first *job
	j     *job // the chunk being read
	rest  []byte
	tail  []byte // the last dictSize bytes of data before j
	crc   uint32
	fatal error // reading the queue or writing the package failed
	bad   error // the item changed
}

func (s *chunkStream) Read(b []byte) (int, error) {
	if len(s.rest) == 0 {
		if err := s.advance(); err != nil {
			return 0, err
		}
	}
	n := copy(b, s.rest)
	s.rest = s.rest[n:]
	return n, nil
}

func (s *chunkStream) advance() error {
	if s.j == nil {
		s.j, s.first = s.first, nil
	} else {
		if s.j.last {
			return io.EOF
		}
		data := (*s.j.raw)[s.j.dict:]
		s.tail = append(s.tail[:0], data[len(data)-min(dictSize, len(data)):]...)
		s.p.release(s.j)
		s.j = nil
		j, err := nextChunk(s.next)
		if err != nil {
			s.fatal = err
			return err
		}
		s.j = j
	}
	j := s.j
	if j.err != nil {
		s.bad = j.err
		return j.err
	}
	data := (*j.raw)[j.dict:]
	if j.dict > 0 && !bytes.Equal((*j.raw)[:j.dict], s.tail[len(s.tail)-j.dict:]) {
		s.bad = fmt.Errorf("%w: it was rewritten while it was read", ErrChanged)
		return s.bad
	}
	s.crc = crc32.Update(s.crc, crc32.IEEETable, data)
	stored := data
	if j.comp != nil {
		stored = *j.comp
	}
	if _, err := s.p.cur.zw.Write(stored); err != nil {
		s.fatal = writing(s.p.cur.Name, err)
		return s.fatal
	}
	s.rest = data
	return nil
}

// stream writes a split item, and reports whether it was kept: one that
// changed is taken back out of the package.
func (p *packer) stream(first *job, next func() (*job, error), it *Item, name string, bound int64) (bool, error) {
	defer first.src.close()
	zw := p.cur.zw
	if err := zw.begin(name, first.method, it.Size, bound); err != nil {
		p.release(first)
		return false, writing(p.cur.Name, err)
	}
	s := &chunkStream{p: p, next: next, first: first}
	n, sum, _ := p.tools.h.Sum(nil, s)
	if s.fatal != nil {
		if s.j != nil {
			p.release(s.j)
		}
		return false, s.fatal
	}
	bad := s.bad
	if bad == nil && n != it.Size {
		bad = fmt.Errorf("%w: %d bytes read, %d when hashed", ErrChanged, n, it.Size)
	}
	if bad == nil && !p.opt.Hashes.Holds(it.Hash, sum) {
		bad = fmt.Errorf("%w: its digest differs", ErrChanged)
	}
	if err := p.drain(s.j, next); err != nil { // what is left of the item's chunks
		return false, err
	}
	if bad != nil {
		if err := zw.abort(); err != nil {
			return false, writing(p.cur.Name, err)
		}
		p.skip(first.item, bad)
		return false, nil
	}
	if err := zw.finish(s.crc); err != nil {
		return false, writing(p.cur.Name, err)
	}
	return true, nil
}
