package rsxml

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// scanner is the XML tokenizer of a Reader. It accepts what encoding/xml's
// Decoder.Token accepts (Strict, UTF-8 only) and returns the same tokens on
// the same lines (FuzzScanner holds it to that), five times faster
// (BenchmarkReader, BenchmarkEncodingXML): names are interned, and text and
// attribute values are slices of its buffer unless they hold a reference or
// a line break. Where encoding/xml is laxer than XML 1.0 and Namespaces in
// XML 1.0, it is an error: a <!…> declaration (DOCTYPE, ENTITY…), which a
// ResourceSync document may not have; an undeclared prefix, a name that is
// not a QName, a reserved namespace binding; an XML declaration not at the
// very start. Line breaks and tabs in attribute values read as spaces.
//
// A token is scanned from its start in buf; one that goes past the bytes
// read so far (errMore) is scanned again once more are read.
type scanner struct {
	r       io.Reader
	buf     []byte
	pos     int   // the next token starts at buf[pos]
	end     int   // buf[end:] is free
	base    int   // the offset in the input of buf[0]
	start   int   // the offset where an XML declaration may be: 0, or past a byte order mark
	rerr    error // why reading ended (io.EOF at the end)
	line    int   // line of buf[lineAt]
	lineAt  int
	started bool // the root element has started

	// The token just scanned.
	kind   tokKind
	name   qname  // of tokStart and tokEnd, namespace translated
	attrs  []attr // of tokStart
	data   []byte // text of tokText; content of tokComment and tokProcInst
	target []byte // of tokProcInst

	open     []openElem
	ns       map[string][]string // prefix ("" for the default) → the namespaces bound to it, innermost last
	bound    []string            // the prefixes the open elements bind
	def      string              // the default namespace: s.ns[""]'s last
	closing  bool                // the start tag just returned was <…/>: its end comes next
	scratch  []byte              // the token's decoded text and values
	names    map[string]interned
	nonASCII map[string]bool // isName's answers
	recent   [128]interned   // the names met last, in front of names
}

type tokKind uint8

const (
	tokStart tokKind = iota + 1
	tokEnd
	tokText // character data or a CDATA section
	tokComment
	tokProcInst
)

// qname is a name, its Space the namespace (or the prefix itself when it is
// not declared, as encoding/xml does).
type qname struct{ Space, Local string }

type attr struct {
	name   qname
	prefix string // as written
	value  []byte
}

type openElem struct {
	raw   string // the name as written
	name  qname
	bound int // len(scanner.bound) before its bindings
}

// interned is a name as written and its parts; ok is false if it is not a
// QName (two colons, or one first or last).
type interned struct {
	raw, prefix, local string
	ok                 bool
}

const (
	scanBuffer = 64 << 10
	maxNames   = 1024 // interned names kept; a hostile document can have millions
)

var (
	errMore         = errors.New("rsxml: more input needed")
	newline, colon  = []byte{'\n'}, []byte{':'}
	cdataStart      = []byte("CDATA[")
	cdataEnd, piEnd = []byte("]]>"), []byte("?>")
)

func newScanner(r io.Reader) *scanner {
	return &scanner{r: r, buf: make([]byte, scanBuffer), line: 1, ns: map[string][]string{}, names: map[string]interned{}, nonASCII: map[string]bool{}}
}

// lineOf returns the line of buf[p].
func (s *scanner) lineOf(p int) int {
	if p >= s.lineAt {
		s.line += bytes.Count(s.buf[s.lineAt:p], newline)
		s.lineAt = p
		return s.line
	}
	return s.line - bytes.Count(s.buf[p:s.lineAt], newline)
}

// tokenLine is the line where the token just returned ends, as
// encoding/xml's InputPos gives it.
func (s *scanner) tokenLine() int { return s.lineOf(s.pos) }

func (s *scanner) syntaxErr(p int, format string, args ...any) error {
	return &SyntaxError{Line: s.lineOf(p), Msg: "not well-formed XML: " + fmt.Sprintf(format, args...)}
}

// short is the error of a token cut at buf[p], the end of what was read.
func (s *scanner) short(p int) error {
	switch s.rerr {
	case nil:
		return errMore
	case io.EOF:
		return s.syntaxErr(p, "unexpected EOF")
	}
	return s.rerr
}

// fill reads more input after buf[pos:end], moving it to the start of buf
// or growing buf, until buf is full or reading ends.
func (s *scanner) fill() {
	s.lineOf(s.pos)
	s.end = copy(s.buf, s.buf[s.pos:s.end])
	s.lineAt -= s.pos
	s.base += s.pos
	s.pos = 0
	if s.end == len(s.buf) {
		s.buf = append(s.buf, make([]byte, len(s.buf))...)
	}
	for empty := 0; s.end < len(s.buf) && s.rerr == nil; {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		switch {
		case err != nil:
			s.rerr = err
		case n > 0:
			empty = 0
		default:
			if empty++; empty == 100 {
				s.rerr = io.ErrNoProgress
			}
		}
	}
}

