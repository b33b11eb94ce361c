package listwriter

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/storage/confined"
)

// Limits bound the size of one document (section 7). Zero fields, or
// fields past the spec's, are the spec's: 50,000 entries and 50 MB.
type Limits struct {
	MaxEntries int   `toml:"max-entries"`
	MaxBytes   int64 `toml:"max-bytes"`
}

func (l Limits) orSpec() Limits {
	if l.MaxEntries <= 0 || l.MaxEntries > rsxml.MaxEntries {
		l.MaxEntries = rsxml.MaxEntries
	}
	if l.MaxBytes <= 0 || l.MaxBytes > rsxml.MaxBytes {
		l.MaxBytes = rsxml.MaxBytes
	}
	return l
}

// Files is where a Writer creates its documents and body files.
type Files interface {
	// Create creates the document name (a file name: resourcelist.xml).
	Create(name string) (io.WriteCloser, error)
	// Temp creates a scratch file to write and read back. The Writer
	// closes and removes it.
	Temp() (*os.File, error)
}

// Options describe a list.
type Options struct {
	// Name is the stem of the documents: Name.xml is the list when whole,
	// and the index over its parts Name-00001.xml, … otherwise.
	Name string
	// Doc is the root of the list when whole, and of the index over its
	// parts (with Index set). Parts have its <rs:md> and links, and
	// rel="index".
	Doc rsxml.Doc
	// URL gives the URL of a document from its name.
	URL func(name string) string
	// Index, if set, is the href of an index kept by the caller: every
	// document links to it with rel="index", whole or not, and Close
	// writes no index. If empty, parts link to Name.xml, where Close
	// writes the index over them.
	Index string
	// Apart, with Index empty, writes the parts for a caller that lists
	// them in a document that is no index (a Change List Archive): they
	// link to no index, and Close writes none.
	Apart  bool
	Limits Limits
	// Time, if set, makes the list a change document covering Doc.MD.From
	// to Doc.MD.Until ("" while open): each part carries its own from and
	// until, which meet at the time of the first entry of the next part.
	// Time(e) is that time, called once for each entry, in order. A change
	// document is cut between two times, never inside one, so that a
	// Destination resuming after the last datetime it saw misses none:
	// the entries of the time a full part ends with are moved from its
	// body file to the next part's; only a time with more entries than a
	// part holds is cut, which Written.Inside names.
	Time func(e *rsxml.Entry) string
	// PartMD, if set, gives the <rs:md> of a part's entry in the index from
	// those of its first and last entries. For a change document, the
	// part's from and until are set on it.
	PartMD func(first, last *rsxml.MD) rsxml.MD
}

// A Part is one document written.
type Part struct {
	Name        string
	Entries     int
	From, Until string   // the interval of a part of a change document
	MD          rsxml.MD // its <rs:md> in an index
}

// Written says what a Writer wrote.
type Written struct {
	Name   string   // the document to link to: the list, or the index over its parts; "" for parts under the caller's index
	Index  bool     // Name is an index written by Close
	Parts  []Part   // the documents of the list: one if whole
	Docs   int      // documents written, the index included
	Inside []string // the times cut between two parts (Options.Time)
}

// An EntryError is the error of an entry that does not fit a document
// alone.
type EntryError struct {
	List  string // Options.Name
	Loc   string
	Size  int64 // bytes of the entry
	Limit int64 // bytes a document may hold
}

func (e *EntryError) Error() string {
	return fmt.Sprintf("an entry of %s (%s) is %d bytes, more than a document of %d bytes can hold", e.List, e.Loc, e.Size, e.Limit)
}

// An IndexError is the error of a list whose parts are too many for one
// index within the limits: an index is not split in turn.
type IndexError struct {
	List  string // Options.Name
	Parts int    // parts written when it was found; there may be more
	Bytes int64  // bytes of the index over them; 0 if the parts are too many
	// Limits the index passed.
	Limits Limits
}

