package rsxml

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// A token as both tokenizers give it: an encoding/xml token (copied) and
// the line where it ends.
type lineToken struct {
	Tok  xml.Token
	Line int
}

// decodeTokens tokenizes data with encoding/xml, as the Reader did before
// it had a scanner of its own: Strict, UTF-8 and US-ASCII only. A
// Directive ends the tokens with want a refusal: the scanner refuses them.
func decodeTokens(data []byte) (toks []lineToken, err error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	d.CharsetReader = func(charset string, input io.Reader) (io.Reader, error) {
		if strings.EqualFold(charset, "utf-8") || strings.EqualFold(charset, "us-ascii") {
			return input, nil
		}
		return nil, fmt.Errorf("encoding %q is not UTF-8", charset)
	}
	for {
		tok, err := d.Token()
		if err != nil {
			return toks, err
		}
		if _, ok := tok.(xml.Directive); ok {
			return toks, errors.New("a directive")
		}
		line, _ := d.InputPos()
		toks = append(toks, lineToken{xml.CopyToken(tok), line})
	}
}

// scanTokens tokenizes data with the scanner, whose buffer starts at size
// bytes, reading it through r; the document starts at start, past a byte
// order mark.
func scanTokens(r io.Reader, size, start int) (toks []lineToken, err error) {
	s := newScanner(r)
	s.buf, s.start = make([]byte, size), start
	for {
		if err := s.next(); err != nil {
			return toks, err
		}
		var tok xml.Token
		switch s.kind {
		case tokStart:
			el := xml.StartElement{Name: xml.Name(s.name), Attr: []xml.Attr{}}
			for _, a := range s.attrs {
				el.Attr = append(el.Attr, xml.Attr{Name: xml.Name(a.name), Value: string(a.value)})
			}
			tok = el
		case tokEnd:
			tok = xml.EndElement{Name: xml.Name(s.name)}
		case tokText:
			tok = xml.CharData(bytes.Clone(s.data))
		case tokComment:
			tok = xml.Comment(bytes.Clone(s.data))
		case tokProcInst:
			tok = xml.ProcInst{Target: string(s.target), Inst: bytes.Clone(s.data)}
		}
		toks = append(toks, lineToken{tok, s.tokenLine()})
	}
}

// stricter are the errors of the scanner where encoding/xml is laxer than
// XML 1.0 or Namespaces in XML 1.0: encoding/xml may go on after them.
var stricter = []string{"(Namespaces in XML 1.0)", "allowed only at the very start", "is reserved"}

// checkScanner compares the scanner with encoding/xml on data: the same
// tokens on the same lines, then both at the end or both failing, or the
// scanner failing first with an error of stricter.
func checkScanner(t *testing.T, data []byte) {
	t.Helper()
	want, werr := decodeTokens(data)
	start := 0
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		start = len("\uFEFF")
	}
	readers := []struct {
		name string
		r    io.Reader
		size int
	}{
		{"whole", bytes.NewReader(data), scanBuffer},
		{"byte by byte into 7 bytes", iotest.OneByteReader(bytes.NewReader(data)), 7},
		{"halves into 64 bytes", iotest.HalfReader(bytes.NewReader(data)), 64},
	}
	for _, rd := range readers {
		got, gerr := scanTokens(rd.r, rd.size, start)
		if gerr != nil && gerr != io.EOF && slices.ContainsFunc(stricter, func(s string) bool { return strings.Contains(gerr.Error(), s) }) && len(got) < len(want) {
			want, werr = want[:len(got)], gerr
		}
		if n := firstDifference(got, want); n >= 0 {
			t.Fatalf("%s: token %d differs:\nscanner      %s (%v)\nencoding/xml %s (%v)\nin %q", rd.name, n, show(got, n), gerr, show(want, n), werr, data)
		}
		if (gerr == io.EOF) != (werr == io.EOF) {
			t.Fatalf("%s: after %d tokens, scanner %v, encoding/xml %v\nin %q", rd.name, len(got), gerr, werr, data)
		}
		var se *SyntaxError
		if gerr != io.EOF && (!errors.As(gerr, &se) || se.Line < 1) {
			t.Fatalf("%s: error %v (%T), want a *SyntaxError with a line", rd.name, gerr, gerr)
		}
	}
}

