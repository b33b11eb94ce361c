package rsxml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// Errors of a document over the limits a Reader was given.
var (
	ErrTooLarge       = errors.New("document exceeds the size limit")
	ErrTooManyEntries = errors.New("document exceeds the entry limit")
)

// A SyntaxError is a document that is not well-formed XML or not shaped
// like a Sitemap document, at a line.
type SyntaxError struct {
	Line int
	Msg  string
	Kind SyntaxKind
}

// SyntaxKind says what is wrong with a document that cannot be read.
type SyntaxKind uint8

const (
	SyntaxMalformed SyntaxKind = iota // not well-formed XML, not UTF-8, or with a DOCTYPE
	SyntaxRoot                        // the root is not a Sitemap <urlset> or <sitemapindex>
	SyntaxShape                       // an element or text where a Sitemap document has none
)

// A Deviation is a departure from the official schemas (sitemap.xsd,
// siteindex.xsd, resourcesync.xsd) that does not stop a Reader: a child of
// an entry out of its order or repeated, an element or attribute the
// schemas do not declare, content inside <rs:md> or <rs:ln>, a root
// <rs:md> or <rs:ln> after the first entry. Readers that only need the
// values can ignore them; a validator reports them.
type Deviation struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// ReadOptions bound what a Reader accepts. Zero values mean no limit.
type ReadOptions struct {
	MaxBytes   int64 // bytes of input; past it, ErrTooLarge
	MaxEntries int   // entries; past it, ErrTooManyEntries

	// ReuseEntries makes Next return the same *Entry each time, which the
	// next call overwrites: for readers that keep no entry (the strings
	// in it may be kept), it saves an allocation per entry.
	ReuseEntries bool
}

// Reader parses one document as a stream.
type Reader struct {
	sc      *scanner
	text    []byte      // the text of an element being read
	batch   stringBatch // the values of the entry being read
	reused  *Entry      // the last entry read
	opts    ReadOptions
	doc     Doc
	pending *Entry
	entries int
	done    bool
	// RootMDCount is the number of root <rs:md> elements seen so far.
	RootMDCount int
	// LateRoot counts root <rs:md>/<rs:ln> found after the first entry,
	// which the Sitemap schema forbids.
	LateRoot int
	// Deviations of the root element and its <rs:md> and <rs:ln> (those
	// of an entry are in Entry.Deviations), in document order, so far.
	Deviations []Deviation
}

