package rsxml

import (
	"bytes"
	"fmt"
	"slices"
)

// readText reads the character content of the element just started,
// trimmed. It lasts until the next call.
func (r *Reader) readText() ([]byte, error) {
	r.text = r.text[:0]
	for {
		if err := r.token(false); err != nil {
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
	f := md.fields()
	r.readAttrs(mdAttrs[:], f[:], &md.Extra, batch)
}

// readLink sets the attributes of l to those of the <rs:ln> just started.
func (r *Reader) readLink(l *Link) {
	f := l.fields()
	r.readAttrs(linkAttrs[:], f[:], &l.Extra, nil)
}

// readAttrs sets fields[i] to the attribute names[i] of the element just
// started, through batch unless it is nil, and appends the others to extra.
func (r *Reader) readAttrs(names []string, fields []*string, extra *[]Attr, batch *stringBatch) {
	for _, a := range r.sc.attrs {
		if isNamespaceDecl(a.name) {
			continue
		}
		i := -1
		if a.name.Space == "" {
			i = slices.Index(names, a.name.Local)
		}
		switch {
		case i < 0:
			*extra = append(*extra, Attr{a.name.Space, a.name.Local, string(a.value)})
		case batch != nil:
			batch.add(fields[i], a.value)
		default:
			*fields[i] = string(a.value)
		}
	}
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
