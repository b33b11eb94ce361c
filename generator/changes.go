package generator

import (
	"fmt"
	"time"

	"github.com/rsgen/rsgen/internal/rsxml"
)

// A Change is one entry of a Change List (section 12.1): what happened to
// a resource, and when.
type Change struct {
	Resource           // the resource after the change; for a deletion, as it was last published
	Change   string    // rsxml.ChangeCreated, ChangeUpdated or ChangeDeleted
	Datetime time.Time // when the change happened: from <= Datetime <= until of its list
}

// entry fills e with c as an entry of a change document. Both lastmod and
// datetime are written: 1.1 clients read datetime, 0.9 and 1.0 clients the
// lastmod, which they take for the time of the change. A deletion carries
// no digest or length: there are no bytes left to check.
func (c *Change) entry(e *rsxml.Entry) {
	*e = rsxml.Entry{Loc: c.Loc, Links: c.Links}
	e.Lastmod = rsxml.FormatTime(c.Datetime.Truncate(time.Second))
	if c.Change != rsxml.ChangeDeleted && !c.Modified.IsZero() {
		e.Lastmod = rsxml.FormatTime(c.Modified.Truncate(time.Second))
	}
	e.MD.Change = c.Change
	e.MD.Datetime = rsxml.FormatTime(c.Datetime.Truncate(time.Second))
	if c.Change != rsxml.ChangeDeleted {
		e.MD.Hash = c.Hash
		if c.Length >= 0 {
			e.MD.Length = itoa(c.Length)
		}
		e.MD.Type = c.Type
	}
}

// writeChangeList writes changes, which must be in chronological order, as
// the Change List DocsDir/<name>.xml (split into parts under an index at
// that name past the limits), covering from to until. A zero until writes
// an open list, still growing.
func (b *build) writeChangeList(name string, changes []Change, from, until time.Time) (writtenList, error) {
	return b.writeChanges(name, len(changes), func(i int) time.Time { return changes[i].Datetime },
		func(i int, e *rsxml.Entry) { changes[i].entry(e) }, from, until)
}

// writeChanges is writeChangeList for n changes that fill gives in
// chronological order (see writeList); datetime(i) is the time of change i.
func (b *build) writeChanges(name string, n int, datetime func(i int) time.Time, fill func(i int, e *rsxml.Entry), from, until time.Time) (writtenList, error) {
	md := rsxml.MD{Capability: rsxml.CapChangeList, From: rsxml.FormatTime(from)}
	if !until.IsZero() {
		md.Until = rsxml.FormatTime(until)
	}
	spec := listSpec{
		name:   name,
		md:     md,
		links:  []rsxml.Link{{Rel: "up", Href: b.capabilityListURL()}},
		limits: b.cfg.Limits,
		partMD: func(first, last int) rsxml.MD {
			pm := rsxml.MD{From: rsxml.FormatTime(datetime(first).Truncate(time.Second))}
			if first == 0 {
				pm.From = md.From
			}
			if last == n-1 {
				pm.Until = md.Until
			} else {
				pm.Until = rsxml.FormatTime(datetime(last + 1).Truncate(time.Second))
			}
			return pm
		},
	}
	return b.writeList(spec, n, fill)
}

// timeWidth is the longest a datetime rsgen writes can be
// ("2006-01-02T15:04:05.999999999Z"): plans use it so that they hold
// whatever the times.
const timeWidth = "2006-01-02T15:04:05.999999999Z"

// writeChangeParts writes changes (chronological) as Change Lists named
// <stem>.xml or, past the limits, <stem>-00001.xml, …: each one a whole
// Change List whose own from and until are its share of [from, until]
// (they meet at the datetime of the first change of the next part, so that
// there is no gap). index(split) names the index the lists link to with
// rel="index", "" for none. It returns the entries of the lists for a
// Change List Index, in order.
func (b *build) writeChangeParts(stem string, changes []Change, from, until time.Time, index func(split bool) string) ([]rsxml.Entry, error) {
	return b.writeChangeEntries(stem, len(changes), func(i int) time.Time { return changes[i].Datetime },
		func(i int, e *rsxml.Entry) { changes[i].entry(e) }, from, until, index)
}

// writeChangeEntries is writeChangeParts for n changes that fill gives in
// chronological order; datetime(i) is the time of change i.
func (b *build) writeChangeEntries(stem string, n int, datetime func(i int) time.Time, fill func(i int, e *rsxml.Entry), from, until time.Time, index func(split bool) string) ([]rsxml.Entry, error) {
	up := rsxml.Link{Rel: "up", Href: b.capabilityListURL()}
	plan := rsxml.Doc{
		MD:    rsxml.MD{Capability: rsxml.CapChangeList, From: timeWidth, Until: timeWidth},
		Links: []rsxml.Link{up, {Rel: "index", Href: b.docURL(stem + ".xml")}},
	}
	if href := index(true); href != "" {
		plan.Links[1].Href = href
	}
	starts, err := planParts(stem, &plan, b.cfg.Limits, n, fill)
	if err != nil {
		return nil, err
	}
	if len(starts) == 0 {
		starts = []int{0} // no change: one empty list
	}
	if len(starts) > b.cfg.Limits.MaxEntries {
		return nil, fmt.Errorf("%s needs %d parts, more than one index may list (%d); raise --max-entries or --max-bytes", stem, len(starts), b.cfg.Limits.MaxEntries)
	}
	split := len(starts) > 1
	links := []rsxml.Link{up}
	if href := index(split); href != "" {
		links = append(links, rsxml.Link{Rel: "index", Href: href})
	}
	entries := make([]rsxml.Entry, len(starts))
	for p, first := range starts {
		last := n
		if p+1 < len(starts) {
			last = starts[p+1]
		}
		md := rsxml.MD{Capability: rsxml.CapChangeList, From: rsxml.FormatTime(from)}
		if p > 0 {
			md.From = rsxml.FormatTime(datetime(first).Truncate(time.Second))
		}
		switch {
		case last < n:
			md.Until = rsxml.FormatTime(datetime(last).Truncate(time.Second))
		case !until.IsZero():
			md.Until = rsxml.FormatTime(until)
		}
		name := stem + ".xml"
		if split {
			name = partName(stem, p+1)
		}
		if err := b.writeDoc(name, rsxml.Doc{MD: md, Links: links}, first, last, fill); err != nil {
			return nil, err
		}
		entries[p] = rsxml.Entry{Loc: b.docURL(name), MD: rsxml.MD{From: md.From, Until: md.Until}}
	}
	return entries, nil
}

// writeChangeListIndex writes a Change List Index (section 12.2) over the
// lists of entries, which are in chronological order and carry their from
// and until: its own from is the first list's, its until the last list's
// if that one is closed.
func (b *build) writeChangeListIndex(name string, entries []rsxml.Entry) error {
	md := rsxml.MD{Capability: rsxml.CapChangeList, From: entries[0].MD.From, Until: entries[len(entries)-1].MD.Until}
	doc := rsxml.Doc{Index: true, MD: md, Links: []rsxml.Link{{Rel: "up", Href: b.capabilityListURL()}}}
	return b.writeDoc(name, doc, 0, len(entries), func(i int, e *rsxml.Entry) { *e = entries[i] })
}
