package spill

import (
	"strconv"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// A Change is one entry of a Change List (section 12.1): what happened to
// a resource, and when.
type Change struct {
	Resource           // the resource after the change; for a deletion, as it was last published
	Change   string    // rsxml.ChangeCreated, ChangeUpdated or ChangeDeleted
	Datetime time.Time // when the change happened: from <= Datetime <= until of its list
}

// Entry fills e with c as an entry of a change document. Both lastmod and
// datetime are written: 1.1 clients read datetime, 0.9 and 1.0 clients the
// lastmod, which they take for the time of the change. A deletion carries
// no digest or length: there are no bytes left to check.
func (c *Change) Entry(e *rsxml.Entry) {
	*e = rsxml.Entry{Loc: c.Loc, Links: c.Links}
	e.Lastmod = rsxml.FormatTime(c.Datetime.Truncate(time.Second))
	if c.Change != rsxml.ChangeDeleted && !c.Modified.IsZero() {
		e.Lastmod = rsxml.FormatTime(c.Modified.Truncate(time.Second))
	}
	e.MD.Change = c.Change
	e.MD.Datetime = rsxml.FormatTime(c.Datetime.Truncate(time.Second))
	if c.Change != rsxml.ChangeDeleted {
		e.MD.Hash = hashing.FormatTokens(c.Hash)
		if c.Length >= 0 {
			e.MD.Length = strconv.FormatInt(c.Length, 10)
		}
		e.MD.Type = c.Type
	}
}
