package changelists

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
)

const (
	IndexName      = "changelist.xml"
	changeListStem = "changelist-"
)

var changeListFile = regexp.MustCompile(`^changelist-[0-9]{8}T[0-9]{6}Z(-[0-9]{5})?\.xml$`)

// A carried list of the previous build is published again, unchanged.
type carried struct {
	name       string
	from, till time.Time
	list       *previous.ChangeList
	entries    int
}

// Lists publishes a build's changelist.xml, the closed lists of its
// index, and the Change List Archive.
type Lists struct {
	Docs        *docs.Writer
	Keep        time.Duration // how long a Change List stays published, by the end of its interval
	ArchiveKeep time.Duration // how long the archive keeps one; 0 for no archive
	Limits      listwriter.Limits
	At          time.Time        // the snapshot time
	Prev        *previous.Site   // the previous build
	Changes     *spill.ChangeSet // this build's, chronological
	Report      *report.ChangeReport
	Notice      func(string) // never nil
	archive     *Archive     // planned by Publish; nil for none
}

// Publish publishes changelist.xml, open or an index, covering every
// change kept without a gap, and returns where this build's changes
// start: where the published ones end.
func (ch *Lists) Publish(ctx context.Context) (from time.Time, err error) {
	lists, chainEnd, err := ch.carriedChangeLists()
	if err != nil {
		return from, err
	}
	open, err := ch.openHistory(ctx)
	if err != nil {
		return from, err
	}
	if open != nil {
		cl := ch.Prev.OpenChangeList // those kept are the newest
		if err := checkCarried(cl, cl.Entries-len(open.entries)); err != nil {
			return from, err
		}
		chainEnd = open.till
	}
	// Builds that found nothing publish no list (an empty <urlset> is
	// invalid): the next covers their interval too.
	from = ch.Prev.At
	if !chainEnd.IsZero() {
		from = chainEnd
	}
	changes := ch.Changes
	ch.archive, err = PlanArchive(Archive{Docs: ch.Docs, Name: ArchiveName, What: "Change List", Capability: rsxml.CapChangeListArchive,
		Stem: changeListStem, File: changeListFile, Notice: ch.Notice}, ch.Prev.ChangeListArchive, ch.ArchiveKeep, ch.At, from, changes.Len() > 0)
	if err != nil {
		return from, err
	}
	stem := changeListStem + docs.Stamp(ch.At)
	if changes.Len() > 0 {
		for _, c := range lists {
			if docs.OfStem(c.name, stem) {
				return from, fmt.Errorf("%w: its Change List %s has the name of this build's", docs.ErrPrevious, c.name)
			}
		}
	}
	// Carried entries are read again only if they may fit one list: there
	// may be 50,000 lists of 50,000 changes.
	total := changes.Len()
	for _, c := range lists {
		total += c.entries
	}
	if open != nil {
		total += len(open.entries)
	}
	var old []*rsxml.Entry
	if total <= ch.Limits.MaxEntries {
		if old, err = ch.carriedEntries(ctx, lists, open); err != nil {
			return from, err
		}
	}
	start, fits, err := ch.fitsOneList(lists, open, from, old, changes, total)
	if err != nil {
		return from, err
	}
	switch {
	case total == 0:
		// Nothing to publish: no Change List, and none advertised.
	case fits:
		for _, c := range lists {
			if err := checkCarried(c.list, 0); err != nil {
				return from, err
			}
		}
		err = ch.writeOpenChangeList(start, old, changes)
	default:
		ch.Notice(fmt.Sprintf("the %d changes kept do not fit one Change List (%d entries, %d bytes at most): changelist.xml is a Change List Index, which resync 2.0.1 cannot read; a shorter keep window makes it one list again",
			total, ch.Limits.MaxEntries, ch.Limits.MaxBytes))
		err = ch.writeChangeListIndexOver(ctx, lists, open, changes, stem, from)
	}
	return from, err
}

// An openHistory is what the previous open changelist.xml held, less the
// changes --changes-keep drops.
type openHistory struct {
	from, till time.Time
	entries    []*rsxml.Entry
}

