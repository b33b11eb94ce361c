package previous

import (
	"context"
	"strings"
	"time"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/rules"
)

// An Archive is an archive of ResourceSync Archives (sections 3 to 6):
// the documents of the past it lists, oldest first. Each is read and
// checked only when a build keeps it (ReadArchived…).
type Archive struct {
	URL   string
	Lists []ArchivedList
}

// An ArchivedList is an entry of an archive: a closed Change List (or
// Change Dump) covering From to Until, or a Resource List taken At.
type ArchivedList struct {
	URL         string
	Rel         string // URL relative to DocsBase ("resourcesync/archive/changelist-….xml"), "" if not under it
	From, Until time.Time
	At          time.Time // of a Resource List or Resource Dump
	Completed   time.Time // of a Resource List or Resource Dump, if its entry gives it
}

// readArchives reads the archives the Capability List points at, if any.
func (r *reader) readArchives(ctx context.Context) (err error) {
	s := r.site
	for _, a := range []*struct {
		dst        **Archive
		capability string
	}{{&s.ChangeListArchive, rsxml.CapChangeListArchive}, {&s.ChangeDumpArchive, rsxml.CapChangeDumpArchive},
		{&s.ResourceListArchive, rsxml.CapResourceListArchive}, {&s.ResourceDumpArchive, rsxml.CapResourceDumpArchive}} {
		if *a.dst, err = r.readArchive(ctx, a.capability); err != nil {
			return err
		}
	}
	return nil
}

// readArchive reads the archive of capability, if any (else nil): its
// entries distinct documents, oldest first, none after the snapshot of
// the Resource List.
func (r *reader) readArchive(ctx context.Context, capability string) (*Archive, error) {
	u := r.site.capability(capability)
	if u == "" {
		return nil, nil
	}
	doc, entries, _, err := r.fetch(ctx, u, capability)
	if err != nil {
		return nil, err
	}
	name := r.src.name(u)
	if doc.Index {
		return nil, newError(name, 0, ErrInvalid, "a %s Index; rsgen publishes its archive as one document", rules.Name(capability))
	}
	a := &Archive{URL: u}
	snapshots := capability == rsxml.CapResourceListArchive || capability == rsxml.CapResourceDumpArchive
	for _, e := range entries {
		if msg := rules.ArchiveEntry(capability, e.Loc, &e.MD); msg != "" {
			return nil, newError(name, e.Line, ErrInvalid, "%s", msg)
		}
		l := ArchivedList{URL: e.Loc, Rel: r.site.rel(e.Loc)}
		if snapshots {
			err = r.snapshotEntry(name, e, a, &l)
		} else {
			err = r.periodEntry(name, e, a, &l)
		}
		if err != nil {
			return nil, err
		}
		r.seen[e.Loc] = true
		a.Lists = append(a.Lists, l)
	}
	return a, nil
}

// snapshotEntry reads the entry e of a Resource List or Dump Archive a
// into l: an at after that of the entry before.
func (r *reader) snapshotEntry(name string, e *rsxml.Entry, a *Archive, l *ArchivedList) error {
	at, err := parseTime(name, e.Line, "at", e.MD.At)
	if err != nil {
		return err
	}
	switch {
	case at.After(r.site.At):
		return newError(name, e.Line, ErrInvalid, "%s was taken at %s, after the snapshot time of the Resource List (%s)",
			e.Loc, rsxml.FormatTime(at), rsxml.FormatTime(r.site.At))
	case r.seen[e.Loc]:
		return newError(name, e.Line, ErrInvalid, "%s is listed twice, or is another document of the build", e.Loc)
	}
	if n := len(a.Lists); n > 0 && !at.After(a.Lists[n-1].At) {
		return newError(name, e.Line, ErrInvalid, "at %s is not after that of the entry before it: an archive lists its documents oldest first", e.MD.At)
	}
	l.At = at
	if e.MD.Completed != "" {
		l.Completed, err = parseTime(name, e.Line, "completed", e.MD.Completed)
	}
	return err
}

