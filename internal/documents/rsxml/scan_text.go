package rsxml

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The scanner's character data, attribute values, references, CDATA
// sections, comments, processing instructions and declarations.

// Classes of bytes: those that end a run of plain bytes in character data
// or an attribute value (cStop), those that also end one in an attribute
// value (cBlank, read as a space), and those of a name as encoding/xml reads
// one (cName: ASCII name characters and every non-ASCII byte, checked
// afterwards).
const (
	cStop uint8 = 1 << iota
	cBlank
	cName
)

var byteClass = func() (t [256]uint8) {
	for c := range len(t) {
		if c >= utf8.RuneSelf || c < ' ' && c != '\t' && c != '\n' || strings.IndexByte(`<&>"'`, byte(c)) >= 0 {
			t[c] = cStop
		}
		if c == '\t' || c == '\n' {
			t[c] = cBlank
		}
		if c >= utf8.RuneSelf || isNameStart(byte(c)) || '0' <= c && c <= '9' || c == '.' || c == '-' {
			t[c] |= cName
		}
	}
	return t
}()

func isNameStart(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || c == '_' || c == ':'
}

// isInCharacterRange reports whether r is a character XML allows (the
// production Char of XML 1.0).
func isInCharacterRange(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// char checks the character at buf[p], a control or the first byte of a
// non-ASCII one, and returns its length.
func (s *scanner) char(p int) (int, error) {
	b := s.buf[p:s.end]
	r, n := rune(b[0]), 1
	if r >= utf8.RuneSelf {
		if r, n = utf8.DecodeRune(b); r == utf8.RuneError && n == 1 {
			if !utf8.FullRune(b) && s.rerr == nil {
				return 0, errMore
			}
			return 0, s.syntaxErr(p, "invalid UTF-8")
		}
	}
	if !isInCharacterRange(r) {
		return 0, s.syntaxErr(p, "illegal character code %U", r)
	}
	return n, nil
}

// chars scans character data from buf[p] to the next '<' or the end of the
// input (quote 0), or an attribute value to its closing quote, and returns
// it and where the token goes on. A line break or tab in an attribute value
// is a space (XML 1.0 §3.3.3); one written as a reference stays itself.
func (s *scanner) chars(p int, quote byte) ([]byte, int, error) {
	b := s.buf[:s.end]
	start, run, mark := p, p, len(s.scratch) // run: the bytes not yet copied to scratch
	stop, stops, newline := quote, cStop|cBlank, byte(' ')
	if quote == 0 {
		stop, stops, newline = '<', cStop, '\n'
	}
	var err error
	for {
		for p < len(b) && byteClass[b[p]]&stops == 0 {
			p++
		}
		if p == len(b) && quote == 0 && s.rerr != nil {
			break // character data ends the input
		}
		if p == len(b) {
			return nil, p, s.short(p)
		}
		c := b[p]
		if c == stop {
			break
		}
		switch c {
		case '<':
			return nil, p, s.syntaxErr(p, "unescaped < inside quoted string")
		case '>':
			if quote == 0 && p-start >= 2 && b[p-1] == ']' && b[p-2] == ']' {
				return nil, p, s.syntaxErr(p, "unescaped ]]> not in CDATA section")
			}
			p++
		case '"', '\'':
			p++
		case '&':
			if s.scratch, p, err = s.reference(p, append(s.scratch, b[run:p]...)); err != nil {
				return nil, p, err
			}
			run = p
		case '\r':
			if s.scratch, p, err = s.newlineAt(p, append(s.scratch, b[run:p]...), newline); err != nil {
				return nil, p, err
			}
			run = p
		case '\t', '\n': // in an attribute value
			s.scratch = append(append(s.scratch, b[run:p]...), ' ')
			p++
			run = p
		default:
			n, err := s.char(p)
			if err != nil {
				return nil, p, err
			}
			p += n
		}
	}
	next := p
	if quote != 0 {
		next++
	}
	if run == start {
		return b[start:p], next, nil
	}
	s.scratch = append(s.scratch, b[run:p]...)
	return s.scratch[mark:len(s.scratch):len(s.scratch)], next, nil
}

// newlineAt appends the line break of the \r at buf[p] to out (\r and \r\n
// are one, written as newline) and returns where the text goes on.
func (s *scanner) newlineAt(p int, out []byte, newline byte) ([]byte, int, error) {
	if p+1 == s.end && s.rerr == nil {
		return out, p, errMore
	}
	if p+1 < s.end && s.buf[p+1] == '\n' {
		p++
	}
	return append(out, newline), p + 1, nil
}

var entities = map[string]byte{"lt": '<', "gt": '>', "amp": '&', "apos": '\'', "quot": '"'}

// reference decodes the reference at buf[p] ('&'), appending its character
// to out, and returns where the text goes on. Only the five entities XML
// predefines exist: a document cannot declare any (it has no DOCTYPE).
func (s *scanner) reference(p int, out []byte) ([]byte, int, error) {
	b := s.buf[:s.end]
	q, digits, base := p+1, "", 10
	if q < len(b) && b[q] == '#' {
		q, digits = q+1, "0123456789"
		if q < len(b) && b[q] == 'x' {
			q, digits, base = q+1, "0123456789abcdefABCDEF", 16
		}
	}
	start := q
	for q < len(b) && (digits == "" && byteClass[b[q]]&cName != 0 || digits != "" && strings.IndexByte(digits, b[q]) >= 0) {
		q++
	}
	if q == len(b) {
		return out, q, s.short(q)
	}
	if b[q] != ';' {
		return out, q, s.syntaxErr(q, "invalid character entity %s (no semicolon)", b[p:q])
	}
	if digits == "" {
		c, ok := entities[string(b[start:q])]
		if !ok {
			return out, q, s.syntaxErr(q, "invalid character entity %s;", b[p:q])
		}
		return append(out, c), q + 1, nil
	}
	n, err := strconv.ParseUint(string(b[start:q]), base, 32)
	if err != nil || n > utf8.MaxRune {
		return out, q, s.syntaxErr(q, "invalid character entity %s;", b[p:q])
	}
	r := rune(n)
	if !utf8.ValidRune(r) {
		r = utf8.RuneError // a surrogate, as encoding/xml decodes it
	}
	if !isInCharacterRange(r) {
		return out, q, s.syntaxErr(q, "illegal character code %U", r)
	}
	return utf8.AppendRune(out, r), q + 1, nil
}

// scanBang scans what follows "<!" at buf[p]: a comment, a CDATA section,
// or a declaration, which is refused.
func (s *scanner) scanBang(p int) error {
	b := s.buf[:s.end]
	if p == len(b) {
		return s.short(p)
	}
	switch b[p] {
	case '-':
		if p+1 == len(b) {
			return s.short(p + 1)
		}
		if b[p+1] != '-' {
			return s.syntaxErr(p+1, "invalid sequence <!- not part of <!--")
		}
		i := bytes.Index(b[p+2:], []byte("--"))
		if i < 0 || p+2+i+2 == len(b) {
			return s.short(len(b))
		}
		if e := p + 2 + i + 2; b[e] != '>' {
			return s.syntaxErr(e, `invalid sequence "--" not allowed in comments`)
		}
		s.kind, s.data, s.pos = tokComment, b[p+2:p+2+i], p+2+i+3
		return nil
	case '[':
		rest := b[p+1:]
		if !bytes.HasPrefix(cdataStart, rest[:min(len(rest), len(cdataStart))]) {
			return s.syntaxErr(p, "invalid <![ sequence")
		}
		if len(rest) < len(cdataStart) {
			return s.short(len(b))
		}
		return s.scanCDATA(p + 1 + len(cdataStart))
	}
	if s.started {
		return s.syntaxErr(p, "a <!…> declaration after the start of the root element")
	}
	q := skipSpace(b, p)
	if len(b)-q < len("DOCTYPE") && s.rerr == nil {
		return errMore
	}
	if bytes.HasPrefix(b[q:], []byte("DOCTYPE")) {
		return &SyntaxError{Line: s.lineOf(p), Msg: "a DOCTYPE is not allowed in a ResourceSync document"}
	}
	return s.syntaxErr(p, "a <!…> declaration before the root element")
}

func (s *scanner) scanCDATA(p int) error {
	b := s.buf[:s.end]
	i := bytes.Index(b[p:], cdataEnd)
	if i < 0 {
		if s.rerr == io.EOF {
			return s.syntaxErr(len(b), "unexpected EOF in CDATA section")
		}
		return s.short(len(b))
	}
	end, run := p+i, p
	for q := p; q < end; {
		switch c := b[q]; {
		case c >= ' ' && c < utf8.RuneSelf || c == '\t' || c == '\n':
			q++
		case c == '\r':
			s.scratch, q, _ = s.newlineAt(q, append(s.scratch, b[run:q]...), '\n') // followed by ]]> at least
			run = q
		default:
			n, err := s.char(q)
			if err != nil {
				return err
			}
			q += n
		}
	}
	s.data = b[p:end]
	if run != p {
		s.data = append(s.scratch, b[run:end]...)
		s.scratch = s.data
	}
	s.kind, s.pos = tokText, end+len(cdataEnd)
	return nil
}

// scanProcInst scans a processing instruction whose target starts at
// buf[p]. The target xml, in any case, is reserved for the XML declaration
// at the very start (XML 1.0 §2.6, §2.8), which must say version 1.0, if
// anything, and UTF-8 (or its subset US-ASCII): Sitemaps are in UTF-8.
func (s *scanner) scanProcInst(p int) error {
	b := s.buf[:s.end]
	q, err := s.scanName(p)
	if err != nil {
		return err
	}
	if q == p {
		return s.syntaxErr(q, "expected target name after <?")
	}
	c := skipSpace(b, q)
	i := bytes.Index(b[c:], piEnd)
	if i < 0 {
		return s.short(len(b))
	}
	s.kind, s.target, s.data, s.pos = tokProcInst, b[p:q], b[c:c+i], c+i+len(piEnd)
	switch {
	case !bytes.EqualFold(s.target, []byte("xml")):
		return nil
	case string(s.target) != "xml":
		return s.syntaxErr(p, "the processing instruction target %s is reserved", s.target)
	case s.base+p-len("<?") != s.start:
		return s.syntaxErr(p, "an XML declaration <?xml …?> is allowed only at the very start of the document")
	}
	content := string(s.data)
	if v := procInst("version", content); v != "" && v != "1.0" {
		return &SyntaxError{Line: s.lineOf(s.pos), Msg: "XML version " + v + " is not supported; only version 1.0 is"}
	}
	if e := procInst("encoding", content); e != "" && !strings.EqualFold(e, "utf-8") && !strings.EqualFold(e, "us-ascii") {
		return &SyntaxError{Line: s.lineOf(s.pos), Msg: "encoding " + e + " is not UTF-8, which Sitemap documents must use"}
	}
	return nil
}

// procInst returns the value of param in the content of a processing
// instruction, or "": encoding/xml's own, deliberately approximate, parsing
// of the XML declaration, kept to accept the same declarations.
func procInst(param, s string) string {
	param += "="
	i := 0
	var sep byte
	for i < len(s) && sep == 0 {
		sub := s[i:]
		k := strings.Index(sub, param)
		if k < 0 || len(param)+k >= len(sub) {
			return ""
		}
		i += len(param) + k + 1
		if c := sub[len(param)+k]; c == '\'' || c == '"' {
			sep = c
		}
	}
	j := strings.IndexByte(s[i:], sep)
	if sep == 0 || j < 0 {
		return ""
	}
	return s[i : i+j]
}