// openHistory returns the changes of the previous open changelist.xml to
// publish again, or nil, up to the previous snapshot, or where its Change
// Dump ends if that is after every change, for it to go on from there.
func (ch *Lists) openHistory(ctx context.Context) (*openHistory, error) {
	cl := ch.Prev.OpenChangeList
	if cl == nil {
		return nil, nil
	}
	if want := ch.Docs.URL(IndexName); cl.URL != want {
		ch.Notice(fmt.Sprintf("the previous build: its open Change List is %s, not %s: its changes are not carried forward", cl.URL, want))
		ch.Report.Dropped++
		return nil, nil
	}
	entries, err := ch.readCarried(ctx, cl)
	if err != nil {
		return nil, err
	}
	h := &openHistory{from: cl.From, till: ch.Prev.At, entries: entries}
	last := cl.From
	for _, e := range entries {
		if t, err := rsxml.ParseTime(e.MD.Datetime); err == nil && t.After(last) {
			last = t
		}
	}
	if d := ch.Prev.ChangeDump; d != nil && len(d.Packages) > 0 {
		if end, err := rsxml.ParseTime(d.Packages[len(d.Packages)-1].Until); err == nil && !end.Before(last) && end.Before(h.till) {
			h.till = end
		}
	}
	// --changes-keep drops the changes (with a datetime) before the
	// cutoff, but those of a package the Change Dump keeps whole.
	cutoff := ch.At.Add(-ch.Keep)
	if d := ch.Prev.ChangeDump; d != nil {
		for _, p := range d.Packages {
			until, err1 := rsxml.ParseTime(p.Until)
			from, err2 := rsxml.ParseTime(p.From)
			if err1 == nil && err2 == nil && !until.Before(cutoff) {
				if from.Before(cutoff) {
					cutoff = from
				}
				break
			}
		}
	}
	if !cutoff.After(h.from) {
		return h, nil
	}
	k := 0
	for k < len(entries) {
		t, err := rsxml.ParseTime(entries[k].MD.Datetime)
		if err != nil {
			if k > 0 {
				ch.Notice(fmt.Sprintf("the previous build: %s has a change without a datetime: its older changes are kept", cl.URL))
			}
			return h, nil
		}
		if !t.Before(cutoff) {
			break
		}
		k++
	}
	if k == len(entries) && ch.Changes.Len() == 0 {
		return h, nil // as for lists: changelist.xml stays while nothing replaces it
	}
	if k == len(entries) && !h.till.After(cutoff) {
		ch.Report.Dropped++
		return nil, nil
	}
	h.entries, h.from = entries[k:], cutoff
	if h.from.After(h.till) {
		h.from = h.till
	}
	return h, nil
}

func (ch *Lists) carriedEntries(ctx context.Context, lists []carried, open *openHistory) ([]*rsxml.Entry, error) {
	var all []*rsxml.Entry
	for _, c := range lists {
		entries, err := ch.readCarried(ctx, c.list)
		if err != nil {
			return nil, err
		}
		all = append(all, entries...)
	}
	if open != nil {
		all = append(all, open.entries...)
	}
	return all, nil
}

// fitsOneList reports whether old and changes (total in all) fit one
// open Change List, and where it would start.
func (ch *Lists) fitsOneList(lists []carried, open *openHistory, from time.Time, old []*rsxml.Entry, changes *spill.ChangeSet, total int) (time.Time, bool, error) {
	start := from
	switch {
	case len(lists) > 0:
		start = lists[0].from
	case open != nil:
		start = open.from
	}
	if total > ch.Limits.MaxEntries {
		return start, false, nil
	}
	doc := ch.openListDoc(start)
	m := listwriter.NewMeasure(&doc, ch.Limits)
	for _, e := range old {
		m.Add(e)
	}
	var e rsxml.Entry
	err := changes.Each(func(c *spill.Change) error {
		c.Entry(&e)
		m.Add(&e)
		return nil
	})
	return start, m.Fits(), err
}

func (ch *Lists) openListDoc(from time.Time) rsxml.Doc {
	return rsxml.Doc{MD: rsxml.MD{Capability: rsxml.CapChangeList, From: rsxml.FormatTime(from)}, Links: ch.links()}
}

func (ch *Lists) links() []rsxml.Link {
	return append([]rsxml.Link{{Rel: "up", Href: ch.Docs.CapabilityListURL()}}, ch.archive.Link()...)
}

func (ch *Lists) writeOpenChangeList(from time.Time, old []*rsxml.Entry, changes *spill.ChangeSet) error {
	it, err := changes.Iter()
	if err != nil {
		return err
	}
	err = ch.Docs.Write(IndexName, ch.openListDoc(from), 0, len(old)+changes.Len(), func(i int, e *rsxml.Entry) {
		if i < len(old) {
			*e = *old[i]
			return
		}
		it.Fill(i, e)
	})
	if err == nil {
		err = it.Err()
	}
	if err != nil {
		return err
	}
	ch.Report.Lists = 1
	ch.Docs.Advertise(ch.Docs.URL(IndexName), rsxml.CapChangeList)
	return nil
}

