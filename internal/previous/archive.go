package previous

import (
	"context"
	"strings"
	"time"

	"github.com/rsgen/rsgen/internal/rsxml"
)

// An Archive is a Change List Archive or a Change Dump Archive
// (ResourceSync Archives, sections 5 and 6): the closed documents of the
// past it lists, in its order (chronological). Read checks the archive;
// each document is read and checked when a build keeps it (ReadArchived,
// ReadArchivedDump): one it drops is never fetched.
type Archive struct {
	URL   string
	Lists []ArchivedList
}

// A ChangeListArchive is a Change List Archive.
type ChangeListArchive = Archive

// An ArchivedList is an entry of an archive: a closed Change List (or
// Change Dump) covering From to Until, or a Resource List taken At.
type ArchivedList struct {
	URL         string
	Rel         string // URL relative to DocsBase ("resourcesync/archive/changelist-….xml"), "" if not under it
	From, Until time.Time
	At          time.Time // of a Resource List or Resource Dump
	Completed   time.Time // of a Resource List or Resource Dump, if its entry gives it
	line        int       // of its entry in the archive
}

// readArchives reads the archives the Capability List points at, if any.
func (r *reader) readArchives(ctx context.Context) error {
	var err error
	if r.site.ChangeListArchive, err = r.readArchive(ctx, rsxml.CapChangeListArchive, "Change List Archive"); err != nil {
		return err
	}
	if r.site.ChangeDumpArchive, err = r.readArchive(ctx, rsxml.CapChangeDumpArchive, "Change Dump Archive"); err != nil {
		return err
	}
	if r.site.ResourceListArchive, err = r.readSnapshotArchive(ctx, rsxml.CapResourceListArchive, "Resource List Archive"); err != nil {
		return err
	}
	r.site.ResourceDumpArchive, err = r.readSnapshotArchive(ctx, rsxml.CapResourceDumpArchive, "Resource Dump Archive")
	return err
}

// fetchArchive fetches the archive of capability the Capability List
// points at, if any (else it returns a nil Archive), and returns it empty,
// with its name for errors and its entries.
func (r *reader) fetchArchive(ctx context.Context, capability, what string) (*Archive, string, []*rsxml.Entry, error) {
	u := r.site.capability(capability)
	if u == "" {
		return nil, "", nil, nil
	}
	doc, entries, _, err := r.fetch(ctx, u, capability)
	if err != nil {
		return nil, "", nil, err
	}
	name := r.src.name(u)
	if doc.Index {
		return nil, "", nil, newError(name, 0, ErrInvalid, "a %s Index; rsgen publishes its archive as one document", what)
	}
	return &Archive{URL: u}, name, entries, nil
}

// readSnapshotArchive reads the archive of snapshots (a Resource List
// Archive) of capability the Capability List points at, if any: its
// entries must give the at of distinct documents, oldest first, none after
// the snapshot of the Resource List.
func (r *reader) readSnapshotArchive(ctx context.Context, capability, what string) (*Archive, error) {
	a, name, entries, err := r.fetchArchive(ctx, capability, what)
	if a == nil || err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.MD.At == "" {
			return nil, newError(name, e.Line, ErrInvalid, "the entry %s has no at, which an entry of a %s must have (ResourceSync Archives)", e.Loc, what)
		}
		at, err := parseTime(name, e.Line, "at", e.MD.At)
		if err != nil {
			return nil, err
		}
		switch {
		case at.After(r.site.At):
			return nil, newError(name, e.Line, ErrInvalid, "%s was taken at %s, after the snapshot time of the Resource List (%s)",
				e.Loc, rsxml.FormatTime(at), rsxml.FormatTime(r.site.At))
		case r.seen[e.Loc]:
			return nil, newError(name, e.Line, ErrInvalid, "%s is listed twice, or is another document of the build", e.Loc)
		}
		if n := len(a.Lists); n > 0 && !at.After(a.Lists[n-1].At) {
			return nil, newError(name, e.Line, ErrInvalid, "at %s is not after that of the entry before it: an archive lists its documents oldest first", e.MD.At)
		}
		r.seen[e.Loc] = true
		l := ArchivedList{URL: e.Loc, At: at, line: e.Line}
		if e.MD.Completed != "" {
			if l.Completed, err = parseTime(name, e.Line, "completed", e.MD.Completed); err != nil {
				return nil, err
			}
		}
		if rel, ok := strings.CutPrefix(e.Loc, r.site.DocsBase); ok {
			l.Rel = rel
		}
		a.Lists = append(a.Lists, l)
	}
	return a, nil
}

