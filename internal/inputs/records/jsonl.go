package records

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/text/units"
)

// maxDepth bounds the nesting of a value skipped in a bad record.
const maxDepth = 64

// parseJSONLine parses one line of a JSON Lines export: a JSON object
// whose keys are fieldNames and "links". Values are strings; deleted may
// also be true or false, length a number, and any field null (absent).
// links is an array of objects with the keys of linkAttrs. A key that is
// not known, or given twice, makes the record bad.
//
// The parser is written for this one shape, to read a million records in
// well under a second; its fuzz test holds it to encoding/json.
func parseJSONLine(line []byte, lineNo int) (Record, error) {
	p := jsonParser{s: line}
	rec := newRecord(lineNo)
	return rec, p.object(&rec)
}

type jsonParser struct {
	s       []byte
	i       int
	seen    [numFields + 1]bool // fields given; the last is links
	unknown []string
	first   error // the first bad value; syntax errors beat it
}

// errf is a syntax error at the current position (1-based column).
func (p *jsonParser) errf(format string, args ...any) error {
	return fmt.Errorf("not a JSON object: "+format+" at column %d", append(args, p.i+1)...)
}

func (p *jsonParser) unexpected() error {
	if p.i >= len(p.s) {
		return p.errf("unexpected end of line")
	}
	r, _ := utf8.DecodeRune(p.s[p.i:])
	return p.errf("unexpected %q", r)
}

func (p *jsonParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) valueErr(err error) {
	if p.first == nil {
		p.first = err
	}
}

func (p *jsonParser) object(rec *Record) error {
	if !utf8.Valid(p.s) {
		return errors.New("the line is not valid UTF-8")
	}
	p.ws()
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return p.unexpected()
	}
	p.i++
	if err := p.elements('}', func() error { return p.member(rec) }); err != nil {
		return err
	}
	p.ws()
	if p.i != len(p.s) {
		return p.errf("text after the object")
	}
	if len(p.unknown) > 0 {
		return fmt.Errorf("unknown field%s %s (known: %s, links)", units.Plural(len(p.unknown), "", "s"), strings.Join(p.unknown, ", "), strings.Join(fieldNames[:], ", "))
	}
	if p.first != nil {
		return p.first
	}
	return rec.finish()
}

func (p *jsonParser) member(rec *Record) error {
	kb, err := p.key()
	if err != nil {
		return err
	}
	f := fieldByName(kb)
	switch {
	case string(kb) == "links":
		f = numFields
	case f < 0:
		p.unknown = append(p.unknown, strconv.Quote(string(kb)))
		return p.skip(0)
	}
	key := fieldNames[min(f, numFields-1)]
	if f == numFields {
		key = "links"
	}
	if p.seen[f] {
		p.valueErr(fmt.Errorf("field %q is given twice", key))
	}
	p.seen[f] = true
	if f == numFields {
		return p.links(rec)
	}
	v, kind, err := p.scalar()
	if err != nil {
		return err
	}
	switch {
	case kind == 'n':
	case kind == '"':
		p.valueErr(rec.setBytes(f, v))
	case kind == 't' && f == fieldDeleted:
		rec.Deleted = true
	case kind == 'f' && f == fieldDeleted:
		rec.Deleted = false
	case kind == '0' && f == fieldLength:
		p.valueErr(rec.setBytes(f, v))
	default:
		want := "a string"
		switch f {
		case fieldDeleted:
			want = "true, false or a time"
		case fieldLength:
			want = "a number"
		}
		p.valueErr(fmt.Errorf("%s: %s is not %s", key, kindName(kind), want))
	}
	return nil
}

func kindName(kind byte) string {
	switch kind {
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "null"
}

// scalar parses a value that should be a string, number, boolean or null,
// and returns its text (unescaped for a string, in the line's memory if it
// has no escape) and kind: '"', '0', 't', 'f' or 'n'. An object or array
// is skipped and reported as kind '{' or '['.
func (p *jsonParser) scalar() ([]byte, byte, error) {
	if p.i >= len(p.s) {
		return nil, 0, p.unexpected()
	}
	switch c := p.s[p.i]; c {
	case '"':
		s, err := p.strBytes()
		return s, '"', err
	case 't':
		return nil, 't', p.lit("true")
	case 'f':
		return nil, 'f', p.lit("false")
	case 'n':
		return nil, 'n', p.lit("null")
	case '{', '[':
		return nil, c, p.skip(0)
	default:
		start := p.i
		if err := p.number(); err != nil {
			return nil, 0, err
		}
		return p.s[start:p.i], '0', nil
	}
}

func (p *jsonParser) lit(word string) error {
	if len(p.s)-p.i < len(word) || string(p.s[p.i:p.i+len(word)]) != word {
		return p.unexpected()
	}
	p.i += len(word)
	return nil
}

func (p *jsonParser) number() error {
	s, i := p.s, p.i
	digits := func() bool { // one or more
		start := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	ok := i < len(s) && s[i] == '0'
	if ok {
		i++
	} else {
		ok = digits()
	}
	if ok && i < len(s) && s[i] == '.' {
		i++
		ok = digits()
	}
	if ok && i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		ok = digits()
	}
	p.i = i
	if !ok {
		return p.unexpected()
	}
	return nil
}

// key parses the key of an object member and the colon after it, at p.i
// (on the key's opening quote), and stops at the start of the value.
func (p *jsonParser) key() ([]byte, error) {
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return nil, p.unexpected()
	}
	k, err := p.strBytes()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i >= len(p.s) || p.s[p.i] != ':' {
		return nil, p.unexpected()
	}
	p.i++
	p.ws()
	return k, nil
}