func (e *IndexError) Error() string {
	if e.Bytes == 0 {
		return fmt.Sprintf("%s needs more than %d parts, more than one index may list", e.List, e.Limits.MaxEntries)
	}
	return fmt.Sprintf("%s needs %d parts or more, and an index over them would be %d bytes, more than a document may hold (%d)", e.List, e.Parts, e.Bytes, e.Limits.MaxBytes)
}

// untilWidth is a datetime rsgen writes for the until of a part of a
// change document: that of the first entry of the next, to the second.
const untilWidth = "2006-01-02T15:04:05Z"

// Writer splits one list into documents. Create it with New, Add the
// entries, then Close it; the first error sticks and is returned by every
// later call.
type Writer struct {
	files  Files
	opt    Options
	limits Limits
	own    bool // the index is the Writer's: at Name.xml, written by Close
	index  rsxml.Link
	buf    []byte // the entry being added, rendered
	parts  []Part
	cur    *part
	isize  *Measure // the index over the parts, if the Writer's
	inside []string
	err    error
	done   bool
}

type part struct {
	from        string
	n           int
	size        int64 // header, footer and entries, as measured
	first, last rsxml.MD
	body        *os.File // the entries, when the header waits for the end
	written     int64    // bytes of entries in body
	f           io.WriteCloser
	name        string
	bw          *bufio.Writer
	run         run // of a change document: the entries of its last time
}

// A run is the entries a part of a change document ends with that share
// one time: where it starts in the body, how many and how large they are,
// and the last entry before them.
type run struct {
	time      string
	off       int64
	n         int
	size      int64
	first     rsxml.MD
	lastAhead rsxml.MD
}

// New returns a Writer of the list opt describes into files.
func New(files Files, opt Options) *Writer {
	w := &Writer{files: files, opt: opt, limits: opt.Limits.orSpec(), own: opt.Index == "" && !opt.Apart}
	w.index = rsxml.Link{Rel: "index", Href: opt.Index}
	if w.own {
		w.index.Href = opt.URL(opt.Name + ".xml")
	}
	return w
}

// PartName is the name of the i-th part (from 1).
func PartName(name string, i int) string { return fmt.Sprintf("%s-%05d.xml", name, i) }

func (w *Writer) partDoc(from, until string) rsxml.Doc {
	doc := rsxml.Doc{MD: w.opt.Doc.MD, Links: w.opt.Doc.Links}
	if w.index.Href != "" {
		doc.Links = append(doc.Links[:len(doc.Links):len(doc.Links)], w.index)
	}
	if w.opt.Time != nil {
		doc.MD.From, doc.MD.Until = from, until
	}
	return doc
}

// fixed returns the bytes of the root of a part that starts at from: its
// header, with the widest until it may get, and its footer. A list that
// ends up whole has a root no longer (no rel="index"), so that a part
// measured with it holds either way.
func (w *Writer) fixed(from string) int64 {
	until := w.opt.Doc.MD.Until
	if w.opt.Time != nil && len(until) < len(untilWidth) {
		until = untilWidth
	}
	doc := w.partDoc(from, until)
	return int64(len(rsxml.AppendHeader(nil, &doc)) + len(rsxml.AppendFooter(nil, &doc)))
}

