package rsxml

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"
)

// The scanner's character data, attribute values, references, CDATA
// sections, comments, processing instructions and declarations.

// Classes of bytes: the bytes that end a run of plain bytes in character
// data (cText) or in an attribute value (cValue), which are copied as they
// are; the bytes of a name as encoding/xml reads one (cName: ASCII name
// characters and every non-ASCII byte, checked afterwards).
const (
	cText uint8 = 1 << iota
	cValue
	cName
)

var byteClass = func() (t [256]uint8) {
	for c := range len(t) {
		switch {
		case c >= utf8.RuneSelf, c < ' ' && c != '\t' && c != '\n', c == '<', c == '&':
			t[c] = cText | cValue // \r and the controls among them
		case c == '>':
			t[c] = cText // for ]]>
		case c == '"', c == '\'':
			t[c] = cValue
		}
		if c >= utf8.RuneSelf || isNameByte(byte(c)) {
			t[c] |= cName
		}
	}
	return t
}()

// isInCharacterRange reports whether r is a character XML allows (the
// production Char of XML 1.0).
func isInCharacterRange(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// char checks the character at buf[p], a control character or the first
// byte of a non-ASCII one, and returns its length.
func (s *scanner) char(p int) (int, error) {
	b := s.buf[p:s.end]
	if b[0] < utf8.RuneSelf {
		return 0, s.syntaxErr(p, "illegal character code %U", rune(b[0]))
	}
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError && n == 1 {
		if !utf8.FullRune(b) && s.rerr == nil {
			return 0, errMore
		}
		return 0, s.syntaxErr(p, "invalid UTF-8")
	}
	if !isInCharacterRange(r) {
		return 0, s.syntaxErr(p, "illegal character code %U", r)
	}
	return n, nil
}

// newlineAt appends the line break of the \r at buf[p] to out (\r and
// \r\n are \n) and returns where the text goes on.
func (s *scanner) newlineAt(p int, out []byte) ([]byte, int, error) {
	p++
	if p == s.end && s.rerr == nil {
		return out, p, errMore
	}
	if p < s.end && s.buf[p] == '\n' {
		p++
	}
	return append(out, '\n'), p, nil
}

// scanText scans character data from buf[p] to the next '<' or the end
// of the input.
func (s *scanner) scanText(p int) error {
	b := s.buf[:s.end]
	start, run := p, p // run: the bytes not yet copied, once decoding
	decoded := false
	var err error
	for {
		for p < len(b) && byteClass[b[p]]&cText == 0 {
			p++
		}
		if p == len(b) {
			if s.rerr == nil {
				return errMore
			}
			break // character data ends the input
		}
		c := b[p]
		if c == '<' {
			break
		}
		switch c {
		case '&':
			if s.scratch, p, err = s.reference(p, append(s.scratch, b[run:p]...)); err != nil {
				return err
			}
			run, decoded = p, true
		case '\r':
			if s.scratch, p, err = s.newlineAt(p, append(s.scratch, b[run:p]...)); err != nil {
				return err
			}
			run, decoded = p, true
		case '>':
			if p-start >= 2 && b[p-1] == ']' && b[p-2] == ']' {
				return s.syntaxErr(p, "unescaped ]]> not in CDATA section")
			}
			p++
		default:
			n, err := s.char(p)
			if err != nil {
				return err
			}
			p += n
		}
	}
	if decoded {
		s.data = append(s.scratch, b[run:p]...)
		s.scratch = s.data
	} else {
		s.data = b[start:p]
	}
	s.kind, s.pos = tokText, p
	return nil
}

// scanValue scans an attribute value from buf[p] to its closing quote,
// and returns it and the index after the quote.
func (s *scanner) scanValue(p int, quote byte) ([]byte, int, error) {
	b := s.buf[:s.end]
	start, run := p, p
	mark := len(s.scratch)
	decoded := false
	var err error
	for {
		for p < len(b) && byteClass[b[p]]&cValue == 0 {
			p++
		}
		if p == len(b) {
			return nil, p, s.short(p)
		}
		switch c := b[p]; c {
		case quote:
			if !decoded {
				return b[start:p], p + 1, nil
			}
			s.scratch = append(s.scratch, b[run:p]...)
			return s.scratch[mark:len(s.scratch):len(s.scratch)], p + 1, nil
		case '"', '\'':
			p++
		case '<':
			return nil, p, s.syntaxErr(p, "unescaped < inside quoted string")
		case '&':
			if s.scratch, p, err = s.reference(p, append(s.scratch, b[run:p]...)); err != nil {
				return nil, p, err
			}
			run, decoded = p, true
		case '\r':
			if s.scratch, p, err = s.newlineAt(p, append(s.scratch, b[run:p]...)); err != nil {
				return nil, p, err
			}
			run, decoded = p, true
		default:
			n, err := s.char(p)
			if err != nil {
				return nil, p, err
			}
			p += n
		}
	}
}

// reference decodes the character or entity reference at buf[p] ('&'),
// appending its character to out, and returns where the text goes on.
// Only the five entities XML predefines exist: a document cannot
// declare any (it has no DOCTYPE).
func (s *scanner) reference(p int, out []byte) ([]byte, int, error) {
	b := s.buf[:s.end]
	q := p + 1
	if q == len(b) {
		return out, q, s.short(q)
	}
	if b[q] != '#' {
		for q < len(b) && byteClass[b[q]]&cName != 0 {
			q++
		}
		if q == len(b) {
			return out, q, s.short(q)
		}
		var c byte
		switch string(b[p+1 : q]) {
		case "lt":
			c = '<'
		case "gt":
			c = '>'
		case "amp":
			c = '&'
		case "apos":
			c = '\''
		case "quot":
			c = '"'
		}
		if c == 0 || b[q] != ';' {
			return out, q, s.badReference(p, q)
		}
		return append(out, c), q + 1, nil
	}
	q++
	base := 10
	if q < len(b) && b[q] == 'x' {
		base, q = 16, q+1
	}
	digits, n := q, 0
	for ; q < len(b); q++ {
		d := hexValue(b[q])
		if d >= base {
			break
		}
		n = min(n*base+d, utf8.MaxRune+1) // past MaxRune: invalid, whatever follows
	}
	if q == len(b) {
		return out, q, s.short(q)
	}
	if b[q] != ';' || q == digits || n > utf8.MaxRune {
		return out, q, s.badReference(p, q)
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

// hexValue is the value of the hex digit c, or 16.
func hexValue(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return 16
}

func (s *scanner) badReference(p, q int) error {
	ref := string(s.buf[p:q])
	if s.buf[q] == ';' {
		ref += ";"
	} else {
		ref += " (no semicolon)"
	}
	return s.syntaxErr(q, "invalid character entity %s", ref)
}

var (
	cdataStart = []byte("CDATA[")
	cdataEnd   = []byte("]]>")
	dashes     = []byte("--")
	piEnd      = []byte("?>")
	doctype    = []byte("DOCTYPE")
)

// scanBang scans what follows "<!" at buf[p]: a comment or a CDATA section.
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
		return s.scanComment(p + 2)
	case '[':
		for i, c := range cdataStart {
			if q := p + 1 + i; q == len(b) {
				return s.short(q)
			} else if b[q] != c {
				return s.syntaxErr(q, "invalid <![ sequence")
			}
		}
		return s.scanCDATA(p + 1 + len(cdataStart))
	}
	return s.declaration(p)
}

func (s *scanner) scanComment(p int) error {
	b := s.buf[:s.end]
	i := bytes.Index(b[p:], dashes)
	if i < 0 || p+i+2 == len(b) {
		return s.short(len(b))
	}
	if b[p+i+2] != '>' {
		return s.syntaxErr(p+i+2, `invalid sequence "--" not allowed in comments`)
	}
	s.kind, s.data, s.pos = tokComment, b[p:p+i], p+i+3
	return nil
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
	end := p + i
	run, decoded := p, false
	for q := p; q < end; {
		c := b[q]
		switch {
		case c >= ' ' && c < utf8.RuneSelf || c == '\t' || c == '\n':
			q++
		case c == '\r':
			s.scratch, q, _ = s.newlineAt(q, append(s.scratch, b[run:q]...)) // followed by ]]> at least
			run, decoded = q, true
		default:
			n, err := s.char(q)
			if err != nil {
				return err
			}
			q += n
		}
	}
	s.data = b[p:end]
	if decoded {
		s.data = append(s.scratch, b[run:end]...)
		s.scratch = s.data
	}
	s.kind, s.pos = tokText, end+len(cdataEnd)
	return nil
}

// scanProcInst scans a processing instruction whose target starts at
// buf[p]. The XML declaration must say version 1.0, if anything, and
// UTF-8 (or its subset US-ASCII): Sitemaps are in UTF-8.
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
	if string(s.target) != "xml" {
		return nil
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
// instruction, or "": encoding/xml's own, deliberately approximate,
// parsing of the XML declaration, kept to accept the same declarations.
func procInst(param, s string) string {
	param += "="
	lenp := len(param)
	i := 0
	var sep byte
	for i < len(s) {
		sub := s[i:]
		k := strings.Index(sub, param)
		if k < 0 || lenp+k >= len(sub) {
			return ""
		}
		i += lenp + k + 1
		if c := sub[lenp+k]; c == '\'' || c == '"' {
			sep = c
			break
		}
	}
	if sep == 0 {
		return ""
	}
	j := strings.IndexByte(s[i:], sep)
	if j < 0 {
		return ""
	}
	return s[i : i+j]
}

// declaration refuses the <!…> declaration at buf[p-2], with a message of
// its own for a DOCTYPE before the root element.
func (s *scanner) declaration(p int) error {
	if s.started {
		return s.syntaxErr(p, "a <!…> declaration after the start of the root element")
	}
	b := s.buf[:s.end]
	q := skipSpace(b, p)
	if len(b)-q < len(doctype) && s.rerr == nil {
		return errMore
	}
	if bytes.HasPrefix(b[q:], doctype) {
		return &SyntaxError{Line: s.lineOf(p), Msg: "a DOCTYPE is not allowed in a ResourceSync document"}
	}
	return s.syntaxErr(p, "a <!…> declaration before the root element")
}
