package generator

import (
	"cmp"
	"fmt"

	"github.com/rsgen/rsgen/internal/rsxml"
)

// Limits bound the size of one document (section 7). Both may be lowered
// from the spec's 50,000 entries and 50 MB, never raised.
type Limits struct {
	MaxEntries int
	MaxBytes   int64
}

// DefaultLimits are the limits of the spec.
var DefaultLimits = Limits{MaxEntries: rsxml.MaxEntries, MaxBytes: rsxml.MaxBytes}

// A listSpec describes a list that is split into parts under an index when
// it passes the limits.
type listSpec struct {
	name   string   // file name stem under DocsDir: name.xml, name-00001.xml, …
	md     rsxml.MD // root <rs:md> of the list, and of its index
	links  []rsxml.Link
	limits Limits
	// partMD, if set, gives the <rs:md> of the index entry for a part
	// holding entries [first, last].
	partMD func(first, last int) rsxml.MD
}

// writtenList says what writeList published.
type writtenList struct {
	Name  string // the document to link to: the list, or the index over its parts
	Index bool   // Name is an index
	Docs  int    // documents written
}

func partName(name string, i int) string { return fmt.Sprintf("%s-%05d.xml", name, i) }

// writeList writes the n entries that fill produces, in order, as the
// document DocsDir/<name>.xml or, past the limits, as parts under an index
// at that same name, so that the URL a Destination knows never changes.
//
// It plans first: each entry is rendered once to measure it against the
// limits, so the parts know from their first byte whether they belong to an
// index. fill may be called twice for the same i and must fill the same entry.
func (b *build) writeList(spec listSpec, n int, fill func(i int, e *rsxml.Entry)) (writtenList, error) {
	// Plan: the first entry of each part. The header of a part carries the
	// rel="index" link; a list that ends up whole has a shorter header, so
	// a plan made with it holds for both.
	partDoc := rsxml.Doc{MD: spec.md, Links: append(append([]rsxml.Link(nil), spec.links...), rsxml.Link{Rel: "index", Href: b.docURL(spec.name + ".xml")})}
	// A part of a change document covers the interval of its entry in the
	// index (section 12.2): its own from and, but for the last part of an
	// open list, until. The plan counts the header with an until.
	timed := spec.md.From != "" && spec.partMD != nil
	planDoc := partDoc
	if timed && planDoc.MD.Until == "" {
		planDoc.MD.Until = "0000-00-00T00:00:00Z" // as long as the until of a part (whole seconds)
	}
	starts, err := planParts(spec.name, &planDoc, spec.limits, n, fill)
	if err != nil {
		return writtenList{}, err
	}
	if len(starts) <= 1 {
		doc := rsxml.Doc{MD: spec.md, Links: spec.links}
		if err := b.writeDoc(spec.name+".xml", doc, 0, n, fill); err != nil {
			return writtenList{}, err
		}
		return writtenList{Name: spec.name + ".xml", Docs: 1}, nil
	}
	if len(starts) > spec.limits.MaxEntries {
		return writtenList{}, fmt.Errorf("%s needs %d parts, more than one index may list (%d); raise --max-entries or --max-bytes", spec.name, len(starts), spec.limits.MaxEntries)
	}
	// An index cannot be split in turn: it must fit the limits too.
	idx := rsxml.Doc{Index: true, MD: spec.md, Links: spec.links}
	index := make([]rsxml.Entry, len(starts))
	isize := int64(len(rsxml.AppendHeader(nil, &idx)) + len(rsxml.AppendFooter(nil, &idx)))
	var buf []byte
	for p, first := range starts {
		last := n - 1
		if p+1 < len(starts) {
			last = starts[p+1] - 1
		}
		index[p].Loc = b.docURL(partName(spec.name, p+1))
		if spec.partMD != nil {
			index[p].MD = spec.partMD(first, last)
		}
		buf = rsxml.AppendEntry(buf[:0], true, &index[p])
		isize += int64(len(buf))
	}
	if isize > spec.limits.MaxBytes {
		return writtenList{}, fmt.Errorf("%s needs %d parts, and an index over them would be %d bytes, more than --max-bytes allows in a document (%d); raise --max-bytes",
			spec.name, len(starts), isize, spec.limits.MaxBytes)
	}
	for p, first := range starts {
		last := n - 1
		if p+1 < len(starts) {
			last = starts[p+1] - 1
		}
		doc := partDoc
		if timed {
			doc.MD.From, doc.MD.Until = cmp.Or(index[p].MD.From, spec.md.From), index[p].MD.Until
		}
		if err := b.writeDoc(partName(spec.name, p+1), doc, first, last+1, fill); err != nil {
			return writtenList{}, err
		}
	}
	if err := b.writeDoc(spec.name+".xml", idx, 0, len(index), func(i int, e *rsxml.Entry) { *e = index[i] }); err != nil {
		return writtenList{}, err
	}
	return writtenList{Name: spec.name + ".xml", Index: true, Docs: len(starts) + 1}, nil
}

// planParts returns the index of the first entry of each part when the n
// entries that fill produces are split into documents with the header of
// doc, within limits. It renders each entry once to measure it.
func planParts(name string, doc *rsxml.Doc, limits Limits, n int, fill func(i int, e *rsxml.Entry)) ([]int, error) {
	fixed := int64(len(rsxml.AppendHeader(nil, doc)) + len(rsxml.AppendFooter(nil, doc)))
	var starts []int
	var e rsxml.Entry
	var buf []byte
	size, count := fixed, 0
	for i := 0; i < n; i++ {
		fill(i, &e)
		buf = rsxml.AppendEntry(buf[:0], doc.Index, &e)
		l := int64(len(buf))
		if fixed+l > limits.MaxBytes {
			return nil, fmt.Errorf("an entry of %s (%s) is %d bytes, more than --max-bytes allows in a document", name, e.Loc, l)
		}
		if i == 0 || count == limits.MaxEntries || size+l > limits.MaxBytes {
			starts = append(starts, i)
			size, count = fixed, 0
		}
		size += l
		count++
	}
	return starts, nil
}

// writeDoc stages DocsDir/name with entries [from, to) of fill.
func (b *build) writeDoc(name string, doc rsxml.Doc, from, to int, fill func(i int, e *rsxml.Entry)) error {
	f, err := b.stage.Create(DocsDir + "/" + name)
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	w := rsxml.NewWriter(f, doc)
	var e rsxml.Entry
	for i := from; i < to; i++ {
		fill(i, &e)
		if err := w.Add(&e); err != nil {
			break
		}
	}
	err = w.Close()
	if err = closeAfter(f, err); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	b.docs++
	return nil
}