// writeChangeListIndexOver writes changelist.xml as an index over closed
// lists: those carried, one for the previous open list's changes, and
// this build's.
func (ch *Lists) writeChangeListIndexOver(ctx context.Context, lists []carried, open *openHistory, changes *spill.ChangeSet, stem string, from time.Time) error {
	index := ch.Docs.URL(IndexName)
	var fresh []rsxml.Entry
	if open != nil && len(open.entries) > 0 {
		entries := open.entries
		// A part starts at its first datetime, or the one before it.
		t := open.from
		partTime := func(e *rsxml.Entry) string {
			if d, err := rsxml.ParseTime(e.MD.Datetime); err == nil {
				t = d
			}
			return rsxml.FormatTime(t.Truncate(time.Second))
		}
		written, err := ch.writeChangeEntries(changeListStem+docs.Stamp(open.till), len(entries), partTime,
			func(i int, e *rsxml.Entry) { *e = *entries[i] }, open.from, open.till, index)
		if err != nil {
			return err
		}
		fresh = append(fresh, written...)
	}
	if changes.Len() > 0 {
		it, err := changes.Iter()
		if err != nil {
			return err
		}
		written, err := ch.writeChangeEntries(stem, changes.Len(), ChangeTime, it.Fill, from, ch.At, index)
		if err == nil {
			err = it.Err()
		}
		if err != nil {
			return err
		}
		fresh = append(fresh, written...)
	}
	entries := make([]rsxml.Entry, 0, len(lists)+len(fresh))
	for _, c := range lists {
		entries = append(entries, rsxml.Entry{Loc: ch.Docs.URL(c.name), MD: rsxml.MD{From: rsxml.FormatTime(c.from), Until: rsxml.FormatTime(c.till)}})
	}
	entries = append(entries, fresh...)
	drop, err := ch.fitIndex(entries, len(lists))
	if err != nil {
		return err
	}
	for _, c := range lists[drop:] {
		if err := ch.copyCarried(ctx, c); err != nil {
			return err
		}
	}
	entries = entries[drop:]
	ch.Report.Lists = len(entries)
	md := rsxml.MD{Capability: rsxml.CapChangeList, From: entries[0].MD.From, Until: entries[len(entries)-1].MD.Until}
	err = ch.Docs.Write(IndexName, rsxml.Doc{Index: true, MD: md, Links: ch.links()}, 0, len(entries), func(i int, e *rsxml.Entry) { *e = entries[i] })
	if err != nil {
		return err
	}
	ch.Docs.Advertise(ch.Docs.URL(IndexName), rsxml.CapChangeList)
	return nil
}

// carriedChangeLists returns the previous build's Change Lists to publish
// again: the newest run without gaps, less those that ended before At
// minus Keep; chainEnd is where that run ends.
func (ch *Lists) carriedChangeLists() (lists []carried, chainEnd time.Time, err error) {
	prev := ch.Prev.ChangeLists
	if len(prev) == 0 {
		return nil, time.Time{}, nil
	}
	start := len(prev) - 1
	for start > 0 && prev[start-1].Until.Equal(prev[start].From) {
		start--
	}
	if start > 0 {
		ch.Notice(fmt.Sprintf("the previous build: %d earlier Change Lists end before a gap (%s to %s): not carried forward",
			start, rsxml.FormatTime(prev[start-1].Until), rsxml.FormatTime(prev[start].From)))
		ch.Report.Dropped += start
	}
	run := prev[start:]
	chainEnd = run[len(run)-1].Until
	// A list indexed elsewhere (another --docs-url) cannot be published
	// again as it is, nor those before it; this build's still starts where
	// they end.
	index := ch.Docs.URL(IndexName)
	k := 0
	for i := range run {
		if run[i].Index != "" && run[i].Index != index {
			k = i + 1
		}
	}
	if k > 0 {
		ch.Notice(fmt.Sprintf("the previous build: %d Change Lists link to the index %s, not %s: not carried forward",
			k, run[k-1].Index, index))
	}
	// The newest list stays while this build has none: Destinations poll it.
	moved := k
	cutoff := ch.At.Add(-ch.Keep)
	for k < len(run) && run[k].Until.Before(cutoff) {
		k++
	}
	if k == len(run) && k > moved && ch.Changes.Len() == 0 {
		k--
	}
	ch.Report.Dropped += k
	names := map[string]string{}
	for i := range run[k:] {
		cl := &run[k+i]
		name := carriedName(ch.Docs, cl)
		if other, dup := names[name]; dup {
			return nil, time.Time{}, fmt.Errorf("%w: %s and %s would both be published as %s", docs.ErrPrevious, other, cl.URL, name)
		}
		names[name] = cl.URL
		lists = append(lists, carried{name: name, from: cl.From, till: cl.Until, list: cl, entries: cl.Entries})
	}
	return lists, chainEnd, nil
}

// carriedName is a carried list's name if rsgen gave it, else that of a
// list ending when it ends.
func carriedName(d *docs.Writer, cl *previous.ChangeList) string {
	if base, ok := d.Mine(cl.Rel); ok && changeListFile.MatchString(base) {
		return base
	}
	return changeListStem + docs.Stamp(cl.Until) + ".xml"
}