// limitedReader reads at most one byte past a limit, which it does not
// return: a document of exactly MaxBytes is fine, one more is ErrTooLarge.
type limitedReader struct {
	r io.Reader
	n int64 // bytes left, plus one
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n == 0 {
		return 0, ErrTooLarge
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	if l.n -= int64(n); l.n == 0 {
		return n - 1, ErrTooLarge
	}
	return n, err
}

// NewReader reads the root of a document from r and returns a Reader
// positioned at its first entry. The root's <rs:md> and <rs:ln> are in
// Doc; entries come from Next.
func NewReader(r io.Reader, opts ReadOptions) (*Reader, error) {
	lim := &limitedReader{r: r, n: math.MaxInt64}
	if opts.MaxBytes > 0 {
		lim.n = opts.MaxBytes + 1
	}
	rd := &Reader{sc: newScanner(lim), opts: opts}
	// XML allows a UTF-8 byte order mark before the declaration (XML 1.0,
	// section 4.3.3), which editors on some systems write. A document that
	// starts as one in UTF-16 or UTF-32 does (Appendix F) is refused, as the
	// declaration of another encoding is: Sitemap documents are UTF-8.
	rd.sc.fill()
	head := rd.sc.buf[:min(rd.sc.end, 4)]
	if bytes.HasPrefix(head, []byte("\uFEFF")) {
		rd.sc.pos, rd.sc.start = len("\uFEFF"), len("\uFEFF")
	} else if enc := wideEncoding(head); enc != "" {
		return nil, &SyntaxError{Line: 1, Msg: fmt.Sprintf("the document is encoded in %s, not UTF-8, which Sitemap documents must use", enc)}
	}
	if err := rd.readRoot(); err != nil {
		return nil, err
	}
	return rd, nil
}

// Doc returns the root of the document.
func (r *Reader) Doc() *Doc { return &r.doc }

func (r *Reader) line() int { return r.sc.tokenLine() }

func (r *Reader) wrap(err error) error {
	var own *SyntaxError
	switch {
	case errors.Is(err, ErrTooLarge):
		return fmt.Errorf("%w (%d bytes)", ErrTooLarge, r.opts.MaxBytes)
	case err == io.EOF:
		return &SyntaxError{Line: r.line(), Msg: "unexpected end of document"}
	case errors.As(err, &own):
		return own
	}
	return &SyntaxError{Line: r.line(), Msg: err.Error()}
}

// token scans the next token (passing over white space before markup if
// markup), refusing an element with the same attribute twice, which XML 1.0
// forbids and encoding/xml lets through.
func (r *Reader) token(markup bool) error {
	var err error
	if markup {
		err = r.sc.nextMarkup()
	} else {
		err = r.sc.next()
	}
	if err != nil {
		return r.wrap(err)
	}
	if r.sc.kind != tokStart {
		return nil
	}
	if a := duplicateAttr(r.sc.attrs); a != nil {
		return &SyntaxError{Line: r.line(), Msg: fmt.Sprintf("not well-formed XML: attribute %s given twice on <%s>", a.name.Local, r.sc.name.Local)}
	}
	return nil
}

func duplicateAttr(attrs []attr) *attr {
	if len(attrs) > 16 { // a map then beats comparing every pair
		seen := make(map[qname]bool, len(attrs))
		for i := range attrs {
			if seen[attrs[i].name] {
				return &attrs[i]
			}
			seen[attrs[i].name] = true
		}
		return nil
	}
	for i := range attrs {
		for j := range i {
			if attrs[j].name == attrs[i].name {
				return &attrs[i]
			}
		}
	}
	return nil
}

// isSpace reports whether text is only white space (to unicode.IsSpace).
func isSpace(text []byte) bool { return len(bytes.TrimSpace(text)) == 0 }

func (r *Reader) readRoot() error {
	for {
		if err := r.token(true); err != nil {
			return err
		}
		switch r.sc.kind {
		case tokStart:
			t := r.sc.name
			if t.Space != NSSitemap || (t.Local != "urlset" && t.Local != "sitemapindex") {
				return &SyntaxError{Line: r.line(), Kind: SyntaxRoot, Msg: fmt.Sprintf("root element is <%s> in namespace %q; a ResourceSync document is a <urlset> or <sitemapindex> in namespace %s", t.Local, t.Space, NSSitemap)}
			}
			r.doc.Index = t.Local == "sitemapindex"
			r.Deviations = r.appendAttrDeviations(r.Deviations, r.line())
			e, err := r.nextEntry(true) // the first is kept pending
			if err == io.EOF {
				return nil
			}
			r.pending = e
			return err
		case tokText:
			if !isSpace(r.sc.data) {
				return &SyntaxError{Line: r.line(), Msg: "not well-formed XML: text before the root element"}
			}
		}
	}
}

// nextEntry reads root children up to the next entry and returns it, or
// io.EOF at the end of the root. Root <rs:md> and <rs:ln> go to the Doc
// while head (before the first entry), and are deviations after it.
func (r *Reader) nextEntry(head bool) (*Entry, error) {
	for {
		if err := r.token(true); err != nil {
			return nil, err
		}
		switch r.sc.kind {
		case tokStart:
			t, line := r.sc.name, r.line()
			switch {
			case t.Space == NSSitemap && t.Local == entryName(r.doc.Index):
				return r.readEntry(line)
			case t.Space == NSRS && (t.Local == "md" || t.Local == "ln"):
				if err := r.readRootChild(t, line, head); err != nil {
					return nil, err
				}
			default:
				msg := fmt.Sprintf("unexpected element <%s> (namespace %q) in <%s>", t.Local, t.Space, rootName(r.doc.Index))
				return nil, &SyntaxError{Line: line, Kind: SyntaxShape, Msg: msg + draftHint(t.Space)}
			}
		case tokEnd:
			r.done = true
			if err := r.finish(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		case tokText:
			if !isSpace(r.sc.data) {
				return nil, &SyntaxError{Line: r.line(), Kind: SyntaxShape, Msg: "unexpected text in the root element"}
			}
		}
	}
}

// readRootChild reads the root <rs:md> or <rs:ln> t just started: into the
// Doc if head, else as a deviation, which the schema makes it.
func (r *Reader) readRootChild(t qname, line int, head bool) error {
	if t.Local == "md" {
		r.RootMDCount++
	}
	switch {
	case !head:
		r.LateRoot++
		r.Deviations = append(r.Deviations, Deviation{Line: line, Msg: fmt.Sprintf("root <rs:%s> after the first <%s>: the schema puts <rs:md> and <rs:ln> before the entries", t.Local, entryName(r.doc.Index))})
	case t.Local == "md" && r.RootMDCount == 1:
		r.readMD(&r.doc.MD, nil)
		r.doc.MDLine = line
	case t.Local == "ln":
		l := Link{Line: line}
		r.readLink(&l)
		r.doc.Links = append(r.doc.Links, l)
	}
	return r.skipEmpty(t, line, &r.Deviations)
}

// finish checks that nothing but white space and comments follows the root.
func (r *Reader) finish() error {
	for {
		err := r.sc.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return r.wrap(err)
		}
		switch r.sc.kind {
		case tokStart:
			return &SyntaxError{Line: r.line(), Kind: SyntaxShape, Msg: "content after the root element"}
		case tokText:
			if !isSpace(r.sc.data) {
				return &SyntaxError{Line: r.line(), Kind: SyntaxShape, Msg: "text after the root element"}
			}
		}
	}
}

// Next returns the next entry, or io.EOF after the last one.
func (r *Reader) Next() (*Entry, error) {
	e := r.pending
	r.pending = nil
	if e == nil {
		if r.done {
			return nil, io.EOF
		}
		var err error
		if e, err = r.nextEntry(false); err != nil {
			return nil, err
		}
	}
	r.entries++
	if r.opts.MaxEntries > 0 && r.entries > r.opts.MaxEntries {
		return nil, fmt.Errorf("line %d: %w (%d)", e.Line, ErrTooManyEntries, r.opts.MaxEntries)
	}
	return e, nil
}

// entryChildren is the order of the Sitemap children of an entry; rs:md,
// rs:ln and other namespaces come after them (rank len(entryChildren)).
var entryChildren = []string{"loc", "lastmod", "changefreq", "priority"}

func (r *Reader) readEntry(line int) (*Entry, error) {
	e := r.reused
	if e == nil || !r.opts.ReuseEntries {
		e = new(Entry)
		r.reused = e
	}
	*e = Entry{Line: line}
	r.batch.reset()
	e.Deviations = r.appendAttrDeviations(e.Deviations, line)
	seenLoc := false
	rank := -1 // rank of the last child read
	for {
		if err := r.token(true); err != nil {
			return nil, err
		}
		switch r.sc.kind {
		case tokStart:
			var err error
			if r.sc.name.Space == NSSitemap {
				rank, err = r.readSitemapChild(e, rank, &seenLoc)
			} else {
				rank = len(entryChildren)
				err = r.readExtension(e)
			}
			if err != nil {
				return nil, err
			}
		case tokEnd:
			if !seenLoc {
				return nil, &SyntaxError{Line: line, Kind: SyntaxShape, Msg: fmt.Sprintf("<%s> without <loc>", entryName(r.doc.Index))}
			}
			r.batch.flush()
			return e, nil
		case tokText:
			if !isSpace(r.sc.data) {
				return nil, &SyntaxError{Line: r.line(), Kind: SyntaxShape, Msg: fmt.Sprintf("unexpected text in <%s>", entryName(r.doc.Index))}
			}
		}
	}
}

// readSitemapChild reads the Sitemap child of e just started (<loc>,
// <lastmod>…), noting where it departs from the schema's order given the
// rank of the child before it; it returns the rank so far.
func (r *Reader) readSitemapChild(e *Entry, rank int, seenLoc *bool) (int, error) {
	t, cline := r.sc.name, r.line()
	k := slices.Index(entryChildren, t.Local)
	if k < 0 {
		return rank, &SyntaxError{Line: cline, Kind: SyntaxShape, Msg: fmt.Sprintf("unexpected element <%s> in <%s>", t.Local, entryName(r.doc.Index))}
	}
	switch {
	case r.doc.Index && k > 1:
		e.Deviations = append(e.Deviations, Deviation{Line: cline, Msg: fmt.Sprintf("<%s> in a <sitemap>: the Sitemap index schema allows only <loc> and <lastmod>", t.Local)})
	case k == rank && k > 0:
		e.Deviations = append(e.Deviations, Deviation{Line: cline, Msg: fmt.Sprintf("<%s> appears twice in <%s>", t.Local, entryName(r.doc.Index))})
	case k < rank:
		e.Deviations = append(e.Deviations, Deviation{Line: cline, Msg: fmt.Sprintf("<%s> out of order in <%s>: the schema wants <loc>, <lastmod>, <changefreq>, <priority>, then <rs:md> and <rs:ln>", t.Local, entryName(r.doc.Index))})
	}
	e.Deviations = r.appendAttrDeviations(e.Deviations, cline)
	text, err := r.readText()
	if err != nil {
		return rank, err
	}
	switch t.Local {
	case "loc":
		if *seenLoc {
			return rank, &SyntaxError{Line: r.line(), Kind: SyntaxShape, Msg: "an entry has more than one <loc>"}
		}
		*seenLoc = true
		e.Loc = string(text) // alone: a reader may keep it without the rest
	case "lastmod":
		r.batch.add(&e.Lastmod, text)
	case "changefreq":
		r.batch.add(&e.Changefreq, text)
	case "priority":
		r.batch.add(&e.Priority, text)
	}
	return max(rank, k), nil
}

// readExtension reads the child of e just started that is not of the
// Sitemap namespace: its <rs:md> or an <rs:ln>, or an element the schemas
// do not declare.
func (r *Reader) readExtension(e *Entry) error {
	t, cline := r.sc.name, r.line()
	switch {
	case t.Space == NSRS && t.Local == "md":
		e.MDCount++
		if e.MDCount == 1 {
			r.readMD(&e.MD, &r.batch)
			e.HasMD = true
			e.MDLine = cline
		}
		return r.skipEmpty(t, cline, &e.Deviations)
	case t.Space == NSRS && t.Local == "ln":
		l := Link{Line: cline}
		r.readLink(&l)
		e.Links = append(e.Links, l)
		return r.skipEmpty(t, cline, &e.Deviations)
	case t.Space == NSRS:
		// The ResourceSync namespace is the schema's own: an element
		// it does not declare (the <rs:size> of old resync) breaks
		// it, unlike an extension of another namespace.
		e.Deviations = append(e.Deviations, Deviation{Line: cline, Msg: fmt.Sprintf("element <rs:%s> is not declared by the ResourceSync schema, whose namespace has only <rs:md> and <rs:ln>", t.Local)})
	default:
		// Other namespaces (image, video, news sitemaps) carry nothing
		// ResourceSync needs; the schemas, whose wildcard is strict,
		// cannot validate them.
		e.Foreign = append(e.Foreign, Deviation{Line: cline, Msg: fmt.Sprintf("element <%s> (namespace %q) is not declared by the ResourceSync schemas", t.Local, t.Space) + draftHint(t.Space)})
	}
	_, err := r.skip()
	return err
}

// skip reads the rest of the element just started, and reports whether it
// had content (elements or text, white space included).
func (r *Reader) skip() (content bool, err error) {
	for depth := 1; depth > 0; {
		if err := r.token(false); err != nil {
			return false, err
		}
		switch r.sc.kind {
		case tokStart:
			depth++
			content = true
		case tokEnd:
			depth--
		case tokText:
			content = true
		}
	}
	return content, nil
}

// skipEmpty skips the rest of the <rs:md> or <rs:ln> start just read,
// noting content (which the schema forbids, white space included) in devs.
func (r *Reader) skipEmpty(start qname, line int, devs *[]Deviation) error {
	content, err := r.skip()
	if err != nil {
		return err
	}
	if content {
		*devs = append(*devs, Deviation{Line: line, Msg: fmt.Sprintf("<rs:%s> has content; the schema wants it empty", start.Local)})
	}
	return nil
}

// appendAttrDeviations notes the attributes of the Sitemap element just
// started, which the schemas declare none of (xmlns and xsi: attributes
// are not attributes to a schema).
func (r *Reader) appendAttrDeviations(devs []Deviation, line int) []Deviation {
	for _, a := range r.sc.attrs {
		if isNamespaceDecl(a.name) || a.name.Space == nsXSI {
			continue
		}
		devs = append(devs, Deviation{Line: line, Msg: fmt.Sprintf("attribute %q on <%s>: the Sitemap schema declares no attributes there", a.name.Local, r.sc.name.Local)})
	}
	return devs
}

const nsXSI = "http://www.w3.org/2001/XMLSchema-instance"

// ReadAll reads a whole document: its root and every entry.
func ReadAll(r io.Reader, opts ReadOptions) (*Doc, []*Entry, error) {
	rd, err := NewReader(r, opts)
	if err != nil {
		return nil, nil, err
	}
	var entries []*Entry
	for {
		e, err := rd.Next()
		if err == io.EOF {
			return rd.Doc(), entries, nil
		}
		if err != nil {
			return nil, nil, err
		}
		entries = append(entries, e)
	}
}

// wideEncoding names the encoding of a document that starts with head, if
// it is UTF-16 or UTF-32 by XML 1.0's Appendix F, else "".
func wideEncoding(head []byte) string {
	var h [4]byte
	copy(h[:], head)
	switch {
	case len(head) < 2:
		return ""
	case h == [4]byte{0, 0, 0xFE, 0xFF} || h == [4]byte{0, 0, 0, '<'}:
		return "UTF-32 (big-endian)"
	case h == [4]byte{0xFF, 0xFE, 0, 0} || h == [4]byte{'<', 0, 0, 0}:
		return "UTF-32 (little-endian)"
	case h[0] == 0xFE && h[1] == 0xFF || h[0] == 0 && h[1] == '<':
		return "UTF-16 (big-endian)"
	case h[0] == 0xFF && h[1] == 0xFE || h[0] == '<' && h[1] == 0:
		return "UTF-16 (little-endian)"
	}
	return ""
}