// firstDifference returns the index of the first token that differs
// between a and b, or -1.
func firstDifference(a, b []lineToken) int {
	for i := range min(len(a), len(b)) {
		if a[i].Line != b[i].Line || !sameToken(a[i].Tok, b[i].Tok) {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

func sameToken(a, b xml.Token) bool {
	switch x := a.(type) {
	case xml.StartElement:
		y, ok := b.(xml.StartElement)
		return ok && x.Name == y.Name && slices.EqualFunc(x.Attr, y.Attr, sameAttr)
	case xml.EndElement:
		y, ok := b.(xml.EndElement)
		return ok && x == y
	case xml.CharData:
		y, ok := b.(xml.CharData)
		return ok && bytes.Equal(x, y)
	case xml.Comment:
		y, ok := b.(xml.Comment)
		return ok && bytes.Equal(x, y)
	case xml.ProcInst:
		y, ok := b.(xml.ProcInst)
		return ok && x.Target == y.Target && bytes.Equal(x.Inst, y.Inst)
	}
	return false
}

// sameAttr compares a of the scanner with b of encoding/xml, which does not
// read a line break or tab in a value as a space.
func sameAttr(a, b xml.Attr) bool {
	if a.Name != b.Name || len(a.Value) != len(b.Value) {
		return false
	}
	for i := range len(a.Value) {
		if x, y := a.Value[i], b.Value[i]; x != y && !(x == ' ' && (y == '\n' || y == '\t')) {
			return false
		}
	}
	return true
}

func show(toks []lineToken, i int) string {
	if i >= len(toks) {
		return "none"
	}
	switch tok := toks[i].Tok.(type) {
	case xml.CharData:
		return fmt.Sprintf("CharData %q on line %d", tok, toks[i].Line)
	case xml.Comment:
		return fmt.Sprintf("Comment %q on line %d", tok, toks[i].Line)
	}
	return fmt.Sprintf("%#v on line %d", toks[i].Tok, toks[i].Line)
}

// scannerSeeds are documents that reach each branch of the scanner.
var scannerSeeds = []string{
	`<a/>`,
	"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<a  b = 'x'\tc=\"y\"\n/>\n",
	`<?xml version="1.1"?><a/>`,
	`<?xml version='1.0' encoding='ISO-8859-1'?><a/>`,
	`<?xml encoding="US-ASCII"?><a/>`,
	`<?xml version="1.0" encoding="UTF-8"?><a/><?xml version="2"?>`,
	`<?pi?><?pi  with  content ?><a><?x ?? ?></a>`,
	`<? x?><a/>`, `<?1x?>`, `<?a:b:c?>`,
	`<a xmlns="urn:d" xmlns:p="urn:p"><p:b p:c="1" c="2" xml:lang="en"/><b xmlns=""/><q:b/></a>`,
	`<a xmlns:p="urn:1"><p:b xmlns:p="urn:2"><p:c/></p:b><p:d/></a>`,
	`<xmlns:a/>`, `<xmlns xmlns="urn:x"/>`, `<:a/>`, `<a:/>`, `<a:b:c/>`, `<a b:c:d="1"/>`, `<a :b="1" b:="2"/>`,
	`<a>text &lt;&gt;&amp;&apos;&quot; &#65;&#x42;&#x10FFFF; &#0000000000000000067;</a>`,
	`<a>&#0;</a>`, `<a>&#xD800;</a>`, `<a>&#xFFFE;</a>`, `<a>&#x110000;</a>`, `<a>&#99999999999999999999999;</a>`,
	`<a>&#;</a>`, `<a>&#x;</a>`, `<a>&#X41;</a>`, `<a>&#65</a>`, `<a>&foo;</a>`, `<a>&;</a>`, `<a>&lt</a>`, `<a>&é;</a>`,
	`<a b="&#65;&lt;" c='"' d="'"/>`, `<a b="<"/>`, `<a b=c/>`, `<a b/>`, `<a b="1"c="2"/>`, `<a b="1" b="2"/>`,
	"<a>line\r\nbreaks\rand\r\r\n</a>", "<a b=\"\r\n\r\"/>", "<a><![CDATA[x\r\ny]]></a>",
	"<a>]]></a>", "<a>]] ></a>", "<a>]]]></a>", "<a>]&#93;></a>", "<a><![CDATA[]]]]><![CDATA[>]]></a>",
	"<a><![CDATA[<&>]]></a>", "<a><![CDATA[\x01]]></a>", "<a><![CDAT[x]]></a>", "<a><![CDATA[x", "<a><![CD",
	"<!-- c --><a><!----><!-- - --></a><!-- after -->", "<a><!-- a -- b --></a>", "<a><!--->--></a>", "<!- x -->", "<a><!--x",
	"<!DOCTYPE a><a/>", "<! DOCTYPE a><a/>", "<!ENTITY x 'y'><a/>", "<a><!x></a>", "<a/><!DOCTYPE", "<!DOC",
	"<a>\x00</a>", "<a>\x1f</a>", "<a>\x7f</a>", "<a>\xff</a>", "<a>\xc3</a>", "<a>\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80</a>",
	"<a>\xef\xbf\xbe</a>", "<a>\xed\xa0\x80</a>", "<a b=\"\xc3\"/>", "<a b=\"\x01\"/>", "\ufeff<a/>",
	"<a xmlns:p=\"\u00b7\"><\u00b7/></a>", "<é/>", "<aé/>", "<a\u00b7/>", "<\u00b7/>", "<a\u0300/>", "<a\u3000/>", "<\u4e00/>", "<a>&\u00e9;</a>",
	"<a></b>", "<a></a:a>", "<p:a xmlns:p='u'></q:a>", "</a>", "<a></a></a>", "<a></a >", "<a></ a>", "<a></a b>", "<a></a",
	"<a", "<a ", "<a b", "<a b=", "<a b=\"", "<a b=\"x", "<a b=\"x\"", "<a/", "<a/ >", "<", "<>", "< a/>", "<1a/>", "<a =\"1\"/>",
	"text<a/>tail", "<a/><b/>", "<a>\n\n<b\n/>\n</a\n>\n", "\n\n<a/>\n\n",
	"<a><zz:b/></a>", "<a zz:b='1'/>", "<a xmlns:xml='http://bad'/>", "<a xmlns:xmlns='urn:x'/>", "<a xmlns:p=''/>", "<a xmlns=''/>",
	"<a/><?xml version='1.0'?>", " <?xml version='1.0'?><a/>", "<?XML?><a/>", "<a><?xml-stylesheet?></a>", "<a b='x\ny\tz&#10;&#9;'/>",
}

func FuzzScanner(f *testing.F) {
	for _, s := range scannerSeeds {
		f.Add([]byte(s))
	}
	for _, file := range exampleFiles(f) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkScanner(t, data)
	})
}

// TestScannerLongTokens: tokens far larger than the buffer, read in
// pieces, come out whole.
func TestScannerLongTokens(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x&amp;\r\né", 20000)
	for _, doc := range []string{
		"<a>" + long + "</a>",
		"<a b='" + long + "'/>",
		"<a><![CDATA[" + long + "]]></a>",
		"<!--" + long + "--><a/>",
		"<?pi " + long + "?><a/>",
		"<a" + strings.Repeat(` b="1"`, 20000) + "/>",
		"<a>" + strings.Repeat("<b/>\n", 20000) + "</a>",
	} {
		checkScanner(t, []byte(doc))
	}
}
