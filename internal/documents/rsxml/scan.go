package rsxml

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// scanner is the XML tokenizer of a Reader. It accepts what encoding/xml's
// Decoder.Token accepts (Strict, UTF-8 only) and returns the same tokens,
// with the same lines (FuzzScanner holds it to that), at a fraction of the
// cost: it reads into a buffer of its own and scans it a token at a time,
// names are interned, and text and attribute values are slices of that
// buffer unless they hold a reference or a carriage return. The one
// difference: a <!…> declaration (DOCTYPE, ENTITY…), which Token returns
// as a Directive and a ResourceSync document may not have, is an error.
//
// A token that goes past the bytes read so far is scanned again from its
// start once more are read; a token larger than the buffer grows it.
type scanner struct {
	r        io.Reader
	buf      []byte
	pos, end int   // the next token starts at buf[pos]; buf[end:] is free
	rerr     error // why reading ended (io.EOF at the end); nil while it goes on
	line     int   // line of buf[lineAt]
	lineAt   int
	started  bool // an element has started (for the messages about <!…>)

	// The token just scanned.
	kind   tokKind
	name   qname  // of tokStart and tokEnd, namespace translated
	attrs  []attr // of tokStart
	data   []byte // text of tokText (references decoded); content of a comment or processing instruction
	target []byte // of tokProcInst

	open    []openElem          // elements started and not ended
	ns      map[string]string   // prefix → namespace
	def     string              // the default namespace
	undo    []nsUndo            // bindings to undo at the end of their elements
	closing bool                // the start tag just returned was <…/>: its end comes next
	scratch []byte              // decoded text and attribute values of the token
	names   map[string]interned // interned names and namespaces
	recent  [128]interned       // the names met last, in front of names
}

type tokKind uint8

const (
	tokStart tokKind = iota + 1
	tokEnd
	tokText // character data or a CDATA section
	tokComment
	tokProcInst
)

// qname is a name, its Space a namespace once translated (or the prefix
// itself when it is not declared, as encoding/xml does).
type qname struct{ Space, Local string }

type attr struct {
	name   qname
	prefix string // as written, before translation
	value  []byte
}

type openElem struct {
	raw  string // qualified name as written
	name qname  // translated
	undo int    // len(scanner.undo) before its namespace bindings
}

type nsUndo struct {
	prefix, old string
	had         bool
}

const (
	xmlURL     = "http://www.w3.org/XML/1998/namespace"
	scanBuffer = 64 << 10
	maxNames   = 1024 // interned names kept; a hostile document can have millions
)

// errMore: the token goes past the bytes read so far.
var errMore = errors.New("rsxml: more input needed")