// strBytes parses a string at p.i (on its opening quote) and returns it
// unescaped: the bytes of a string without escapes are those of the line.
func (p *jsonParser) strBytes() ([]byte, error) {
	p.i++
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			s := p.s[start:p.i]
			p.i++
			return s, nil
		case c == '\\':
			return p.strSlow(start)
		case c < 0x20:
			return nil, p.errf("control character in a string")
		}
		p.i++
	}
	return nil, p.errf("unterminated string")
}

// strSlow finishes a string that has escapes; p.i is on the first one.
func (p *jsonParser) strSlow(start int) ([]byte, error) {
	b := make([]byte, 0, p.i-start+16)
	b = append(b, p.s[start:p.i]...)
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b, nil
		case c < 0x20:
			return nil, p.errf("control character in a string")
		case c != '\\':
			b = append(b, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.s) {
			break
		}
		e := p.s[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return nil, p.errf("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				// A pair makes one character; a lone half is U+FFFD, as
				// encoding/json reads it.
				if p.i+1 < len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
					save := p.i
					p.i += 2
					r2, ok := p.hex4()
					if !ok {
						return nil, p.errf("bad \\u escape")
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						b = utf8.AppendRune(b, dec)
						continue
					}
					p.i = save
				}
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
		default:
			p.i -= 2
			return nil, p.errf("bad escape \\%c", e)
		}
	}
	return nil, p.errf("unterminated string")
}

func (p *jsonParser) hex4() (rune, bool) {
	if len(p.s)-p.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.s[p.i : p.i+4] {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	p.i += 4
	return r, true
}

func (p *jsonParser) skip(depth int) error {
	if depth > maxDepth {
		return p.errf("nested too deep")
	}
	if p.i >= len(p.s) {
		return p.unexpected()
	}
	switch p.s[p.i] {
	case '{', '[':
		open := p.s[p.i]
		close := byte('}')
		if open == '[' {
			close = ']'
		}
		p.i++
		return p.elements(close, func() error {
			if open == '{' {
				if _, err := p.key(); err != nil {
					return err
				}
			}
			return p.skip(depth + 1)
		})
	default:
		_, _, err := p.scalar()
		return err
	}
}

// links parses the value of "links": null, or an array of objects.
func (p *jsonParser) links(rec *Record) error {
	if p.i >= len(p.s) {
		return p.unexpected()
	}
	switch p.s[p.i] {
	case 'n':
		return p.lit("null")
	case '[':
	default:
		_, kind, err := p.scalar()
		if err == nil {
			p.valueErr(fmt.Errorf("links: %s is not an array of links", kindName(kind)))
		}
		return err
	}
	p.i++
	return p.elements(']', func() error { return p.link(rec) })
}

// elements parses the elements of an array or the members of an object,
// separated by commas, each with elem, and the close byte that ends them,
// from just after the opening byte.
func (p *jsonParser) elements(close byte, elem func() error) error {
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == close {
		p.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		p.ws()
		switch {
		case p.i < len(p.s) && p.s[p.i] == ',':
			p.i++
			p.ws()
		case p.i < len(p.s) && p.s[p.i] == close:
			p.i++
			return nil
		default:
			return p.unexpected()
		}
	}
}

func (p *jsonParser) link(rec *Record) error {
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		if p.i < len(p.s) && p.s[p.i] != ']' {
			_, kind, err := p.scalar()
			if err == nil {
				p.valueErr(fmt.Errorf("links: %s is not a link object such as {\"rel\": \"describedby\", \"href\": \"…\"}", kindName(kind)))
			}
			return err
		}
		return p.unexpected()
	}
	p.i++
	p.ws()
	var l rsxml.Link
	var isURL bool
	var seen []string
	err := p.elements('}', func() error {
		kb, err := p.key()
		if err != nil {
			return err
		}
		key := string(kb)
		vb, kind, err := p.scalar()
		if err != nil {
			return err
		}
		switch {
		case !isLinkAttr(key):
			p.unknown = append(p.unknown, strconv.Quote("links."+key))
		case slices.Contains(seen, key):
			p.valueErr(fmt.Errorf("links: attribute %q is given twice", key))
		case kind == '"' || kind == '0' && (key == "length" || key == "pri"):
			seen = append(seen, key)
			if err := setLinkAttr(&l, &isURL, key, string(vb)); err != nil {
				p.valueErr(fmt.Errorf("links: %w", err))
			}
		case kind == 'n':
			seen = append(seen, key)
		default:
			p.valueErr(fmt.Errorf("links: %s: %s is not a string", key, kindName(kind)))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := checkLink(&l); err != nil {
		p.valueErr(fmt.Errorf("links: %w", err))
	}
	rec.Links = append(rec.Links, l)
	rec.LinkURL = append(rec.LinkURL, isURL)
	return nil
}