// next scans the next token. It returns io.EOF at the end of the input,
// after the root element.
func (s *scanner) next() error {
	if s.closing {
		s.closing = false
		s.endElement()
		return nil
	}
	for {
		err := s.scan()
		switch {
		case err == errMore:
			s.fill()
		case err == io.EOF && len(s.open) > 0:
			return s.syntaxErr(s.pos, "unexpected EOF")
		default:
			return err
		}
	}
}

// nextMarkup is next, passing over white space followed by markup, which
// the Reader ignores between elements: a token fewer for each line break.
func (s *scanner) nextMarkup() error {
	if !s.closing {
		if p := skipSpace(s.buf[:s.end], s.pos); p < s.end && s.buf[p] == '<' {
			s.pos = p
		}
	}
	return s.next()
}

func (s *scanner) scan() error {
	b, p := s.buf[:s.end], s.pos
	if p == len(b) {
		if s.rerr == nil {
			return errMore
		}
		return s.rerr
	}
	s.scratch = s.scratch[:0]
	if b[p] != '<' {
		data, q, err := s.chars(p, 0)
		if err == nil {
			s.kind, s.data, s.pos = tokText, data, q
		}
		return err
	}
	if p+1 == len(b) {
		return s.short(p + 1)
	}
	switch b[p+1] {
	case '/':
		return s.scanEnd(p + 2)
	case '?':
		return s.scanProcInst(p + 2)
	case '!':
		return s.scanBang(p + 2)
	}
	return s.scanStart(p + 1)
}

// scanName scans a name at buf[p] as encoding/xml reads one: up to the
// first ASCII byte that names do not have. q == p when there is none.
func (s *scanner) scanName(p int) (q int, err error) {
	b := s.buf[:s.end]
	ascii := true
	for q = p; q < len(b) && byteClass[b[q]]&cName != 0; q++ {
		ascii = ascii && b[q] < utf8.RuneSelf
	}
	if q == len(b) {
		return q, s.short(q)
	}
	if q == p {
		return q, nil
	}
	if ascii && !isNameStart(b[p]) || !ascii && !s.isName(b[p:q]) {
		return q, s.syntaxErr(q, "invalid XML name: %s", b[p:q])
	}
	return q, nil
}

// isName reports whether encoding/xml accepts name, which has a non-ASCII
// byte: its tables of Appendix B of XML 1.0 are not exported, so it is asked,
// once a name.
func (s *scanner) isName(name []byte) bool {
	ok, seen := s.nonASCII[string(name)]
	if !seen {
		_, err := xml.NewDecoder(bytes.NewReader(append(append([]byte("<"), name...), "/>"...))).RawToken()
		ok = err == nil
		if len(s.nonASCII) < maxNames {
			s.nonASCII[string(name)] = ok
		}
	}
	return ok
}

// intern returns the name b, allocating only for names not seen yet.
func (s *scanner) intern(b []byte) interned {
	if len(b) == 0 {
		return interned{ok: true}
	}
	// A cache by length and three bytes, which tells apart the names of
	// ResourceSync documents, saves most lookups in the map.
	slot := &s.recent[(len(b)*31+int(b[0])*5+int(b[len(b)-1])*3+int(b[len(b)/2]))%len(s.recent)]
	if slot.raw == string(b) {
		return *slot
	}
	v, ok := s.names[string(b)]
	if !ok {
		raw := string(b)
		v = interned{raw, "", raw, true}
		if i := strings.IndexByte(raw, ':'); i >= 0 {
			v.prefix, v.local = raw[:i], raw[i+1:]
			v.ok = i > 0 && i < len(raw)-1 && strings.IndexByte(v.local, ':') < 0
		}
		if len(s.names) < maxNames {
			s.names[raw] = v
		}
	}
	*slot = v
	return v
}

func skipSpace(b []byte, p int) int {
	for p < len(b) && (b[p] == ' ' || b[p] == '\n' || b[p] == '\t' || b[p] == '\r') {
		p++
	}
	return p
}