// fitIndex returns how many of the oldest carried lists to drop for the
// index to fit one document; it fails if this build's alone do not.
func (ch *Lists) fitIndex(entries []rsxml.Entry, carried int) (int, error) {
	doc := rsxml.Doc{Index: true, MD: rsxml.MD{Capability: rsxml.CapChangeList, From: rsxml.TimeWidth, Until: rsxml.TimeWidth}, Links: ch.links()}
	drop, fits := listwriter.FitOldest(&doc, entries, carried, ch.Limits)
	if !fits {
		return 0, &docs.LimitError{Err: fmt.Errorf("the Change List Index cannot list the %d Change Lists of this build in one document (%d entries, %d bytes at most)",
			len(entries)-carried, ch.Limits.MaxEntries, ch.Limits.MaxBytes), Raise: []string{"Limits.MaxEntries", "Limits.MaxBytes"}}
	}
	if drop > 0 {
		ch.Notice(fmt.Sprintf("the Change List Index can list no more: the %d oldest Change Lists are no longer published", drop))
		ch.Report.Dropped += drop
	}
	return drop, nil
}

func (ch *Lists) readCarried(ctx context.Context, cl *previous.ChangeList) ([]*rsxml.Entry, error) {
	rc, err := ch.Prev.OpenList(ctx, cl)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", docs.ErrPrevious, err)
	}
	defer rc.Close()
	_, entries, err := rsxml.ReadAll(rc, rsxml.ReadOptions{})
	if err != nil {
		return nil, fmt.Errorf("%w: reading again: %w", docs.ErrPrevious, docs.Naming(cl.URL, err))
	}
	return entries, nil
}

// checkCarried fails if an entry of cl from the from-th on, which this
// build writes again, has a bad hash or length. (The stage's check blames
// the previous build for a list copied as it is.)
func checkCarried(cl *previous.ChangeList, from int) error {
	if err := cl.Check(from); err != nil {
		return fmt.Errorf("%w: %w", docs.ErrPrevious, err)
	}
	return nil
}

func (ch *Lists) copyCarried(ctx context.Context, c carried) error {
	rc, err := ch.Prev.OpenList(ctx, c.list)
	if err != nil {
		return fmt.Errorf("%w: %w", docs.ErrPrevious, err)
	}
	return docs.PreviousErr(ch.Docs.Copy(c.name, c.list.URL, rc))
}

// ChangeTime is when a part that starts with e starts: its datetime.
func ChangeTime(e *rsxml.Entry) string { return e.MD.Datetime }

// Options are those of a Change List from from to until (zero: open),
// whose parts link to index ("" for their own) and start at time(first).
func Options(d *docs.Writer, name string, from, until time.Time, index string, time func(e *rsxml.Entry) string) listwriter.Options {
	md := rsxml.MD{Capability: rsxml.CapChangeList, From: rsxml.FormatTime(from)}
	if !until.IsZero() {
		md.Until = rsxml.FormatTime(until)
	}
	return listwriter.Options{
		Name:  name,
		Doc:   rsxml.Doc{MD: md, Links: []rsxml.Link{{Rel: "up", Href: d.CapabilityListURL()}}},
		Index: index,
		Time:  time,
	}
}

// writeChangeEntries writes n changes as <stem>.xml or, past the limits,
// <stem>-00001.xml, …, each covering its share of [from, until] without
// gap, linked to index, and returns their entries for the index.
func (ch *Lists) writeChangeEntries(stem string, n int, time func(e *rsxml.Entry) string, fill func(i int, e *rsxml.Entry), from, until time.Time, index string) ([]rsxml.Entry, error) {
	wl, err := ch.Docs.List(Options(ch.Docs, stem, from, until, index, time), n, fill)
	if err != nil {
		return nil, err
	}
	for _, t := range wl.Inside {
		ch.Notice(InsideNotice(t, ch.Limits))
	}
	return partEntries(ch.Docs, wl), nil
}

func partEntries(d *docs.Writer, wl listwriter.Written) []rsxml.Entry {
	entries := make([]rsxml.Entry, len(wl.Parts))
	for i, p := range wl.Parts {
		entries[i] = rsxml.Entry{Loc: d.URL(p.Name), MD: rsxml.MD{From: p.From, Until: p.Until}}
	}
	return entries
}

// InsideNotice is the notice of changes at t split between two lists.
func InsideNotice(t string, limits listwriter.Limits) string {
	return fmt.Sprintf("the changes at %s are more than one Change List holds (%d entries, %d bytes at most): they are split between two lists, and a Destination that resumes after the last datetime it saw may miss those of the second",
		t, limits.MaxEntries, limits.MaxBytes)
}