func newScanner(r io.Reader) *scanner {
	return &scanner{r: r, buf: make([]byte, scanBuffer), line: 1, ns: map[string]string{}, names: map[string]interned{}}
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

var newline, colon = []byte{'\n'}, []byte{':'}

// tokenLine is the line where the token just returned ends, as
// encoding/xml's InputPos gives it.
func (s *scanner) tokenLine() int { return s.lineOf(s.pos) }

// syntaxErr returns the error of a document that is not well-formed at buf[p].
func (s *scanner) syntaxErr(p int, format string, args ...any) error {
	return &SyntaxError{Line: s.lineOf(p), Msg: "not well-formed XML: " + fmt.Sprintf(format, args...)}
}

// short is the error of a token cut at buf[p] == buf[end]: errMore while
// reading goes on, then the reading error or an unexpected end.
func (s *scanner) short(p int) error {
	switch {
	case s.rerr == nil:
		return errMore
	case s.rerr == io.EOF:
		return s.syntaxErr(p, "unexpected EOF")
	}
	return s.rerr
}

// fill reads more input after buf[pos:end], moving it to the start of buf
// or growing buf, until buf is full or reading ends.
func (s *scanner) fill() {
	s.lineOf(s.pos)
	if s.pos > 0 {
		s.end = copy(s.buf, s.buf[s.pos:s.end])
		s.lineAt -= s.pos
		s.pos = 0
	}
	if s.end == len(s.buf) {
		b := make([]byte, 2*len(s.buf))
		copy(b, s.buf)
		s.buf = b
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
		s.endElement(len(s.open) - 1)
		return nil
	}
	for {
		err := s.scan()
		if err == errMore {
			s.fill()
			continue
		}
		if err == io.EOF && len(s.open) > 0 {
			return s.syntaxErr(s.pos, "unexpected EOF")
		}
		return err
	}
}

// nextMarkup is next, but it passes over character data of XML white
// space alone followed by markup, which the Reader ignores between
// elements, instead of returning it: a token fewer for each line break.
func (s *scanner) nextMarkup() error {
	if !s.closing {
		b := s.buf[:s.end]
		if p := skipSpace(b, s.pos); p < len(b) && b[p] == '<' {
			s.pos = p
		}
	}
	return s.next()
}

func (s *scanner) scan() error {
	p, b := s.pos, s.buf[:s.end]
	if p == len(b) {
		if s.rerr == nil {
			return errMore
		}
		return s.rerr
	}
	s.scratch = s.scratch[:0]
	if b[p] != '<' {
		return s.scanText(p)
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
// first ASCII byte that names do not have. It returns its end; q == p
// when there is no name.
func (s *scanner) scanName(p int) (q int, err error) {
	b := s.buf[:s.end]
	ascii := true
	for q = p; q < len(b) && byteClass[b[q]]&cName != 0; q++ {
		ascii = ascii && b[q] < utf8.RuneSelf
	}
	if q == len(b) {
		return q, s.short(q)
	}
	if q > p && !(ascii && isNameStart(b[p]) || !ascii && isName(b[p:q])) {
		return q, s.syntaxErr(q, "invalid XML name: %s", b[p:q])
	}
	return q, nil
}

func isNameStart(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || c == '_' || c == ':'
}

func isNameByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '_' || c == ':' || c == '.' || c == '-'
}

// isName reports whether name, name bytes (cName) with a non-ASCII one, is
// a name encoding/xml accepts: its first character a letter, "_" or ":",
// the others those or a digit, a combining character… by the tables of
// Appendix B of XML 1.0 (second edition), which encoding/xml does not
// export. It is asked instead, once for each character (nameClass).
func isName(name []byte) bool {
	for i, n := 0, 0; i < len(name); i += n {
		var r rune
		r, n = utf8.DecodeRune(name[i:])
		need := uint32(classFollow)
		if i == 0 {
			need = classStart
		}
		if r == utf8.RuneError && n == 1 || charClass(r)&need == 0 {
			return false
		}
	}
	return true
}

// Classes of a character in a name (nameClass).
const (
	classKnown  = 1 << iota // the class was asked for
	classStart              // it may start a name
	classFollow             // it may follow the first character
)

// nameClass caches the class of each character of the Basic Multilingual
// Plane; encoding/xml's tables have no character past it. Several Readers
// may fill it at once: each stores the same value.
var nameClass [0x10000]atomic.Uint32

func charClass(r rune) uint32 {
	switch {
	case r < utf8.RuneSelf && isNameStart(byte(r)):
		return classStart | classFollow
	case r < utf8.RuneSelf && isNameByte(byte(r)):
		return classFollow
	case r < utf8.RuneSelf || r > 0xFFFF:
		return 0
	}
	c := &nameClass[r]
	if v := c.Load(); v != 0 {
		return v
	}
	v := uint32(classKnown)
	if xmlAccepts(string(r)) {
		v |= classStart | classFollow
	} else if xmlAccepts("a" + string(r)) {
		v |= classFollow
	}
	c.Store(v)
	return v
}

// xmlAccepts reports whether encoding/xml reads <name/>.
func xmlAccepts(name string) bool {
	_, err := xml.NewDecoder(strings.NewReader("<" + name + "/>")).RawToken()
	return err == nil
}

// interned is a name (or a namespace) as written, and its parts as
// encoding/xml splits a qualified name: ok is false for a name with two
// colons; a colon first or last is part of the local name.
type interned struct {
	raw, prefix, local string
	ok                 bool
}

func split(raw string) interned {
	i := strings.IndexByte(raw, ':')
	switch {
	case i < 0:
		return interned{raw, "", raw, true}
	case strings.IndexByte(raw[i+1:], ':') >= 0:
		return interned{raw: raw}
	case i == 0 || i == len(raw)-1:
		return interned{raw, "", raw, true}
	}
	return interned{raw, raw[:i], raw[i+1:], true}
}

// intern returns b as a string, and its parts, allocating only for names
// not seen yet.
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
		v = split(string(b))
		if len(s.names) < maxNames {
			s.names[v.raw] = v
		}
	}
	*slot = v
	return v
}