func (s *scanner) scanStart(p int) error {
	b := s.buf[:s.end]
	q, err := s.scanName(p)
	if err != nil {
		return err
	}
	if q == p {
		return s.syntaxErr(q, "expected element name after <")
	}
	n := s.intern(b[p:q])
	if !n.ok {
		return s.syntaxErr(q, "element name %s is not a QName (Namespaces in XML 1.0)", n.raw)
	}
	s.attrs = s.attrs[:0]
	for {
		if p = skipSpace(b, q); p == len(b) {
			return s.short(p)
		}
		if b[p] == '>' || b[p] == '/' {
			break
		}
		if q, err = s.scanName(p); err != nil {
			return err
		}
		if q == p {
			return s.syntaxErr(q, "expected attribute name in element")
		}
		a := s.intern(b[p:q])
		if !a.ok {
			return s.syntaxErr(q, "attribute name %s is not a QName (Namespaces in XML 1.0)", a.raw)
		}
		if p = skipSpace(b, q); p == len(b) {
			return s.short(p)
		}
		if b[p] != '=' {
			return s.syntaxErr(p, "attribute name without = in element")
		}
		if p = skipSpace(b, p+1); p == len(b) {
			return s.short(p)
		}
		if b[p] != '"' && b[p] != '\'' {
			return s.syntaxErr(p, "unquoted or missing attribute value in element")
		}
		value, end, err := s.chars(p+1, b[p])
		if err != nil {
			return err
		}
		q = end
		s.attrs = append(s.attrs, attr{qname{Local: a.local}, a.prefix, value})
	}
	closing := b[p] == '/'
	if closing {
		if p+1 == len(b) {
			return s.short(p + 1)
		}
		if b[p+1] != '>' {
			return s.syntaxErr(p+1, "expected /> in element")
		}
		p++
	}

	// The namespaces the attributes declare apply to the element's name and
	// to the other attributes' (Decoder.Token).
	mark := len(s.bound)
	for _, a := range s.attrs {
		prefix := a.name.Local // of xmlns:prefix="…"
		if a.prefix == "" && a.name.Local == "xmlns" {
			prefix = ""
		} else if a.prefix != "xmlns" {
			continue
		}
		space := s.intern(a.value).raw
		if msg := reservedBinding(prefix, space); msg != "" {
			s.unbind(mark)
			return s.syntaxErr(p, "%s (Namespaces in XML 1.0)", msg)
		}
		s.ns[prefix] = append(s.ns[prefix], space)
		s.bound = append(s.bound, prefix)
		if prefix == "" {
			s.def = space
		}
	}
	var ok bool
	if s.name, ok = s.translate(n.prefix, n.local, true); !ok {
		s.unbind(mark)
		return s.syntaxErr(p, "the prefix %s of <%s> is not declared (Namespaces in XML 1.0)", n.prefix, n.raw)
	}
	for i := range s.attrs {
		a := &s.attrs[i]
		name, ok := s.translate(a.prefix, a.name.Local, false)
		if !ok {
			s.unbind(mark)
			return s.syntaxErr(p, "the prefix %s of attribute %s:%s is not declared (Namespaces in XML 1.0)", a.prefix, a.prefix, a.name.Local)
		}
		a.name = name
	}
	s.pos, s.kind, s.started, s.closing = p+1, tokStart, true, closing
	s.open = append(s.open, openElem{n.raw, s.name, mark})
	return nil
}

const (
	nsXML   = "http://www.w3.org/XML/1998/namespace"
	nsXMLNS = "http://www.w3.org/2000/xmlns/"
)

// reservedBinding says what is wrong with binding prefix ("" for the
// default namespace) to space, if Namespaces in XML 1.0 forbids it.
func reservedBinding(prefix, space string) string {
	switch {
	case prefix == "xml" && space != nsXML:
		return "the prefix xml can only be bound to " + nsXML
	case prefix != "xml" && space == nsXML:
		return "only the prefix xml can be bound to " + nsXML
	case prefix == "xmlns":
		return "the prefix xmlns cannot be declared"
	case space == nsXMLNS:
		return "no prefix can be bound to " + nsXMLNS
	case prefix != "" && space == "":
		return "xmlns:" + prefix + `="" undeclares a prefix, which only XML 1.1 allows`
	}
	return ""
}

// translate gives a name its namespace, or reports false if its prefix is
// not declared. The default namespace applies to elements only.
func (s *scanner) translate(prefix, local string, element bool) (qname, bool) {
	switch {
	case prefix == "xmlns" && !element, prefix == "" && (!element || local == "xmlns"):
		return qname{prefix, local}, true
	case prefix == "xml":
		return qname{nsXML, local}, true
	case prefix == "":
		return qname{s.def, local}, true
	}
	if v := s.ns[prefix]; len(v) > 0 {
		return qname{v[len(v)-1], local}, true
	}
	return qname{}, false
}

func (s *scanner) scanEnd(p int) error {
	b := s.buf[:s.end]
	q, err := s.scanName(p)
	if err != nil {
		return err
	}
	name := b[p:q]
	if q == p || bytes.Count(name, colon) > 1 {
		return s.syntaxErr(q, "expected element name after </")
	}
	e := skipSpace(b, q)
	if e == len(b) {
		return s.short(e)
	}
	if b[e] != '>' {
		return s.syntaxErr(e, "invalid characters between </%s and >", name)
	}
	switch n := len(s.open); {
	case n == 0:
		return s.syntaxErr(e, "unexpected end element </%s>", name)
	case s.open[n-1].raw != string(name):
		return s.syntaxErr(e, "element <%s> closed by </%s>", s.open[n-1].raw, name)
	}
	s.pos = e + 1
	s.endElement()
	return nil
}

// endElement ends the last open element, undoing its bindings.
func (s *scanner) endElement() {
	el := &s.open[len(s.open)-1]
	s.kind, s.name = tokEnd, el.name
	if len(s.bound) > el.bound {
		s.unbind(el.bound)
	}
	s.open = s.open[:len(s.open)-1]
}

func (s *scanner) unbind(n int) {
	for _, prefix := range s.bound[n:] {
		v := s.ns[prefix][:len(s.ns[prefix])-1]
		s.ns[prefix] = v
		if prefix == "" {
			s.def = ""
			if len(v) > 0 {
				s.def = v[len(v)-1]
			}
		}
	}
	s.bound = s.bound[:n]
}
