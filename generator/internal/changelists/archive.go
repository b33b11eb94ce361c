package changelists

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/text/units"
)

// ArchiveName lists closed Change Lists under archive/, one (or its parts)
// for each build that found changes.
const ArchiveName = "changelist-archive.xml"

// An Archive lists documents kept under archive/. Its fields up to Listed
// describe it; a plan sets the others.
type Archive struct {
	Docs       *docs.Writer
	Name       string                                  // changelist-archive.xml
	What       string                                  // "Change List"
	Capability string                                  // rsxml.CapChangeListArchive
	Stem       string                                  // "changelist-": this build's is archive/<Stem><its time>
	File       *regexp.Regexp                          // the names rsgen gives what it archives (PlanArchive)
	Notice     func(string)                            // never nil
	Listed     func(l *previous.ArchivedList) rsxml.MD // an archived document's times; nil for from and until

	Carried []docs.Archived // the previous build's archived documents kept
	Fresh   bool            // this build archives its own
	From    time.Time       // where this build's interval starts
}

// PlanArchive returns the archive of intervals a this build publishes, or
// nil for none (an empty <urlset> is invalid): with keep, the previous
// build's archived documents that end at at minus keep or later, and this
// build's (fresh). This build's interval starts where the previous archive
// ends: the builds since found nothing changed (or checkDumps would have
// refused them), so there is no gap, and no overlap either.
func PlanArchive(a Archive, prev *previous.Archive, keep time.Duration, at, from time.Time, fresh bool) (*Archive, error) {
	if keep == 0 {
		if prev != nil && len(prev.Lists) > 0 { // allowed by Changes.Drop (checkDumps)
			a.Notice(fmt.Sprintf("the %s Archive of the previous build (%s) is no longer published", a.What, units.Count(len(prev.Lists), a.What)))
		}
		return nil, nil
	}
	a.Fresh, a.From = fresh, from
	if prev != nil && len(prev.Lists) > 0 {
		a.From = prev.Lists[len(prev.Lists)-1].Until
	}
	var err error
	a.Carried, err = docs.Retained(a.Docs, prev, func(l *previous.ArchivedList) time.Time { return l.Until }, at.Add(-keep), a.What, a.Notice,
		func(_ *previous.ArchivedList, base string) bool { return a.File.MatchString(base) })
	if err != nil || (len(a.Carried) == 0 && !a.Fresh) {
		return nil, err
	}
	return &a, nil
}

// Link is the live document's link to the archive, if any (section 2.2).
func (a *Archive) Link() []rsxml.Link {
	if a == nil {
		return nil
	}
	return []rsxml.Link{{Rel: "archives", Href: a.Docs.URL(a.Name)}}
}

// Write publishes the archive: this build's document, if fresh, which
// write writes as stem (archive/<Stem><at>) and returns the entries of;
// the carried ones again, by publish; and the archive, oldest first, less
// the oldest past the limits. It returns how many carried ones it lists.
func (a *Archive) Write(at time.Time, write func(stem string) ([]rsxml.Entry, error), publish func(c docs.Archived) error) (int, error) {
	entries := make([]rsxml.Entry, 0, len(a.Carried)+1)
	for _, c := range a.Carried {
		md := rsxml.MD{From: rsxml.FormatTime(c.List.From), Until: rsxml.FormatTime(c.List.Until)}
		if a.Listed != nil {
			md = a.Listed(c.List)
		}
		entries = append(entries, rsxml.Entry{Loc: a.Docs.URL(c.Name), MD: md})
	}
	if a.Fresh {
		stem := docs.ArchiveDir + "/" + a.Stem + docs.Stamp(at)
		for _, c := range a.Carried {
			if docs.OfStem(c.Name, stem) {
				return 0, fmt.Errorf("%w: its archived %s %s has the name of this build's", docs.ErrPrevious, a.What, c.Name)
			}
		}
		fresh, err := write(stem)
		if err != nil {
			return 0, err
		}
		entries = append(entries, fresh...)
	}
	return docs.WriteArchiveDoc(a.Docs, a.Name, a.Capability, a.What, entries, len(a.Carried), a.Notice,
		func(i int) error { return publish(a.Carried[i]) })
}

// WriteArchive publishes the Change List Archive planned, if any, with
// this build's changes closed from where it ends to the snapshot time.
func (ch *Lists) WriteArchive(ctx context.Context) error {
	a := ch.archive
	if a == nil {
		return nil
	}
	listed, err := a.Write(ch.At, func(stem string) ([]rsxml.Entry, error) {
		it, err := ch.Changes.Iter()
		if err != nil {
			return nil, err
		}
		opt := Options(ch.Docs, stem, a.From, ch.At, "", ChangeTime)
		opt.Apart = true
		wl, err := ch.Docs.List(opt, ch.Changes.Len(), it.Fill)
		if err == nil {
			err = it.Err()
		}
		if err != nil {
			return nil, err
		}
		return partEntries(ch.Docs, wl), nil
	}, func(c docs.Archived) error {
		data, err := ch.Prev.ReadArchived(ctx, c.List)
		if err != nil {
			return fmt.Errorf("%w: %w", docs.ErrPrevious, err)
		}
		return ch.Docs.Copy(c.Name, c.List.URL, io.NopCloser(bytes.NewReader(data)))
	})
	ch.Report.Archived = listed
	return err
}