// skipSpace returns the index of the first byte at or after p that is
// not XML white space.
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
	n := s.intern(b[p:q])
	if q == p || !n.ok {
		return s.syntaxErr(q, "expected element name after <")
	}
	s.attrs = s.attrs[:0]
	empty := false
	for {
		if p = skipSpace(b, q); p == len(b) {
			return s.short(p)
		}
		if b[p] == '>' {
			p++
			break
		}
		if b[p] == '/' {
			if p+1 == len(b) {
				return s.short(p + 1)
			}
			if b[p+1] != '>' {
				return s.syntaxErr(p+1, "expected /> in element")
			}
			p += 2
			empty = true
			break
		}
		if q, err = s.scanName(p); err != nil {
			return err
		}
		a := attr{}
		ok := q > p
		if ok {
			n := s.intern(b[p:q])
			a.prefix, a.name.Local, ok = n.prefix, n.local, n.ok
		}
		if !ok {
			return s.syntaxErr(q, "expected attribute name in element")
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
		if a.value, q, err = s.scanValue(p+1, b[p]); err != nil {
			return err
		}
		s.attrs = append(s.attrs, a)
	}
	s.pos = p
	s.kind = tokStart
	s.started = true
	s.startElement(n)
	s.closing = empty
	return nil
}

// startElement binds the namespaces the attributes of a start tag
// declare, then translates its names (as Decoder.Token does).
func (s *scanner) startElement(n interned) {
	mark := len(s.undo)
	for _, a := range s.attrs {
		switch {
		case a.prefix == "xmlns":
			s.bind(a.name.Local, a.value)
		case a.prefix == "" && a.name.Local == "xmlns":
			s.bind("", a.value)
		}
	}
	s.name = s.translate(n.prefix, n.local, true)
	for i := range s.attrs {
		s.attrs[i].name = s.translate(s.attrs[i].prefix, s.attrs[i].name.Local, false)
	}
	s.open = append(s.open, openElem{raw: n.raw, name: s.name, undo: mark})
}

func (s *scanner) bind(prefix string, value []byte) {
	if prefix == "" {
		s.undo = append(s.undo, nsUndo{"", s.def, true})
		s.def = s.intern(value).raw
		return
	}
	old, had := s.ns[prefix]
	s.undo = append(s.undo, nsUndo{prefix, old, had})
	s.ns[prefix] = s.intern(value).raw
}

// translate gives a name its namespace. The default namespace applies to
// elements only; an undeclared prefix stays as the namespace.
func (s *scanner) translate(prefix, local string, element bool) qname {
	switch {
	case prefix == "xmlns", prefix == "" && !element, prefix == "" && local == "xmlns":
		return qname{prefix, local}
	case prefix == "xml":
		return qname{xmlURL, local}
	case prefix == "":
		return qname{s.def, local}
	}
	if v, ok := s.ns[prefix]; ok {
		return qname{v, local}
	}
	return qname{prefix, local}
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
	n := len(s.open) - 1
	switch {
	case n < 0:
		return s.syntaxErr(e, "unexpected end element </%s>", name)
	case s.open[n].raw != string(name):
		return s.syntaxErr(e, "element <%s> closed by </%s>", s.open[n].raw, name)
	}
	s.pos = e + 1
	s.endElement(n)
	return nil
}

// endElement ends the open element n, the last, undoing its bindings.
func (s *scanner) endElement(n int) {
	el := s.open[n]
	s.kind, s.name = tokEnd, el.name
	for len(s.undo) > el.undo {
		u := s.undo[len(s.undo)-1]
		if u.prefix == "" {
			s.def = u.old
		} else if u.had {
			s.ns[u.prefix] = u.old
		} else {
			delete(s.ns, u.prefix)
		}
		s.undo = s.undo[:len(s.undo)-1]
	}
	s.open = s.open[:n]
}
