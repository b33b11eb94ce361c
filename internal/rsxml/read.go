package rsxml

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrTooLarge reports a document over the byte limit a Reader was given.
var ErrTooLarge = errors.New("document exceeds the size limit")

// ErrTooManyEntries reports a document over the entry limit a Reader was given.
var ErrTooManyEntries = errors.New("document exceeds the entry limit")

// A SyntaxError is a document that is not well-formed XML or not shaped
// like a Sitemap document, at a line.
type SyntaxError struct {
	Line int
	Msg  string
	Kind SyntaxKind
}

// SyntaxKind says what is wrong with a document that cannot be read.
type SyntaxKind uint8

// Kinds of SyntaxError.
const (
	// SyntaxMalformed: not well-formed XML, not UTF-8, or with a DOCTYPE.
	SyntaxMalformed SyntaxKind = iota
	// SyntaxRoot: the root element is not a Sitemap <urlset> or <sitemapindex>.
	SyntaxRoot
	// SyntaxShape: an element or text where a Sitemap document has none.
	SyntaxShape
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
}

// Reader parses one document as a stream.
type Reader struct {
	dec     *xml.Decoder
	lim     *limitedReader
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

type limitedReader struct {
	r   io.Reader
	n   int64 // bytes left; < 0 means unlimited
	hit bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n < 0 {
		return l.r.Read(p)
	}
	if l.n == 0 {
		l.hit = true
		return 0, ErrTooLarge
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	if l.n == 0 && err == nil {
		// Probe for one more byte: a document of exactly MaxBytes is fine.
		var one [1]byte
		m, perr := l.r.Read(one[:])
		if m > 0 {
			l.hit = true
			return n, ErrTooLarge
		}
		if perr != nil {
			err = perr
		}
	}
	return n, err
}

// NewReader reads the root of a document from r and returns a Reader
// positioned at its first entry. The root's <rs:md> and <rs:ln> are in
// Doc; entries come from Next.
func NewReader(r io.Reader, opts ReadOptions) (*Reader, error) {
	lim := &limitedReader{r: r, n: -1}
	if opts.MaxBytes > 0 {
		lim.n = opts.MaxBytes
	}
	dec := xml.NewDecoder(lim)
	dec.Strict = true
	// Only UTF-8 (and its ASCII subset) is accepted: Sitemaps require it.
	dec.CharsetReader = func(charset string, input io.Reader) (io.Reader, error) {
		if strings.EqualFold(charset, "utf-8") || strings.EqualFold(charset, "us-ascii") {
			return input, nil
		}
		return nil, fmt.Errorf("encoding %q is not UTF-8, which Sitemap documents must use", charset)
	}
	rd := &Reader{dec: dec, lim: lim, opts: opts}
	if err := rd.readRoot(); err != nil {
		return nil, err
	}
	return rd, nil
}

// Doc returns the root of the document.
func (r *Reader) Doc() *Doc { return &r.doc }

func (r *Reader) line() int {
	l, _ := r.dec.InputPos()
	return l
}

func (r *Reader) wrap(err error) error {
	if r.lim.hit || errors.Is(err, ErrTooLarge) {
		return fmt.Errorf("%w (%d bytes)", ErrTooLarge, r.opts.MaxBytes)
	}
	if err == io.EOF {
		return &SyntaxError{Line: r.line(), Msg: "unexpected end of document"}
	}
	var own *SyntaxError
	if errors.As(err, &own) {
		return own
	}
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return &SyntaxError{Line: se.Line, Msg: "not well-formed XML: " + se.Msg}
	}
	return &SyntaxError{Line: r.line(), Msg: err.Error()}
}

// token is dec.Token after the root element has started, refusing what
// XML 1.0 forbids but encoding/xml lets through: a <!…> declaration inside
// or after the root element, and an attribute given twice.
func (r *Reader) token() (xml.Token, error) {
	tok, err := r.dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case xml.Directive:
		return nil, &SyntaxError{Line: r.line(), Msg: "not well-formed XML: a <!…> declaration after the start of the root element"}
	case xml.StartElement:
		if err := r.checkAttrs(t); err != nil {
			return nil, err
		}
	}
	return tok, nil
}

// checkAttrs refuses an element with the same attribute twice.
func (r *Reader) checkAttrs(t xml.StartElement) error {
	twice := func(n xml.Name) error {
		return &SyntaxError{Line: r.line(), Msg: fmt.Sprintf("not well-formed XML: attribute %s given twice on <%s>", n.Local, t.Name.Local)}
	}
	if len(t.Attr) <= 16 {
		for i := 1; i < len(t.Attr); i++ {
			for j := 0; j < i; j++ {
				if t.Attr[i].Name == t.Attr[j].Name {
					return twice(t.Attr[i].Name)
				}
			}
		}
		return nil
	}
	seen := make(map[xml.Name]bool, len(t.Attr))
	for _, a := range t.Attr {
		if seen[a.Name] {
			return twice(a.Name)
		}
		seen[a.Name] = true
	}
	return nil
}

