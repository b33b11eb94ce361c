package changelists

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/internal/previous"
	"github.com/rsgen/rsgen/internal/rsxml"
	"github.com/rsgen/rsgen/internal/units"
)

// Names of the Change List Archive (ResourceSync Archives, section 5):
// changelist-archive.xml lists closed Change Lists kept under archive/,
// one (or its parts, past the limits) for each build that found changes,
// named by the end of the interval it covers.
const ArchiveName = "changelist-archive.xml"

// A changeArchive is what the Change List Archive of a build lists: the
// archived lists of the previous build that are kept, and this build's
// changes, if it found any, from from.
type changeArchive struct {
	carried []docs.Archived
	fresh   bool
	from    time.Time
}

// archiveEntry is the entry in the archive of the list name, covering
// from to until.
func (ch *Lists) archiveEntry(name string, from, until time.Time) rsxml.Entry {
	return rsxml.Entry{Loc: ch.Docs.URL(name), MD: rsxml.MD{From: rsxml.FormatTime(from), Until: rsxml.FormatTime(until)}}
}

// planArchive returns the Change List Archive this build publishes, or
// nil for none: with Changes.Archive.Keep, the previous build's archived
// lists that end at the snapshot time minus ArchiveKeep or later, and this
// build's changes, which start at from. An archive with nothing to list is
// not published (an empty <urlset> is invalid against the Sitemap schema).
//
// This build's archived changes start where the previous archive ends:
// the builds since found nothing changed (each has archived its changes,
// or checkDumps would have refused it), so the archive has no gap; and
// this build's changes are dated from the previous snapshot on, so it has
// no overlap either, where the Change List starts earlier (at the end of
// the Change Dump).
func (ch *Lists) planArchive(from time.Time) (*changeArchive, error) {
	prev := ch.Prev.ChangeListArchive
	keep := ch.ArchiveKeep
	if keep == 0 {
		if prev != nil && len(prev.Lists) > 0 { // allowed by Changes.Drop (checkDumps)
			ch.Notice(fmt.Sprintf("the Change List Archive of the previous build (%s) is no longer published", units.Count(len(prev.Lists), "Change List")))
		}
		return nil, nil
	}
	a := &changeArchive{fresh: ch.Changes.Len() > 0, from: from}
	if prev != nil && len(prev.Lists) > 0 {
		a.from = prev.Lists[len(prev.Lists)-1].Until
	}
	var err error
	a.carried, err = docs.Retained(ch.Docs, prev, func(l *previous.ArchivedList) time.Time { return l.Until }, ch.At.Add(-keep), "Change List", ch.Notice,
		func(_ *previous.ArchivedList, base string) bool { return changeListFile.MatchString(base) })
	if err != nil {
		return nil, err
	}
	if len(a.carried) == 0 && !a.fresh {
		return nil, nil
	}
	return a, nil
}

// archivesLink is the link of changelist.xml to the Change List Archive,
// if the build publishes one (ResourceSync Archives, section 2.2).
func (ch *Lists) archivesLink() []rsxml.Link {
	if ch.archive == nil {
		return nil
	}
	return []rsxml.Link{{Rel: "archives", Href: ch.Docs.URL(ArchiveName)}}
}

// WriteArchive publishes the Change List Archive planned, if any: this
// build's changes as closed Change Lists from a.from to the snapshot time,
// the previous build's archived lists again, byte for byte, each checked,
// and the archive listing them all, oldest first; and advertises it in
// the Capability List. An archive that would pass the limits of one
// document leaves out its oldest lists, with a notice, as the Change List
// Index does.
func (ch *Lists) WriteArchive(ctx context.Context) error {
	a := ch.archive
	if a == nil {
		return nil
	}
	entries := make([]rsxml.Entry, 0, len(a.carried)+1)
	for _, c := range a.carried {
		entries = append(entries, ch.archiveEntry(c.Name, c.List.From, c.List.Until))
	}
	if a.fresh {
		name := docs.ArchiveDir + "/" + changeListStem + docs.Stamp(ch.At)
		for _, c := range a.carried {
			if docs.OfStem(c.Name, name) {
				return fmt.Errorf("%w: its archived Change List %s has the name of this build's", docs.ErrPrevious, c.Name)
			}
		}
		it, err := ch.Changes.Iter()
		if err != nil {
			return err
		}
		opt := Options(ch.Docs, name, a.from, ch.At, "", ChangeTime)
		opt.Apart = true
		wl, err := ch.Docs.List(opt, ch.Changes.Len(), it.Fill)
		if err == nil {
			err = it.Err()
		}
		if err != nil {
			return err
		}
		for _, p := range wl.Parts {
			entries = append(entries, rsxml.Entry{Loc: ch.Docs.URL(p.Name), MD: rsxml.MD{From: p.From, Until: p.Until}})
		}
	}
	listed, err := docs.WriteArchiveDoc(ch.Docs, ArchiveName, rsxml.CapChangeListArchive, "Change List", entries, len(a.carried), ch.Notice, func(i int) error {
		c := a.carried[i]
		data, err := ch.Prev.ReadArchived(ctx, c.List)
		if err != nil {
			return fmt.Errorf("%w: %w", docs.ErrPrevious, err)
		}
		return ch.Docs.Copy(c.Name, c.List.URL, io.NopCloser(bytes.NewReader(data)))
	})
	if err != nil {
		return err
	}
	ch.Report.Archived = listed
	return nil
}
