package previous

import (
	"context"
	"strings"
	"time"

	"github.com/rsgen/rsgen/internal/rsxml"
)

// A ChangeListArchive is a Change List Archive (ResourceSync Archives,
// section 5): the closed Change Lists of the past it lists, in its order
// (chronological). Read checks the archive; each list is read and checked
// by ReadArchived, when a build keeps it: one it drops is never fetched.
type ChangeListArchive struct {
	URL   string
	Lists []ArchivedList
}

// An ArchivedList is an entry of a Change List Archive: a closed Change
// List covering From to Until.
type ArchivedList struct {
	URL         string
	Rel         string // URL relative to DocsBase ("resourcesync/archive/changelist-….xml"), "" if not under it
	From, Until time.Time
	line        int // of its entry in the archive
}

// readChangeListArchive reads the Change List Archive the Capability List
// points at, if any: its entries must give the from and until of distinct
// lists, oldest first without overlap, none after the snapshot of the
// Resource List.
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
		switch {
		case until.Before(from):
			return newError(name, e.Line, ErrInvalid, "until %s is before from %s", e.MD.Until, e.MD.From)
		case until.After(r.site.At):
			return newError(name, e.Line, ErrInvalid, "%s covers until %s, after the snapshot time of the Resource List (%s)",
				e.Loc, rsxml.FormatTime(until), rsxml.FormatTime(r.site.At))
		case r.seen[e.Loc]:
			return newError(name, e.Line, ErrInvalid, "%s is listed twice, or is another document of the build", e.Loc)
		}
		if n := len(a.Lists); n > 0 && from.Before(a.Lists[n-1].Until) {
			return newError(name, e.Line, ErrInvalid, "from %s is before the until of the entry before it (%s): an archive lists its Change Lists oldest first, without overlap",
				e.MD.From, rsxml.FormatTime(a.Lists[n-1].Until))
		}
		r.seen[e.Loc] = true
		l := ArchivedList{URL: e.Loc, From: from, Until: until, line: e.Line}
		if rel, ok := strings.CutPrefix(e.Loc, r.site.DocsBase); ok {
			l.Rel = rel
		}
		a.Lists = append(a.Lists, l)
	}
	r.site.ChangeListArchive = a
	return nil
}

// ReadArchived reads the Change List l of the Change List Archive and
// returns its bytes, once checked: a closed Change List, linked to no
// index, whose from and until are those its entry gives, with its changes
// in order inside them.
func (s *Site) ReadArchived(ctx context.Context, l *ArchivedList) ([]byte, error) {
	name := s.src.name(l.URL)
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	data, err := s.src.get(ctx, l.URL, s.limits.maxBytes)
	if err != nil {
		return nil, err
	}
	doc, entries, err := parse(name, data, s.limits.maxBytes, s.limits.maxEntries)
	if err != nil {
		return nil, err
	}
	archive := s.ChangeListArchive.URL
	switch {
	case doc.MD.Capability != rsxml.CapChangeList:
		return nil, newError(name, 0, ErrCapability, "capability %q where %q was expected", doc.MD.Capability, rsxml.CapChangeList)
	case doc.Index:
		return nil, newError(name, 0, ErrInvalid, "a Change List Index, listed by the Change List Archive %s as a Change List", archive)
	case doc.MD.Until == "":
		return nil, newError(name, 0, ErrInvalid, "an open Change List (no until) in the Change List Archive %s: an archived list is closed", archive)
	case !sameTime(doc.MD.From, l.From):
		return nil, newError(name, 0, ErrInvalid, "from is %q, but the Change List Archive %s says %s", doc.MD.From, archive, rsxml.FormatTime(l.From))
	case !sameTime(doc.MD.Until, l.Until):
		return nil, newError(name, 0, ErrInvalid, "until is %q, but the Change List Archive %s says %s", doc.MD.Until, archive, rsxml.FormatTime(l.Until))
	case doc.Link("index") != "":
		return nil, newError(name, 0, ErrInvalid, "links rel=\"index\" to %s, but an archived Change List is listed by the Change List Archive %s, not an index", doc.Link("index"), archive)
	}
	if err := checkChanges(name, entries, l.From, l.Until); err != nil {
		return nil, err
	}
	return data, nil
}

// sameTime reports whether the datetime v is the instant t.
func sameTime(v string, t time.Time) bool {
	vt, err := rsxml.ParseTime(strings.TrimSpace(v))
	return err == nil && vt.Equal(t)
}