// ReadArchivedList reads the Resource List l of the Resource List Archive,
// and, if it is an index, each of its parts, and calls fn with the URL and
// bytes of each document, once checked: a Resource List taken at the at
// its entry gives, its parts linked to it with rel="index"; the index
// last. The documents are read one at a time.
func (s *Site) ReadArchivedList(ctx context.Context, l *ArchivedList, fn func(u string, data []byte) error) error {
	r := &reader{opts: s.opts, site: s, src: s.src, seen: map[string]bool{}}
	archive := s.ResourceListArchive.URL
	check := func(u string, doc *rsxml.Doc) error {
		name := s.src.name(u)
		switch {
		case !sameTime(doc.MD.At, l.At):
			return newError(name, 0, ErrInvalid, "at is %q, but the Resource List Archive %s says %s", doc.MD.At, archive, rsxml.FormatTime(l.At))
		case u == l.URL && doc.Link("index") != "":
			return newError(name, 0, ErrInvalid, "links rel=\"index\" to %s, but an archived Resource List is listed by the Resource List Archive %s, not an index", doc.Link("index"), archive)
		}
		return s.checkUp(name, doc)
	}
	doc, entries, data, err := r.fetch(ctx, l.URL, rsxml.CapResourceList)
	if err != nil {
		return err
	}
	if err := check(l.URL, doc); err != nil {
		return err
	}
	if doc.Index {
		for _, e := range entries {
			pdoc, _, pdata, err := r.fetch(ctx, e.Loc, rsxml.CapResourceList)
			if err != nil {
				return err
			}
			if err := check(e.Loc, pdoc); err != nil {
				return err
			}
			pname := s.src.name(e.Loc)
			switch {
			case pdoc.Index:
				return newError(pname, 0, ErrInvalid, "an index listed by the index %s; an index lists only lists", l.URL)
			case pdoc.Link("index") != l.URL:
				return newError(pname, 0, ErrInvalid, "a part of the archived Resource List %s that does not link rel=\"index\" to it", l.URL)
			}
			if err := fn(e.Loc, pdata); err != nil {
				return err
			}
		}
	}
	return fn(l.URL, data)
}

// readArchive reads the archive of capability the Capability List points
// at, if any: its entries must give the from and until of distinct
// documents, oldest first without overlap, none after the snapshot of the
// Resource List.
func (r *reader) readArchive(ctx context.Context, capability, what string) (*Archive, error) {
	a, name, entries, err := r.fetchArchive(ctx, capability, what)
	if a == nil || err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.MD.From == "" || e.MD.Until == "" {
			return nil, newError(name, e.Line, ErrInvalid, "the entry %s has no from or no until, which an entry of a %s must have (ResourceSync Archives)", e.Loc, what)
		}
		from, err := parseTime(name, e.Line, "from", e.MD.From)
		if err != nil {
			return nil, err
		}
		until, err := parseTime(name, e.Line, "until", e.MD.Until)
		if err != nil {
			return nil, err
		}
		switch {
		case until.Before(from):
			return nil, newError(name, e.Line, ErrInvalid, "until %s is before from %s", e.MD.Until, e.MD.From)
		case until.After(r.site.At):
			return nil, newError(name, e.Line, ErrInvalid, "%s covers until %s, after the snapshot time of the Resource List (%s)",
				e.Loc, rsxml.FormatTime(until), rsxml.FormatTime(r.site.At))
		case r.seen[e.Loc]:
			return nil, newError(name, e.Line, ErrInvalid, "%s is listed twice, or is another document of the build", e.Loc)
		}
		if n := len(a.Lists); n > 0 && from.Before(a.Lists[n-1].Until) {
			return nil, newError(name, e.Line, ErrInvalid, "from %s is before the until of the entry before it (%s): an archive lists its documents oldest first, without overlap",
				e.MD.From, rsxml.FormatTime(a.Lists[n-1].Until))
		}
		r.seen[e.Loc] = true
		l := ArchivedList{URL: e.Loc, From: from, Until: until, line: e.Line}
		if rel, ok := strings.CutPrefix(e.Loc, r.site.DocsBase); ok {
			l.Rel = rel
		}
		a.Lists = append(a.Lists, l)
	}
	return a, nil
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
	data, err := s.src.get(ctx, l.URL, s.opts.MaxBytes)
	if err != nil {
		return nil, err
	}
	doc, entries, err := parse(name, data, s.opts.MaxBytes, s.opts.MaxEntries)
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
	if err := s.checkUp(name, doc); err != nil {
		return nil, err
	}
	if err := checkChanges(name, entries, l.From, l.Until); err != nil {
		return nil, err
	}
	return data, nil
}

