package rsxml

import (
	"bytes"
	"fmt"
)

// readText reads the character content of the element just started,
// trimmed. It lasts until the next call.
func (r *Reader) readText() ([]byte, error) {
	r.text = r.text[:0]
	for {
		if err := r.token(); err != nil {
			return nil, err
		}
		switch r.sc.kind {
		case tokText:
			if len(r.text)+len(r.sc.data) > 1<<16 {
				return nil, &SyntaxError{Line: r.line(), Kind: SyntaxShape, Msg: "element text longer than 64 KiB"}
			}
			r.text = append(r.text, r.sc.data...)
		case tokStart:
			return nil, &SyntaxError{Line: r.line(), Kind: SyntaxShape, Msg: fmt.Sprintf("unexpected element <%s> inside a text element", r.sc.name.Local)}
		case tokEnd:
			return bytes.TrimSpace(r.text), nil
		}
	}
}

// isNamespaceDecl reports whether an attribute declares a namespace
// (xmlns="…" or xmlns:p="…"): a declaration, not data.
func isNamespaceDecl(n qname) bool {
	return n.Space == "xmlns" || n.Space == "" && n.Local == "xmlns"
}

// readMD sets md to the attributes of the <rs:md> just started, through
// batch unless it is nil.
func (r *Reader) readMD(md *MD, batch *stringBatch) {
	*md = MD{}
	for _, a := range r.sc.attrs {
		if isNamespaceDecl(a.name) {
			continue
		}
		if f := md.field(a.name); f != nil && batch != nil {
			batch.add(f, a.value)
		} else if f != nil {
			*f = string(a.value)
		} else {
			md.Extra = append(md.Extra, Attr{a.name.Space, a.name.Local, string(a.value)})
		}
	}
}

func (md *MD) field(n qname) *string {
	if i := attrIndex(mdAttrs[:], n); i >= 0 {
		return md.fields()[i]
	}
	return nil
}

// readLink sets the attributes of l to those of the <rs:ln> just started.
func (r *Reader) readLink(l *Link) {
	for _, a := range r.sc.attrs {
		if isNamespaceDecl(a.name) {
			continue
		}
		if f := l.field(a.name); f != nil {
			*f = string(a.value)
		} else {
			l.Extra = append(l.Extra, Attr{a.name.Space, a.name.Local, string(a.value)})
		}
	}
}

func (l *Link) field(n qname) *string {
	if i := attrIndex(linkAttrs[:], n); i >= 0 {
		return l.fields()[i]
	}
	return nil
}

func attrIndex(names []string, n qname) int {
	if n.Space != "" {
		return -1
	}
	for i, name := range names {
		if name == n.Local {
			return i
		}
	}
	return -1
}

// stringBatch makes the values of an entry (but its <loc>) one string,
// of which each value is a part: one allocation rather than one for
// each.
type stringBatch struct {
	buf  []byte
	refs []stringRef
}

type stringRef struct {
	dst        *string
	start, end int
}

func (b *stringBatch) reset() {
	b.buf, b.refs = b.buf[:0], b.refs[:0]
}

func (b *stringBatch) add(dst *string, v []byte) {
	b.refs = append(b.refs, stringRef{dst, len(b.buf), len(b.buf) + len(v)})
	b.buf = append(b.buf, v...)
}

// flush sets the strings added since the last reset.
func (b *stringBatch) flush() {
	all := string(b.buf)
	for _, ref := range b.refs {
		*ref.dst = all[ref.start:ref.end]
	}
	b.reset()
}