// Add adds e to the list.
func (w *Writer) Add(e *rsxml.Entry) error {
	if w.err != nil {
		return w.err
	}
	if w.done {
		return errors.New("listwriter: Add after Close")
	}
	t := ""
	if w.opt.Time != nil {
		t = w.opt.Time(e)
	}
	w.buf = rsxml.AppendEntry(w.buf[:0], false, e)
	l := int64(len(w.buf))
	from := t
	if w.cur == nil && len(w.parts) == 0 {
		from = w.opt.Doc.MD.From
	}
	for c := w.cur; c != nil && (c.n == w.limits.MaxEntries || c.size+l > w.limits.MaxBytes); c = w.cur {
		sameTime := w.opt.Time != nil && t == c.run.time
		if sameTime && c.run.n < c.n {
			// The part ends before the entries of this time, which
			// start the next; then e may not fit that one either.
			if err := w.moveRun(); err != nil {
				return w.fail(err)
			}
			continue
		}
		if sameTime && (len(w.inside) == 0 || w.inside[len(w.inside)-1] != t) {
			w.inside = append(w.inside, t)
		}
		if err := w.finish(t); err != nil {
			return w.fail(err)
		}
	}
	if w.cur == nil {
		// An entry that starts a part must fit it alone.
		if w.fixed(from)+l > w.limits.MaxBytes {
			return w.fail(&EntryError{List: w.opt.Name, Loc: e.Loc, Size: l, Limit: w.limits.MaxBytes})
		}
		if err := w.start(from, nil); err != nil {
			return w.fail(err)
		}
	}
	c := w.cur
	if c.n == 0 {
		c.first = e.MD
	}
	if w.opt.Time != nil && (c.n == 0 || t != c.run.time) {
		c.run = run{time: t, off: c.written, first: e.MD, lastAhead: c.last}
	}
	c.run.n++
	c.run.size += l
	c.last = e.MD
	c.n++
	c.size += l
	c.written += l
	if _, err := c.bw.Write(w.buf); err != nil {
		return w.fail(w.writeErr(err))
	}
	return nil
}

// moveRun ends the current part of a change document before the entries
// of its last time, and starts the next part with them.
func (w *Writer) moveRun() error {
	c := w.cur
	r, last := c.run, c.last
	if err := c.bw.Flush(); err != nil {
		return w.writeErr(err)
	}
	tail, err := w.files.Temp()
	if err != nil {
		return fmt.Errorf("writing %s: %w", w.opt.Name+".xml", err)
	}
	_, err = io.Copy(tail, io.NewSectionReader(c.body, r.off, c.written-r.off))
	if err == nil {
		err = c.body.Truncate(r.off)
	}
	if err == nil {
		c.n, c.size, c.written, c.last = c.n-r.n, c.size-r.size, r.off, r.lastAhead
		err = w.finish(r.time)
	}
	if err == nil {
		err = w.start(r.time, tail) // its body: the entries are written
	}
	if err != nil {
		tail.Close()
		confined.Remove(tail.Name())
		return err
	}
	n := w.cur
	n.first, n.last, n.n, n.size, n.written = r.first, last, r.n, n.size+r.size, r.size
	n.run = run{time: r.time, n: r.n, size: r.size, first: r.first}
	return nil
}

// start starts a part from from: into a body file if its header cannot be
// written yet (body, if not nil, which holds its first entries already),
// else into its document.
func (w *Writer) start(from string, body *os.File) error {
	if len(w.parts) >= w.limits.MaxEntries { // an index lists them, the caller's or ours
		return &IndexError{List: w.opt.Name, Parts: len(w.parts), Limits: w.limits}
	}
	c := &part{from: from, size: w.fixed(from)}
	w.cur = c
	if len(w.parts) == 0 || w.opt.Time != nil {
		f := body
		if f == nil {
			var err error
			if f, err = w.files.Temp(); err != nil {
				return fmt.Errorf("writing %s: %w", w.opt.Name+".xml", err)
			}
		}
		c.body, c.name = f, w.opt.Name+".xml"
		c.bw = bufio.NewWriterSize(f, 64<<10)
		return nil
	}
	c.name = PartName(w.opt.Name, len(w.parts)+1)
	f, err := w.files.Create(c.name)
	if err != nil {
		return w.writeErr(err)
	}
	c.f = f
	c.bw = bufio.NewWriterSize(f, 64<<10)
	doc := w.partDoc(from, "")
	_, err = c.bw.Write(rsxml.AppendHeader(nil, &doc))
	return err
}

func (w *Writer) writeErr(err error) error {
	name := w.opt.Name + ".xml"
	if w.cur != nil {
		name = w.cur.name
	}
	return fmt.Errorf("writing %s: %w", name, err)
}

