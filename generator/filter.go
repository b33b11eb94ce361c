package generator

import (
	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/inputs/tree"
	"github.com/rsgen/rsgen/internal/text/units"
)

// A Filter decides which files of a tree are published.
type Filter struct {
	Include units.List `toml:"include"` // doublestar patterns; if any, a file must match one
	Exclude units.List `toml:"exclude"` // doublestar patterns; a match is never published
	Hidden  bool       `toml:"hidden"`  // publish names starting with "." too
}

// Limits bound the size of one document (section 7). Both may be lowered
// from the spec's 50,000 entries and 50 MB, never raised.
type Limits struct {
	MaxEntries int        `toml:"max-entries"`
	MaxBytes   units.Size `toml:"max-bytes"`
}

func (l Limits) list() listwriter.Limits {
	return listwriter.Limits{MaxEntries: l.MaxEntries, MaxBytes: int64(l.MaxBytes)}
}

func (f *Filter) tree() *tree.Filter {
	return &tree.Filter{Include: f.Include, Exclude: f.Exclude, Hidden: f.Hidden}
}