// periodEntry reads the entry e of a Change List or Dump Archive a into l:
// a from and until, from the until of the entry before on.
func (r *reader) periodEntry(name string, e *rsxml.Entry, a *Archive, l *ArchivedList) error {
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
		return newError(name, e.Line, ErrInvalid, "%s", rules.Interval(e.MD.From, e.MD.Until, from, until))
	case until.After(r.site.At):
		return newError(name, e.Line, ErrInvalid, "%s covers until %s, after the snapshot time of the Resource List (%s)",
			e.Loc, rsxml.FormatTime(until), rsxml.FormatTime(r.site.At))
	case r.seen[e.Loc]:
		return newError(name, e.Line, ErrInvalid, "%s is listed twice, or is another document of the build", e.Loc)
	}
	if n := len(a.Lists); n > 0 && from.Before(a.Lists[n-1].Until) {
		return newError(name, e.Line, ErrInvalid, "from %s is before the until of the entry before it (%s): an archive lists its documents oldest first, without overlap",
			e.MD.From, rsxml.FormatTime(a.Lists[n-1].Until))
	}
	l.From, l.Until = from, until
	return nil
}

// ReadArchivedList reads the Resource List l of the Resource List Archive
// (taken at the at its entry gives) and, if it is an index, each part
// linked to it with rel="index", and calls fn with the URL and bytes of
// each document once checked, one at a time, the index last.
func (s *Site) ReadArchivedList(ctx context.Context, l *ArchivedList, fn func(u string, data []byte) error) error {
	r, doc, entries, data, err := s.readArchived(ctx, l, rsxml.CapResourceList, true)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !doc.Index {
			break // a list, not an index: its entries are resources
		}
		pdoc, _, pdata, err := r.fetch(ctx, e.Loc, rsxml.CapResourceList)
		if err != nil {
			return err
		}
		pname := s.src.name(e.Loc)
		if err := s.checkArchived(pname, pdoc, l, rules.Name(rsxml.CapResourceList), s.ResourceListArchive.URL, true); err != nil {
			return err
		}
		switch {
		case pdoc.Index:
			return indexInIndex(pname, l.URL)
		case pdoc.Link("index") != l.URL:
			return newError(pname, 0, ErrInvalid, "a part of the archived Resource List %s that does not link rel=\"index\" to it", l.URL)
		}
		if err := fn(e.Loc, pdata); err != nil {
			return err
		}
	}
	return fn(l.URL, data)
}

// ReadArchived reads the Change List l of the Change List Archive and
// returns its bytes once checked: closed, linked to no index, with the
// from and until its entry gives and its changes in order inside them.
func (s *Site) ReadArchived(ctx context.Context, l *ArchivedList) ([]byte, error) {
	_, _, entries, data, err := s.readArchived(ctx, l, rsxml.CapChangeList, false)
	if err != nil {
		return nil, err
	}
	if err := checkChanges(s.src.name(l.URL), entries, l.From, l.Until, false); err != nil {
		return nil, err
	}
	return data, nil
}

// ReadArchivedDump reads the Change Dump l of the Change Dump Archive and
// returns its bytes and packages once checked, as Read checks the Change
// Dump: linked to no index, with the from and until its entry gives, its
// packages closed and in order inside them.
func (s *Site) ReadArchivedDump(ctx context.Context, l *ArchivedList) ([]byte, []Package, error) {
	r, doc, entries, data, err := s.readArchived(ctx, l, rsxml.CapChangeDump, false)
	if err != nil {
		return nil, nil, err
	}
	cd := &ChangeDump{URL: l.URL}
	if err := r.addPackages(ctx, cd, l.URL, doc, entries); err != nil {
		return nil, nil, err
	}
	if len(cd.Packages) != len(entries) {
		return nil, nil, newError(s.src.name(l.URL), 0, ErrInvalid, "a package without from and until: every package of an archived Change Dump is closed")
	}
	return data, cd.Packages, nil
}