// finish ends the current part, which is one of several: until is the
// time of the first entry of the next, or "" at the end of the list.
func (w *Writer) finish(until string) error {
	c := w.cur
	if until == "" {
		until = w.opt.Doc.MD.Until
	}
	p := w.describe(PartName(w.opt.Name, len(w.parts)+1), until)
	doc := w.partDoc(c.from, until)
	if err := w.write(p.Name, &doc); err != nil {
		return err
	}
	w.parts = append(w.parts, p)
	w.cur = nil
	if !w.own {
		return nil
	}
	if len(w.parts) == 1 {
		idx := w.indexDoc()
		w.isize = NewMeasure(&idx, w.limits)
	}
	// The parts are no more than an index may list (start): only its
	// bytes can pass the limits.
	if !w.isize.Add(&rsxml.Entry{Loc: w.opt.URL(p.Name), MD: p.MD}) {
		return &IndexError{List: w.opt.Name, Parts: len(w.parts), Bytes: w.isize.Size(), Limits: w.limits}
	}
	return nil
}

// describe returns the Part of the current part, written as the document
// name; until is its end, for a change document.
func (w *Writer) describe(name, until string) Part {
	c := w.cur
	p := Part{Name: name, Entries: c.n}
	if w.opt.PartMD != nil && c.n > 0 {
		p.MD = w.opt.PartMD(&c.first, &c.last)
	}
	if w.opt.Time != nil {
		p.From, p.Until = c.from, until
		p.MD.From, p.MD.Until = p.From, p.Until
	}
	return p
}

func (w *Writer) indexDoc() rsxml.Doc {
	return rsxml.Doc{Index: true, MD: w.opt.Doc.MD, Links: w.opt.Doc.Links}
}

func (w *Writer) write(name string, doc *rsxml.Doc) error {
	c := w.cur
	c.name = name
	if c.body == nil { // written directly: only the footer is left
		_, err := c.bw.Write(rsxml.AppendFooter(nil, doc))
		if err == nil {
			err = c.bw.Flush()
		}
		err = confined.CloseAfter(c.f, err)
		c.f = nil
		if err != nil {
			return w.writeErr(err)
		}
		return nil
	}
	err := c.bw.Flush()
	if err == nil {
		_, err = c.body.Seek(0, io.SeekStart)
	}
	if err != nil {
		return fmt.Errorf("writing %s: body: %w", name, err)
	}
	f, err := w.files.Create(name)
	if err != nil {
		return w.writeErr(err)
	}
	xw := rsxml.NewWriter(f, *doc)
	xw.Copy(c.body)
	if err = confined.CloseAfter(f, xw.Close()); err != nil {
		return w.writeErr(err)
	}
	return w.dropBody()
}

func (w *Writer) dropBody() error {
	c := w.cur
	if c == nil || c.body == nil {
		return nil
	}
	err := c.body.Close()
	if rerr := confined.Remove(c.body.Name()); err == nil {
		err = rerr
	}
	c.body = nil
	return err
}

func (w *Writer) fail(err error) error {
	w.err = err
	w.Abort()
	return err
}

// Abort stops the list: it closes the current part unfinished and removes
// its body file. Documents already written are left to the caller. Abort
// after Close does nothing.
func (w *Writer) Abort() {
	if w.cur != nil {
		w.dropBody()
		if w.cur.f != nil {
			w.cur.f.Close()
		}
		w.cur = nil
	}
	if w.err == nil && !w.done {
		w.err = errors.New("listwriter: aborted")
	}
}

