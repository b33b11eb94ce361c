package rsxml

import (
	"bufio"
	"io"
	"unicode/utf8"

	"github.com/rsgen/rsgen/internal/documents/mediatype"
)

// plainASCII marks the bytes appendEscaped copies as they are: printable
// ASCII other than & < > ".
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '&' && c != '<' && c != '>' && c != '"'
	}
	return t
}()

const xmlHeader = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

// Writer streams one document. Create it with NewWriter, Add the entries,
// then Close it; the first error sticks and is returned by every later call.
type Writer struct {
	bw   *bufio.Writer
	doc  Doc
	buf  []byte
	size int64
	err  error
}

// NewWriter writes the XML declaration and the root of doc to w.
func NewWriter(w io.Writer, doc Doc) *Writer {
	wr := &Writer{bw: bufio.NewWriterSize(w, 64<<10), doc: doc}
	wr.write(AppendHeader(nil, &doc))
	return wr
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.bw.Write(b)
	w.size += int64(n)
	w.err = err
}

// Add writes one entry.
func (w *Writer) Add(e *Entry) error {
	w.buf = AppendEntry(w.buf[:0], w.doc.Index, e)
	w.write(w.buf)
	return w.err
}

// Copy writes the entries r holds, already encoded as Add encodes them
// (AppendEntry): those of a document whose root could not be written
// first.
func (w *Writer) Copy(r io.Reader) error {
	if w.err != nil {
		return w.err
	}
	n, err := io.Copy(w.bw, r)
	w.size += n
	w.err = err
	return err
}

// Size returns the number of bytes written so far.
func (w *Writer) Size() int64 { return w.size }

// Close writes the end of the document and flushes it. It does not close
// the underlying writer.
func (w *Writer) Close() error {
	w.write(AppendFooter(nil, &w.doc))
	if w.err == nil {
		w.err = w.bw.Flush()
	}
	return w.err
}

func rootName(index bool) string {
	if index {
		return "sitemapindex"
	}
	return "urlset"
}

func entryName(index bool) string {
	if index {
		return "sitemap"
	}
	return "url"
}

// AppendHeader appends the XML declaration, the root start tag and the
// root <rs:ln> and <rs:md> of doc to b.
func AppendHeader(b []byte, doc *Doc) []byte {
	b = append(b, xmlHeader...)
	b = append(b, '<')
	b = append(b, rootName(doc.Index)...)
	b = append(b, ` xmlns="`+NSSitemap+`"`+"\n        "+`xmlns:rs="`+NSRS+`">`+"\n"...)
	for i := range doc.Links {
		b = appendLink(b, "  ", &doc.Links[i])
	}
	b = appendMD(b, "  ", &doc.MD)
	return b
}

// AppendFooter appends the root end tag of doc to b.
func AppendFooter(b []byte, doc *Doc) []byte {
	b = append(b, "</"...)
	b = append(b, rootName(doc.Index)...)
	return append(b, ">\n"...)
}

// AppendEntry appends e, rendered as a <url> (or as a <sitemap> if index),
// to b. The bytes are exactly those a Writer writes for it.
func AppendEntry(b []byte, index bool, e *Entry) []byte {
	tag := entryName(index)
	b = append(b, "  <"...)
	b = append(b, tag...)
	b = append(b, ">\n    <loc>"...)
	b = appendEscaped(b, e.Loc)
	b = append(b, "</loc>\n"...)
	if e.Lastmod != "" {
		b = append(b, "    <lastmod>"...)
		b = appendEscaped(b, e.Lastmod)
		b = append(b, "</lastmod>\n"...)
	}
	if e.Changefreq != "" && !index {
		b = append(b, "    <changefreq>"...)
		b = appendEscaped(b, e.Changefreq)
		b = append(b, "</changefreq>\n"...)
	}
	if !e.MD.IsZero() {
		b = appendMD(b, "    ", &e.MD)
	}
	for i := range e.Links {
		b = appendLink(b, "    ", &e.Links[i])
	}
	b = append(b, "  </"...)
	b = append(b, tag...)
	return append(b, ">\n"...)
}

// appendElem appends the empty element tag (<rs:md or <rs:ln) with the
// attributes names[i]=fields[i] and extra. An empty field is absent, and so
// is a type the official schema does not accept (mediatype.SchemaValid): type
// is optional, and a value it rejects makes a validating Destination refuse
// the whole document. An empty extra attribute is written (it was read so);
// one in a namespace is not: its prefix would need a declaration.
func appendElem(b []byte, indent, tag string, names []string, fields []*string, extra []Attr) []byte {
	b = append(b, indent...)
	b = append(b, tag...)
	for i, f := range fields {
		if *f != "" && (names[i] != "type" || mediatype.SchemaValid(*f)) {
			b = appendAttr(b, names[i], *f)
		}
	}
	for _, a := range extra {
		if a.Space == "" {
			b = appendAttr(b, a.Name, a.Value)
		}
	}
	return append(b, "/>\n"...)
}

func appendMD(b []byte, indent string, md *MD) []byte {
	f := md.fields()
	return appendElem(b, indent, "<rs:md", mdAttrs[:], f[:], md.Extra)
}

func appendLink(b []byte, indent string, l *Link) []byte {
	f := l.fields()
	return appendElem(b, indent, "<rs:ln", linkAttrs[:], f[:], l.Extra)
}

func appendAttr(b []byte, name, value string) []byte {
	b = append(b, ' ')
	b = append(b, name...)
	b = append(b, `="`...)
	b = appendEscaped(b, value)
	return append(b, '"')
}

// appendEscaped appends s with the characters that XML reserves in text
// and attribute values escaped. White space other than a space is written
// as a character reference so that attribute normalisation keeps it, and a
// character XML 1.0 cannot carry (C0 controls, invalid UTF-8) becomes U+FFFD:
// callers that need such characters kept must encode them first (URLs are
// percent-encoded before they get here).
func appendEscaped(b []byte, s string) []byte {
	// Most values (percent-encoded URLs, digests, times, numbers) need no
	// escaping: copy the longest run of plain ASCII at once.
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && plainASCII[s[j]] {
			j++
		}
		b = append(b, s[i:j]...)
		if i = j; i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '&':
				b = append(b, "&amp;"...)
			case '<':
				b = append(b, "&lt;"...)
			case '>':
				b = append(b, "&gt;"...)
			case '"':
				b = append(b, "&quot;"...)
			case '\t':
				b = append(b, "&#x9;"...)
			case '\n':
				b = append(b, "&#xA;"...)
			case '\r':
				b = append(b, "&#xD;"...)
			default: // the other C0 controls
				b = append(b, "\uFFFD"...)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r == 0xFFFE || r == 0xFFFF {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return b
}