func (r *Reader) readRoot() error {
	for {
		tok, err := r.dec.Token()
		if err != nil {
			return r.wrap(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := r.checkAttrs(t); err != nil {
				return err
			}
			if t.Name.Space != NSSitemap || (t.Name.Local != "urlset" && t.Name.Local != "sitemapindex") {
				return &SyntaxError{Line: r.line(), Kind: SyntaxRoot, Msg: fmt.Sprintf("root element is <%s> in namespace %q; a ResourceSync document is a <urlset> or <sitemapindex> in namespace %s", t.Name.Local, t.Name.Space, NSSitemap)}
			}
			r.doc.Index = t.Name.Local == "sitemapindex"
			r.Deviations = appendAttrDeviations(r.Deviations, r.line(), t)
			return r.readUntilEntry()
		case xml.Directive:
			if strings.HasPrefix(strings.TrimSpace(string(t)), "DOCTYPE") {
				return &SyntaxError{Line: r.line(), Msg: "a DOCTYPE is not allowed in a ResourceSync document"}
			}
			return &SyntaxError{Line: r.line(), Msg: "not well-formed XML: a <!…> declaration before the root element"}
		case xml.CharData:
			if len(strings.TrimSpace(string(t))) > 0 {
				return &SyntaxError{Line: r.line(), Msg: "not well-formed XML: text before the root element"}
			}
		}
	}
}

func (r *Reader) entryName() string {
	if r.doc.Index {
		return "sitemap"
	}
	return "url"
}

// readUntilEntry reads root children until the first entry (kept pending)
// or the end of the root.
func (r *Reader) readUntilEntry() error {
	for {
		tok, err := r.token()
		if err != nil {
			return r.wrap(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			line := r.line()
			switch {
			case t.Name.Space == NSRS && t.Name.Local == "md":
				r.RootMDCount++
				if r.RootMDCount == 1 {
					r.doc.MD = mdFrom(t.Attr)
					r.doc.MDLine = line
				}
				if err := r.skipEmpty(t, line, &r.Deviations); err != nil {
					return err
				}
			case t.Name.Space == NSRS && t.Name.Local == "ln":
				l := linkFrom(t.Attr)
				l.Line = line
				r.doc.Links = append(r.doc.Links, l)
				if err := r.skipEmpty(t, line, &r.Deviations); err != nil {
					return err
				}
			case t.Name.Space == NSSitemap && t.Name.Local == r.entryName():
				e, err := r.readEntry(t, line)
				if err != nil {
					return err
				}
				r.pending = e
				return nil
			default:
				return &SyntaxError{Line: line, Kind: SyntaxShape, Msg: fmt.Sprintf("unexpected element <%s> (namespace %q) in <%s>", t.Name.Local, t.Name.Space, rootName(r.doc.Index))}
			}
		case xml.EndElement:
			r.done = true
			return r.finish()
		case xml.CharData:
			if len(strings.TrimSpace(string(t))) > 0 {
				return &SyntaxError{Line: r.line(), Kind: SyntaxShape, Msg: "unexpected text in the root element"}
			}
		}
	}
}

// finish checks that nothing but white space and comments follows the root.
func (r *Reader) finish() error {
	for {
		tok, err := r.token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return r.wrap(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return &SyntaxError{Line: r.line(), Kind: SyntaxShape, Msg: "content after the root element"}
		case xml.CharData:
			if len(strings.TrimSpace(string(t))) > 0 {
				return &SyntaxError{Line: r.line(), Kind: SyntaxShape, Msg: "text after the root element"}
			}
		}
	}
}

// Next returns the next entry, or io.EOF after the last one.
func (r *Reader) Next() (*Entry, error) {
	if r.pending != nil {
		e := r.pending
		r.pending = nil
		return r.count(e)
	}
	if r.done {
		return nil, io.EOF
	}
	for {
		tok, err := r.token()
		if err != nil {
			return nil, r.wrap(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			line := r.line()
			switch {
			case t.Name.Space == NSSitemap && t.Name.Local == r.entryName():
				e, err := r.readEntry(t, line)
				if err != nil {
					return nil, err
				}
				return r.count(e)
			case t.Name.Space == NSRS && (t.Name.Local == "md" || t.Name.Local == "ln"):
				r.LateRoot++
				if t.Name.Local == "md" {
					r.RootMDCount++
				}
				r.Deviations = append(r.Deviations, Deviation{Line: line, Msg: fmt.Sprintf("root <rs:%s> after the first <%s>: the schema puts <rs:md> and <rs:ln> before the entries", t.Name.Local, r.entryName())})
				if err := r.skipEmpty(t, line, &r.Deviations); err != nil {
					return nil, err
				}
			default:
				return nil, &SyntaxError{Line: line, Kind: SyntaxShape, Msg: fmt.Sprintf("unexpected element <%s> (namespace %q) in <%s>", t.Name.Local, t.Name.Space, rootName(r.doc.Index))}
			}
		case xml.EndElement:
			r.done = true
			if err := r.finish(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		case xml.CharData:
			if len(strings.TrimSpace(string(t))) > 0 {
				return nil, &SyntaxError{Line: r.line(), Kind: SyntaxShape, Msg: "unexpected text in the root element"}
			}
		}
	}
}

func (r *Reader) count(e *Entry) (*Entry, error) {
	r.entries++
	if r.opts.MaxEntries > 0 && r.entries > r.opts.MaxEntries {
		return nil, fmt.Errorf("line %d: %w (%d)", e.Line, ErrTooManyEntries, r.opts.MaxEntries)
	}
	return e, nil
}

// entryChildren is the order of the Sitemap children of an entry; rs:md,
// rs:ln and other namespaces come after them (rank len(entryChildren)).
var entryChildren = [...]string{"loc", "lastmod", "changefreq", "priority"}

func childRank(local string) int {
	for i, n := range entryChildren {
		if n == local {
			return i
		}
	}
	return -1
}

func (r *Reader) readEntry(start xml.StartElement, line int) (*Entry, error) {
	e := &Entry{Line: line}
	e.Deviations = appendAttrDeviations(e.Deviations, line, start)
	seenLoc := false
	rank := -1 // rank of the last child read
	for {
		tok, err := r.token()
		if err != nil {
			return nil, r.wrap(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			cline := r.line()
			if t.Name.Space == NSSitemap {
				k := childRank(t.Name.Local)
				if k < 0 {
					return nil, &SyntaxError{Line: cline, Kind: SyntaxShape, Msg: fmt.Sprintf("unexpected element <%s> in <%s>", t.Name.Local, r.entryName())}
				}
				switch {
				case r.doc.Index && k > 1:
					e.Deviations = append(e.Deviations, Deviation{Line: cline, Msg: fmt.Sprintf("<%s> in a <sitemap>: the Sitemap index schema allows only <loc> and <lastmod>", t.Name.Local)})
				case k == rank && k > 0:
					e.Deviations = append(e.Deviations, Deviation{Line: cline, Msg: fmt.Sprintf("<%s> appears twice in <%s>", t.Name.Local, r.entryName())})
				case k < rank:
					e.Deviations = append(e.Deviations, Deviation{Line: cline, Msg: fmt.Sprintf("<%s> out of order in <%s>: the schema wants <loc>, <lastmod>, <changefreq>, <priority>, then <rs:md> and <rs:ln>", t.Name.Local, r.entryName())})
				}
				rank = max(rank, k)
				e.Deviations = appendAttrDeviations(e.Deviations, cline, t)
				text, err := r.text()
				if err != nil {
					return nil, err
				}
				switch t.Name.Local {
				case "loc":
					if seenLoc {
						return nil, &SyntaxError{Line: r.line(), Kind: SyntaxShape, Msg: "an entry has more than one <loc>"}
					}
					seenLoc = true
					e.Loc = text
				case "lastmod":
					e.Lastmod = text
				case "changefreq":
					e.Changefreq = text
				case "priority":
					e.Priority = text
				}
				continue
			}
			rank = len(entryChildren)
			switch {
			case t.Name.Space == NSRS && t.Name.Local == "md":
				e.MDCount++
				if e.MDCount == 1 {
					e.MD = mdFrom(t.Attr)
					e.HasMD = true
					e.MDLine = cline
				}
				if err := r.skipEmpty(t, cline, &e.Deviations); err != nil {
					return nil, err
				}
			case t.Name.Space == NSRS && t.Name.Local == "ln":
				l := linkFrom(t.Attr)
				l.Line = cline
				e.Links = append(e.Links, l)
				if err := r.skipEmpty(t, cline, &e.Deviations); err != nil {
					return nil, err
				}
			default:
				// Other namespaces (image, video, news sitemaps) carry nothing
				// ResourceSync needs; the schemas, whose wildcard is strict,
				// cannot validate them.
				e.Foreign = append(e.Foreign, Deviation{Line: cline, Msg: fmt.Sprintf("element <%s> (namespace %q) is not declared by the ResourceSync schemas", t.Name.Local, t.Name.Space)})
				if err := r.dec.Skip(); err != nil {
					return nil, r.wrap(err)
				}
			}
		case xml.EndElement:
			if !seenLoc {
				return nil, &SyntaxError{Line: line, Kind: SyntaxShape, Msg: fmt.Sprintf("<%s> without <loc>", r.entryName())}
			}
			return e, nil
		case xml.CharData:
			if len(strings.TrimSpace(string(t))) > 0 {
				return nil, &SyntaxError{Line: r.line(), Kind: SyntaxShape, Msg: fmt.Sprintf("unexpected text in <%s>", r.entryName())}
			}
		}
	}
}

// skipEmpty skips the rest of the <rs:md> or <rs:ln> start just read,
// noting content (which the schema forbids, white space included) in devs.
func (r *Reader) skipEmpty(start xml.StartElement, line int, devs *[]Deviation) error {
	content := false
	for depth := 1; depth > 0; {
		tok, err := r.dec.Token()
		if err != nil {
			return r.wrap(err)
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
			content = true
		case xml.EndElement:
			depth--
		case xml.CharData:
			content = true
		}
	}
	if content {
		*devs = append(*devs, Deviation{Line: line, Msg: fmt.Sprintf("<rs:%s> has content; the schema wants it empty", start.Name.Local)})
	}
	return nil
}

// appendAttrDeviations notes the attributes of a Sitemap element, which the
// schemas declare none of (xmlns and xsi: attributes are not attributes to
// a schema).
func appendAttrDeviations(devs []Deviation, line int, el xml.StartElement) []Deviation {
	for _, a := range el.Attr {
		if a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" || a.Name.Space == nsXSI {
			continue
		}
		devs = append(devs, Deviation{Line: line, Msg: fmt.Sprintf("attribute %q on <%s>: the Sitemap schema declares no attributes there", a.Name.Local, el.Name.Local)})
	}
	return devs
}

const nsXSI = "http://www.w3.org/2001/XMLSchema-instance"

// text reads the character content of the element just started, trimmed.
func (r *Reader) text() (string, error) {
	var b strings.Builder
	for {
		tok, err := r.token()
		if err != nil {
			return "", r.wrap(err)
		}
		switch t := tok.(type) {
		case xml.CharData:
			if b.Len()+len(t) > 1<<16 {
				return "", &SyntaxError{Line: r.line(), Kind: SyntaxShape, Msg: "element text longer than 64 KiB"}
			}
			b.Write(t)
		case xml.StartElement:
			return "", &SyntaxError{Line: r.line(), Kind: SyntaxShape, Msg: fmt.Sprintf("unexpected element <%s> inside a text element", t.Name.Local)}
		case xml.EndElement:
			return strings.TrimSpace(b.String()), nil
		}
	}
}

// isNamespaceDecl reports whether an attribute declares a namespace
// (xmlns="…" or xmlns:p="…"): a declaration, not data.
func isNamespaceDecl(n xml.Name) bool {
	return n.Space == "xmlns" || n.Space == "" && n.Local == "xmlns"
}

func mdFrom(attrs []xml.Attr) MD {
	var md MD
	for _, a := range attrs {
		if isNamespaceDecl(a.Name) {
			continue
		}
		if a.Name.Space != "" {
			md.Extra = append(md.Extra, Attr{a.Name.Space, a.Name.Local, a.Value})
			continue
		}
		switch a.Name.Local {
		case "capability":
			md.Capability = a.Value
		case "at":
			md.At = a.Value
		case "completed":
			md.Completed = a.Value
		case "from":
			md.From = a.Value
		case "until":
			md.Until = a.Value
		case "change":
			md.Change = a.Value
		case "datetime":
			md.Datetime = a.Value
		case "hash":
			md.Hash = a.Value
		case "length":
			md.Length = a.Value
		case "type":
			md.Type = a.Value
		case "encoding":
			md.Encoding = a.Value
		case "path":
			md.Path = a.Value
		case "modified":
			md.Modified = a.Value
		default:
			md.Extra = append(md.Extra, Attr{"", a.Name.Local, a.Value})
		}
	}
	return md
}

func linkFrom(attrs []xml.Attr) Link {
	var l Link
	for _, a := range attrs {
		if isNamespaceDecl(a.Name) {
			continue
		}
		if a.Name.Space != "" {
			l.Extra = append(l.Extra, Attr{a.Name.Space, a.Name.Local, a.Value})
			continue
		}
		switch a.Name.Local {
		case "rel":
			l.Rel = a.Value
		case "href":
			l.Href = a.Value
		case "type":
			l.Type = a.Value
		case "hash":
			l.Hash = a.Value
		case "length":
			l.Length = a.Value
		case "modified":
			l.Modified = a.Value
		case "encoding":
			l.Encoding = a.Value
		case "path":
			l.Path = a.Value
		case "pri":
			l.Pri = a.Value
		case "profile":
			l.Profile = a.Value
		default:
			l.Extra = append(l.Extra, Attr{"", a.Name.Local, a.Value})
		}
	}
	return l
}

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