// Close ends the list: it writes the last part, or the list whole if it
// has one, and the index over the parts if it is the Writer's. A list
// without an entry is one empty document.
func (w *Writer) Close() (Written, error) {
	if w.err != nil {
		return Written{}, w.err
	}
	if w.done {
		return Written{}, errors.New("listwriter: Close after Close")
	}
	w.done = true
	if w.cur == nil && len(w.parts) == 0 {
		if err := w.start(w.opt.Doc.MD.From, nil); err != nil {
			return Written{}, w.fail(err)
		}
	}
	if len(w.parts) == 0 { // whole
		doc := rsxml.Doc{MD: w.opt.Doc.MD, Links: w.opt.Doc.Links}
		if !w.own && w.index.Href != "" {
			doc.Links = append(doc.Links[:len(doc.Links):len(doc.Links)], w.index)
		}
		p := w.describe(w.opt.Name+".xml", doc.MD.Until)
		if err := w.write(p.Name, &doc); err != nil {
			return Written{}, w.fail(err)
		}
		w.cur = nil
		return Written{Name: p.Name, Parts: []Part{p}, Docs: 1}, nil
	}
	if err := w.finish(""); err != nil {
		return Written{}, w.fail(err)
	}
	if !w.own {
		return Written{Parts: w.parts, Docs: len(w.parts), Inside: w.inside}, nil
	}
	name := w.opt.Name + ".xml"
	f, err := w.files.Create(name)
	if err != nil {
		return Written{}, w.fail(fmt.Errorf("writing %s: %w", name, err))
	}
	iw := rsxml.NewWriter(f, w.indexDoc())
	for i := range w.parts {
		e := rsxml.Entry{Loc: w.opt.URL(w.parts[i].Name), MD: w.parts[i].MD}
		if err := iw.Add(&e); err != nil {
			break
		}
	}
	if err := confined.CloseAfter(f, iw.Close()); err != nil {
		return Written{}, w.fail(fmt.Errorf("writing %s: %w", name, err))
	}
	return Written{Name: name, Index: true, Parts: w.parts, Docs: len(w.parts) + 1, Inside: w.inside}, nil
}

// FitOldest returns how many of the first n entries (those that may be
// dropped, oldest first) to leave out so that a document with the root
// of doc and the other entries fits limits, and whether it then fits: it
// does not if the entries that may not be dropped are too many alone.
func FitOldest(doc *rsxml.Doc, entries []rsxml.Entry, n int, limits Limits) (drop int, fits bool) {
	m := NewMeasure(doc, limits)
	sizes := make([]int64, len(entries))
	for i := range entries {
		m.Add(&entries[i])
		sizes[i] = int64(len(m.buf))
	}
	for drop < n && !m.Fits() {
		m.AddSize(-sizes[drop], -1)
		drop++
	}
	return drop, m.Fits()
}

// A Measure adds up the size of one document, entry by entry, as a Writer
// would write it, for a caller that must know whether a list fits one
// document before it writes it.
type Measure struct {
	limits Limits
	index  bool
	n      int
	size   int64
	buf    []byte
}

// NewMeasure returns a Measure of a document with the root doc.
func NewMeasure(doc *rsxml.Doc, limits Limits) *Measure {
	return &Measure{limits: limits.orSpec(), index: doc.Index,
		size: int64(len(rsxml.AppendHeader(nil, doc)) + len(rsxml.AppendFooter(nil, doc)))}
}

// Add adds e and reports whether the document still fits the limits.
func (m *Measure) Add(e *rsxml.Entry) bool {
	m.buf = rsxml.AppendEntry(m.buf[:0], m.index, e)
	m.AddSize(int64(len(m.buf)), 1)
	return m.Fits()
}

// AddSize adds n entries of size bytes in all, rendered by the caller
// with rsxml.AppendEntry.
func (m *Measure) AddSize(size int64, n int) {
	m.n += n
	m.size += size
}

// Room reports whether n more entries of size bytes in all would fit.
func (m *Measure) Room(size int64, n int) bool {
	return m.n+n <= m.limits.MaxEntries && m.size+size <= m.limits.MaxBytes
}

// Fits reports whether the document fits the limits.
func (m *Measure) Fits() bool { return m.Room(0, 0) }

// Size returns the bytes of the document so far, its root included.
func (m *Measure) Size() int64 { return m.size }
