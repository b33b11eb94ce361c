package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/text/units"
)

// parseJSONLine parses one line of a JSON Lines export: a JSON object
// whose keys are fieldNames and "links". Values are strings; deleted may
// also be true or false, length a number, and any field null (absent).
// links is an array of objects with the keys of linkAttrs. A key that is
// not known, or given twice, makes the record bad.
//
// The parser is written for this one shape because encoding/json is three
// times slower (Unmarshal into a map of json.RawMessage, before any field
// is checked) and cannot see a key given twice; its fuzz test holds it to
// encoding/json.
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

// peek returns the byte at p.i, 0 at the end of the line.
func (p *jsonParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *jsonParser) ws() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\r' || p.s[p.i] == '\n') {
		p.i++
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
	if p.peek() != '{' {
		return p.unexpected()
	}
	p.i++
	if err := p.elements('}', func() error { return p.member(rec) }); err != nil {
		return err
	}
	p.ws()
	switch {
	case p.i != len(p.s):
		return p.errf("text after the object")
	case len(p.unknown) > 0:
		return fmt.Errorf("unknown field%s %s (known: %s, links)", units.Plural(len(p.unknown), "", "s"), strings.Join(p.unknown, ", "), strings.Join(fieldNames[:], ", "))
	case p.first != nil:
		return p.first
	}
	return rec.finish()
}

func (p *jsonParser) member(rec *Record) error {
	key, err := p.key()
	if err != nil {
		return err
	}
	f := fieldByName(key)
	if string(key) == "links" {
		f = numFields
	} else if f < 0 {
		p.unknown = append(p.unknown, strconv.Quote(string(key)))
		return p.skip()
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
	case kind == '"' || kind == '0' && f == fieldLength:
		p.valueErr(set(rec, f, v))
	case (kind == 't' || kind == 'f') && f == fieldDeleted:
		rec.Deleted = kind == 't'
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
	switch c := p.peek(); c {
	case 0:
		return nil, 0, p.unexpected()
	case '"':
		s, err := p.str()
		return s, '"', err
	case 't':
		return nil, 't', p.lit("true")
	case 'f':
		return nil, 'f', p.lit("false")
	case 'n':
		return nil, 'n', p.lit("null")
	case '{', '[':
		return nil, c, p.skip()
	}
	start := p.i
	if err := p.number(); err != nil {
		return nil, 0, err
	}
	return p.s[start:p.i], '0', nil
}

func (p *jsonParser) lit(word string) error {
	if !bytes.HasPrefix(p.s[p.i:], []byte(word)) {
		return p.unexpected()
	}
	p.i += len(word)
	return nil
}

// number parses -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *jsonParser) number() error {
	digits := func() bool {
		start := p.i
		for '0' <= p.peek() && p.peek() <= '9' {
			p.i++
		}
		return p.i > start
	}
	if p.peek() == '-' {
		p.i++
	}
	ok := p.peek() == '0'
	if ok {
		p.i++
	} else {
		ok = digits()
	}
	if ok && p.peek() == '.' {
		p.i++
		ok = digits()
	}
	if c := p.peek(); ok && (c == 'e' || c == 'E') {
		if p.i++; p.peek() == '+' || p.peek() == '-' {
			p.i++
		}
		ok = digits()
	}
	if !ok {
		return p.unexpected()
	}
	return nil
}

// key parses the key of a member and the colon after it.
func (p *jsonParser) key() ([]byte, error) {
	if p.peek() != '"' {
		return nil, p.unexpected()
	}
	k, err := p.str()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.peek() != ':' {
		return nil, p.unexpected()
	}
	p.i++
	p.ws()
	return k, nil
}

// str parses a string and returns it unescaped: the bytes of a string
// without escapes are those of the line; encoding/json reads one with
// escapes.
func (p *jsonParser) str() ([]byte, error) {
	start := p.i
	escaped := false
	for p.i++; p.i < len(p.s); p.i++ {
		switch c := p.s[p.i]; {
		case c == '"':
			p.i++
			if !escaped {
				return p.s[start+1 : p.i-1], nil
			}
			var s string
			if err := json.Unmarshal(p.s[start:p.i], &s); err != nil {
				p.i = start
				var serr *json.SyntaxError
				if errors.As(err, &serr) {
					p.i += int(serr.Offset) - 1 // at the byte it names
				}
				return nil, p.errf("bad string (%v)", err)
			}
			return []byte(s), nil
		case c == '\\':
			escaped = true
			p.i++ // the byte escaped does not end the string
		case c < 0x20:
			return nil, p.errf("control character in a string")
		}
	}
	p.i = len(p.s) // an escape at the end of the line stepped past it
	return nil, p.errf("unterminated string")
}

// skip passes over a value, whatever it holds: encoding/json finds its end.
func (p *jsonParser) skip() error {
	if p.i >= len(p.s) {
		return p.unexpected()
	}
	dec := json.NewDecoder(bytes.NewReader(p.s[p.i:]))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return p.errf("%v", err)
	}
	p.i += int(dec.InputOffset())
	return nil
}

// elements parses the elements of an array or the members of an object,
// each with elem, and the byte that closes them, from just after the one
// that opens them.
func (p *jsonParser) elements(close byte, elem func() error) error {
	p.ws()
	if p.peek() == close {
		p.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		p.ws()
		switch p.peek() {
		case ',':
			p.i++
			p.ws()
		case close:
			p.i++
			return nil
		default:
			return p.unexpected()
		}
	}
}

// links parses the value of "links": null, or an array of objects.
func (p *jsonParser) links(rec *Record) error {
	if p.peek() == '[' {
		p.i++
		return p.elements(']', func() error { return p.link(rec) })
	}
	_, kind, err := p.scalar()
	if err == nil && kind != 'n' {
		p.valueErr(fmt.Errorf("links: %s is not an array of links", kindName(kind)))
	}
	return err
}

func (p *jsonParser) link(rec *Record) error {
	if p.peek() != '{' {
		_, kind, err := p.scalar()
		if err == nil {
			p.valueErr(fmt.Errorf("links: %s is not a link object such as {\"rel\": \"describedby\", \"href\": \"…\"}", kindName(kind)))
		}
		return err
	}
	p.i++
	var l rsxml.Link
	var isURL bool
	var seen []string
	err := p.elements('}', func() error {
		kb, err := p.key()
		if err != nil {
			return err
		}
		key := string(kb)
		v, kind, err := p.scalar()
		if err != nil {
			return err
		}
		switch {
		case !slices.Contains(linkAttrs, key):
			p.unknown = append(p.unknown, strconv.Quote("links."+key))
		case slices.Contains(seen, key):
			p.valueErr(fmt.Errorf("links: attribute %q is given twice", key))
		case kind == '"' || kind == '0' && (key == "length" || key == "pri"):
			seen = append(seen, key)
			if err := setLinkAttr(&l, &isURL, key, string(v)); err != nil {
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
