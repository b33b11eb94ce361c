package generator

import (
	"time"

	"github.com/rsgen/rsgen/generator/internal/changelists"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/internal/listwriter"
	"github.com/rsgen/rsgen/internal/rsxml"
)

// A Change is one entry of a Change List (section 12.1): what happened to
// a resource, and when.
type Change = spill.Change

// writeChanges writes the Change List DocsDir/<name>.xml (split into
// parts under an index at that name past the limits) of n changes that
// fill gives in chronological order (see writeList), covering from to
// until; a zero until writes an open list, still growing. A part starts at
// the datetime of its first change.
func (b *build) writeChanges(name string, n int, fill func(i int, e *rsxml.Entry), from, until time.Time) (listwriter.Written, error) {
	return b.docs.List(changelists.Options(b.docs, name, from, until, "", changelists.ChangeTime), n, fill)
}