// ReadArchivedResourceDump reads the Resource Dump l of the Resource Dump
// Archive and returns its bytes and packages once checked: linked to no
// index, taken at the at its entry gives, its packages (and manifests)
// taken within its snapshot (rsxml.PackageTimes).
func (s *Site) ReadArchivedResourceDump(ctx context.Context, l *ArchivedList) ([]byte, []Package, error) {
	r, doc, entries, data, err := s.readArchived(ctx, l, rsxml.CapResourceDump, false)
	if err != nil {
		return nil, nil, err
	}
	name := s.src.name(l.URL)
	var pkgs []Package
	for _, e := range entries {
		p, mdoc, err := r.parsePackage(ctx, name, e, rsxml.CapResourceDumpManifest)
		if err != nil {
			return nil, nil, err
		}
		if err := packageTimes(name, doc, &p, mdoc); err != nil {
			return nil, nil, err
		}
		pkgs = append(pkgs, p)
	}
	return data, pkgs, nil
}

// readArchived reads the document l of the archive of capability and
// checks it against its entry; an index only if index (rsgen archives a
// dump or Change List as one document).
func (s *Site) readArchived(ctx context.Context, l *ArchivedList, capability string, index bool) (*reader, *rsxml.Doc, []*rsxml.Entry, []byte, error) {
	what := rules.Name(capability)
	r := &reader{opts: s.opts, site: s, src: s.src, seen: map[string]bool{}}
	doc, entries, data, err := r.fetch(ctx, l.URL, capability)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	archive := s.capability(capability + "-archive")
	switch {
	case doc.Index && !index:
		return nil, nil, nil, nil, newError(s.src.name(l.URL), 0, ErrInvalid, "a %s Index, listed by the %s Archive %s as a %s", what, what, archive, what)
	case capability == rsxml.CapChangeList && doc.MD.Until == "":
		return nil, nil, nil, nil, newError(s.src.name(l.URL), 0, ErrInvalid, "an open Change List (no until) in the Change List Archive %s: an archived list is closed", archive)
	}
	if err := s.checkArchived(s.src.name(l.URL), doc, l, what, archive, false); err != nil {
		return nil, nil, nil, nil, err
	}
	return r, doc, entries, data, nil
}

// packageTimes checks the times of the package p of the dump doc and of
// its manifest mdoc (or nil) by rsxml.PackageTimes.
func packageTimes(name string, doc *rsxml.Doc, p *Package, mdoc *rsxml.Doc) error {
	var manifest *rsxml.MD
	if mdoc != nil {
		manifest = &mdoc.MD
	}
	if msg := rsxml.PackageTimes(&doc.MD, &p.Entry.MD, manifest); msg != "" {
		return newError(name, p.Entry.Line, ErrInvalid, "package %s: %s", p.URL, msg)
	}
	return nil
}

// checkArchived checks doc, a what ("Change List"), against the entry l
// of archive that lists it (or the index it is a part of): the times the
// entry gives, no rel="index" link unless part, and rel="up" to the
// Capability List, as it is published again byte for byte.
func (s *Site) checkArchived(name string, doc *rsxml.Doc, l *ArchivedList, what, archive string, part bool) error {
	for _, t := range []struct {
		attr, v string
		want    time.Time
	}{{"at", doc.MD.At, l.At}, {"from", doc.MD.From, l.From}, {"until", doc.MD.Until, l.Until}} {
		if !t.want.IsZero() && !sameTime(t.v, t.want) {
			return newError(name, 0, ErrInvalid, "%s is %q, but the %s Archive %s says %s", t.attr, t.v, what, archive, rsxml.FormatTime(t.want))
		}
	}
	if idx := doc.Link("index"); idx != "" && !part {
		return newError(name, 0, ErrInvalid, "links rel=\"index\" to %s, but an archived %s is listed by the %s Archive %s, not an index", idx, what, what, archive)
	}
	if up := doc.Link("up"); up != "" && up != s.CapabilityList {
		return newError(name, 0, ErrInvalid, "links rel=\"up\" to %s, not to the Capability List %s", up, s.CapabilityList)
	}
	return nil
}

// sameTime reports whether the datetime v is the instant t.
func sameTime(v string, t time.Time) bool {
	vt, err := rsxml.ParseTime(strings.TrimSpace(v))
	return err == nil && vt.Equal(t)
}
