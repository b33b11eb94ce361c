package spill

import (
	"slices"
	"strconv"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// A Resource is one published resource: an entry of the Resource List.
type Resource struct {
	Path     string          // slash-separated path under the source root; "" for a record without a local file
	Loc      string          // absolute URL
	Length   int64           // bytes; -1 if unknown
	Modified time.Time       // the lastmod; zero if unknown
	Hash     []hashing.Token // the digests: the build's (by its hashing.Set, in order), or those a record or the previous build gave
	Type     string          // media type, bare
	Links    []rsxml.Link

	Kept bool // the previous build's entry, kept as it was: the file could not be read (detect.Join.KeepUnread)
}

// Clone returns a copy of r that shares no memory that r's owner may
// reuse.
func (r *Resource) Clone() Resource {
	c := *r
	c.Links = slices.Clone(r.Links)
	c.Hash = slices.Clone(r.Hash)
	return c
}

// Entry fills e with r as an entry of a Resource List. e's slices are reused.
func (r *Resource) Entry(e *rsxml.Entry) {
	*e = rsxml.Entry{Loc: r.Loc, Links: r.Links}
	if !r.Modified.IsZero() {
		e.Lastmod = rsxml.FormatTime(r.Modified.Truncate(time.Second))
	}
	e.MD.Hash = hashing.FormatTokens(r.Hash)
	if r.Length >= 0 {
		e.MD.Length = strconv.FormatInt(r.Length, 10)
	}
	e.MD.Type = r.Type
}
