package previous

import (
	"context"
	"crypto/sha256"
	"strings"
	"time"

	"github.com/rsgen/rsgen/internal/rsxml"
)

// A ChangeListArchive is a Change List Archive (ResourceSync Archives,
// section 5): the closed Change Lists of the past it lists, each checked,
// in its order (chronological).
type ChangeListArchive struct {
	URL   string
	Lists []ChangeList
}

// readChangeListArchive reads the Change List Archive the Capability List
// points at, if any, and every Change List it lists: each must be a closed
// Change List whose from and until are those its entry gives, after the
// one before it and not after the snapshot of the Resource List.
func (r *reader) readChangeListArchive(ctx context.Context) error {
	u := r.site.capability(rsxml.CapChangeListArchive)
	if u == "" {
		return nil
	}
	doc, entries, _, err := r.fetch(ctx, u, rsxml.CapChangeListArchive)
	if err != nil {
		return err
	}
	name := r.src.name(u)
	if doc.Index {
		return newError(name, 0, ErrInvalid, "a Change List Archive Index; rsgen publishes its archive as one document")
	}
	a := &ChangeListArchive{URL: u}
	var bytes int64
	for _, e := range entries {
		if e.MD.From == "" || e.MD.Until == "" {
			return newError(name, e.Line, ErrInvalid, "the entry %s has no from or no until, which an entry of a Change List Archive must have (ResourceSync Archives, section 5)", e.Loc)
		}
		from, err := parseTime(name, e.Line, "from", e.MD.From)
		if err != nil {
			return err
		}
		until, err := parseTime(name, e.Line, "until", e.MD.Until)
		if err != nil {
			return err
		}
		if bytes > r.opts.MaxChangeListBytes {
			return newError(name, e.Line, ErrLimit, "the archived Change Lists, %d so far, are more than %d bytes together", len(a.Lists), r.opts.MaxChangeListBytes)
		}
		ldoc, lentries, ldata, err := r.fetch(ctx, e.Loc, rsxml.CapChangeList)
		if err != nil {
			return err
		}
		lname := r.src.name(e.Loc)
		switch {
		case ldoc.Index:
			return newError(lname, 0, ErrInvalid, "a Change List Index, listed by the Change List Archive %s as a Change List", u)
		case !sameTime(ldoc.MD.From, from):
			return newError(lname, 0, ErrInvalid, "from is %q, but the Change List Archive %s says %s", ldoc.MD.From, u, e.MD.From)
		case ldoc.MD.Until == "":
			return newError(lname, 0, ErrInvalid, "an open Change List (no until) in the Change List Archive %s: an archived list is closed", u)
		case !sameTime(ldoc.MD.Until, until):
			return newError(lname, 0, ErrInvalid, "until is %q, but the Change List Archive %s says %s", ldoc.MD.Until, u, e.MD.Until)
		case until.Before(from):
			return newError(name, e.Line, ErrInvalid, "until %s is before from %s", e.MD.Until, e.MD.From)
		case until.After(r.site.At):
			return newError(lname, 0, ErrInvalid, "covers until %s, after the snapshot time of the Resource List (%s)",
				rsxml.FormatTime(until), rsxml.FormatTime(r.site.At))
		}
		if n := len(a.Lists); n > 0 && from.Before(a.Lists[n-1].Until) {
			return newError(name, e.Line, ErrInvalid, "from %s is before the until of the entry before it (%s): an archive lists its Change Lists oldest first, without overlap",
				e.MD.From, rsxml.FormatTime(a.Lists[n-1].Until))
		}
		if err := checkChanges(lname, lentries, from, until); err != nil {
			return err
		}
		cl := ChangeList{URL: e.Loc, From: from, Until: until, Entries: len(lentries), Bytes: int64(len(ldata)), sum: sha256.Sum256(ldata), Index: ldoc.Link("index")}
		if rel, ok := strings.CutPrefix(e.Loc, r.site.DocsBase); ok {
			cl.Rel = rel
		}
		a.Lists = append(a.Lists, cl)
		bytes += cl.Bytes
	}
	r.site.ChangeListArchive = a
	return nil
}

// sameTime reports whether the datetime v is the instant t.
func sameTime(v string, t time.Time) bool {
	vt, err := rsxml.ParseTime(strings.TrimSpace(v))
	return err == nil && vt.Equal(t)
}