// ReadArchivedDump reads the Change Dump l of the Change Dump Archive and
// returns its bytes and its packages, once checked: a Change Dump, linked
// to no index, whose from and until are those its entry gives, listing
// closed ZIP packages in order inside them, each checked as Read checks
// those of the Change Dump, with the copy of the manifest it links to.
func (s *Site) ReadArchivedDump(ctx context.Context, l *ArchivedList) ([]byte, []Package, error) {
	r := &reader{opts: s.opts, site: s, src: s.src, seen: map[string]bool{}}
	doc, entries, data, err := r.fetch(ctx, l.URL, rsxml.CapChangeDump)
	if err != nil {
		return nil, nil, err
	}
	name := s.src.name(l.URL)
	archive := s.ChangeDumpArchive.URL
	switch {
	case doc.Index:
		return nil, nil, newError(name, 0, ErrInvalid, "a Change Dump Index, listed by the Change Dump Archive %s as a Change Dump", archive)
	case !sameTime(doc.MD.From, l.From):
		return nil, nil, newError(name, 0, ErrInvalid, "from is %q, but the Change Dump Archive %s says %s", doc.MD.From, archive, rsxml.FormatTime(l.From))
	case !sameTime(doc.MD.Until, l.Until):
		return nil, nil, newError(name, 0, ErrInvalid, "until is %q, but the Change Dump Archive %s says %s", doc.MD.Until, archive, rsxml.FormatTime(l.Until))
	case doc.Link("index") != "":
		return nil, nil, newError(name, 0, ErrInvalid, "links rel=\"index\" to %s, but an archived Change Dump is listed by the Change Dump Archive %s, not an index", doc.Link("index"), archive)
	}
	if err := s.checkUp(name, doc); err != nil {
		return nil, nil, err
	}
	cd := &ChangeDump{URL: l.URL}
	if err := r.addPackages(ctx, cd, l.URL, doc, entries); err != nil {
		return nil, nil, err
	}
	if len(cd.Packages) != len(entries) {
		return nil, nil, newError(name, 0, ErrInvalid, "a package without from and until: every package of an archived Change Dump is closed")
	}
	return data, cd.Packages, nil
}

// ReadArchivedResourceDump reads the Resource Dump l of the Resource Dump
// Archive and returns its bytes and its packages, once checked: one
// Resource Dump, linked to no index, taken at the at its entry gives,
// listing ZIP packages, each with the copy of its manifest if it links to
// one, taken within the dump's snapshot (rsxml.PackageTimes), as Read
// checks those of a Change Dump.
func (s *Site) ReadArchivedResourceDump(ctx context.Context, l *ArchivedList) ([]byte, []Package, error) {
	r := &reader{opts: s.opts, site: s, src: s.src, seen: map[string]bool{}}
	doc, entries, data, err := r.fetch(ctx, l.URL, rsxml.CapResourceDump)
	if err != nil {
		return nil, nil, err
	}
	name := s.src.name(l.URL)
	archive := s.ResourceDumpArchive.URL
	switch {
	case doc.Index:
		return nil, nil, newError(name, 0, ErrInvalid, "a Resource Dump Index, listed by the Resource Dump Archive %s as a Resource Dump; rsgen archives a dump as one document", archive)
	case !sameTime(doc.MD.At, l.At):
		return nil, nil, newError(name, 0, ErrInvalid, "at is %q, but the Resource Dump Archive %s says %s", doc.MD.At, archive, rsxml.FormatTime(l.At))
	case doc.Link("index") != "":
		return nil, nil, newError(name, 0, ErrInvalid, "links rel=\"index\" to %s, but an archived Resource Dump is listed by the Resource Dump Archive %s, not an index", doc.Link("index"), archive)
	}
	if err := s.checkUp(name, doc); err != nil {
		return nil, nil, err
	}
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

// packageTimes checks the times of the package p of the dump doc, read as
// name, and of the manifest it links to (mdoc, or nil), by the rule the
// writer and the validator follow too (rsxml.PackageTimes).
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

// checkUp checks that doc, an archived document read as name, links up to
// the Capability List of the site, as rsgen's do: it is published again
// byte for byte, its links with it.
func (s *Site) checkUp(name string, doc *rsxml.Doc) error {
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
