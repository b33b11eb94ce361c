package generator

import (
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
