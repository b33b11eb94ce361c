package generator

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"time"

	"github.com/rsgen/rsgen/internal/previous"
	"github.com/rsgen/rsgen/internal/rsxml"
)

// Names of the Change Lists. Each build's list is a document of its own,
// named by the end of the interval it covers, so that its URL never
// changes while it is carried forward; changelist.xml is always the
// Change List Index over them.
const (
	changeListIndexName = "changelist.xml"
	changeListStem      = "changelist-"
)

// changeListFile matches the names rsgen gives Change Lists, and parts of them.
var changeListFile = regexp.MustCompile(`^changelist-[0-9]{8}T[0-9]{6}Z(-[0-9]{5})?\.xml$`)

// stamp renders t for a file name: 20240601T000000Z.
func stamp(t time.Time) string { return t.UTC().Format("20060102T150405Z") }

// A carried document is one published by the previous build that this
// build publishes again, unchanged, under name.
type carried struct {
	name string // under DocsDir
	from time.Time
	till time.Time
	data []byte
}

// publishChanges publishes the Change Lists: this build's (if anything
// changed), the earlier ones carried forward, and the Change List Index
// over them; then the Change Dump, if asked for. The first build, without
// a previous one, publishes none: there is nothing to compare with.
func (b *build) publishChanges(ctx context.Context, resources []Resource) error {
	prev := b.across.prev
	if prev == nil {
		return nil
	}
	b.reconcileChanges(resources)
	lists, chainEnd, err := b.carriedChangeLists()
	if err != nil {
		return err
	}
	// This build's changes start where the published lists end: builds
	// that found nothing changed publish no list (an empty <urlset> is
	// invalid against the Sitemap schema), and the next list covers their
	// interval too. With none published, they start at the previous
	// snapshot.
	from := prev.At
	if !chainEnd.IsZero() {
		from = chainEnd
	}
	var fresh []rsxml.Entry
	if changes := b.across.changes; len(changes) > 0 {
		stem := changeListStem + stamp(b.at)
		for _, c := range lists {
			if c.name == stem+".xml" || len(c.name) > len(stem) && c.name[:len(stem)+1] == stem+"-" {
				return fmt.Errorf("%w: its Change List %s has the name of this build's", ErrPrevious, c.name)
			}
		}
		index := b.docURL(changeListIndexName)
		fresh, err = b.writeChangeParts(stem, changes, from, b.at, func(bool) string { return index })
		if err != nil {
			return err
		}
	}
	lists = b.fitIndex(lists, fresh)
	entries := make([]rsxml.Entry, 0, len(lists)+len(fresh))
	for _, c := range lists {
		if err := b.stage.WriteFile(DocsDir+"/"+c.name, c.data); err != nil {
			return fmt.Errorf("writing %s: %w", c.name, err)
		}
		b.docs++
		entries = append(entries, rsxml.Entry{Loc: b.docURL(c.name), MD: rsxml.MD{From: rsxml.FormatTime(c.from), Until: rsxml.FormatTime(c.till)}})
	}
	entries = append(entries, fresh...)
	b.across.report.Lists = len(entries)
	if len(entries) > 0 {
		if err := b.writeChangeListIndex(changeListIndexName, entries); err != nil {
			return err
		}
		b.caps = append(b.caps, rsxml.Entry{Loc: b.docURL(changeListIndexName), MD: rsxml.MD{Capability: rsxml.CapChangeList}})
	}
	if b.cfg.Changes.Dump {
		return b.writeChangeDump(ctx, from)
	}
	return nil
}

// carriedChangeLists returns the previous build's Change Lists to publish
// again: the newest run without gaps (a list must start where the one
// before it ends), less those that ended before the snapshot time minus
// --changes-keep. chainEnd is where that run ends, kept or not.
func (b *build) carriedChangeLists() (lists []carried, chainEnd time.Time, err error) {
	prev := b.across.prev.ChangeLists
	if len(prev) == 0 {
		return nil, time.Time{}, nil
	}
	start := len(prev) - 1
	for start > 0 && prev[start-1].Until.Equal(prev[start].From) {
		start--
	}
	if start > 0 {
		b.notice(fmt.Sprintf("--previous: %d earlier Change Lists end before a gap (%s to %s): not carried forward",
			start, rsxml.FormatTime(prev[start-1].Until), rsxml.FormatTime(prev[start].From)))
		b.across.report.Dropped += start
	}
	run := prev[start:]
	chainEnd = run[len(run)-1].Until
	// A list that links rel="index" to another index than this build's
	// (the site moved to another --docs-url) cannot be published again as
	// it is; nor can those before it, or the index would have a gap. This
	// build's list still starts where they end.
	index := b.docURL(changeListIndexName)
	k := 0
	for i := range run {
		if run[i].Index != "" && run[i].Index != index {
			k = i + 1
		}
	}
	if k > 0 {
		b.notice(fmt.Sprintf("--previous: %d Change Lists link to the index %s, not %s: not carried forward",
			k, run[k-1].Index, index))
	}
	cutoff := b.at.Add(-b.cfg.Changes.Keep)
	for k < len(run) && run[k].Until.Before(cutoff) {
		k++
	}
	b.across.report.Dropped += k
	names := map[string]string{}
	for i := range run[k:] {
		cl := &run[k+i]
		name := carriedName(cl)
		if other, dup := names[name]; dup {
			return nil, time.Time{}, fmt.Errorf("%w: %s and %s would both be published as %s", ErrPrevious, other, cl.URL, name)
		}
		names[name] = cl.URL
		lists = append(lists, carried{name: name, from: cl.From, till: cl.Until, data: cl.Data})
	}
	return lists, chainEnd, nil
}

// carriedName is the name a carried Change List is published under: the
// name it had, if rsgen gave it, else the one rsgen gives a list that ends
// when it ends.
func carriedName(cl *previous.ChangeList) string {
	if dir, base := path.Split(cl.Rel); dir == DocsDir+"/" && changeListFile.MatchString(base) {
		return base
	}
	return changeListStem + stamp(cl.Until) + ".xml"
}

// fitIndex drops the oldest carried lists while the index over them and
// fresh would pass the limits of one document.
func (b *build) fitIndex(lists []carried, fresh []rsxml.Entry) []carried {
	entries := make([]rsxml.Entry, 0, len(lists)+len(fresh))
	for _, c := range lists {
		entries = append(entries, rsxml.Entry{Loc: b.docURL(c.name), MD: rsxml.MD{From: rsxml.FormatTime(c.from), Until: rsxml.FormatTime(c.till)}})
	}
	entries = append(entries, fresh...)
	doc := rsxml.Doc{Index: true, MD: rsxml.MD{Capability: rsxml.CapChangeList, From: timeWidth, Until: timeWidth},
		Links: []rsxml.Link{{Rel: "up", Href: b.capabilityListURL()}}}
	drop := fitOldest(&doc, entries, len(lists), b.cfg.Limits)
	if drop > 0 {
		b.notice(fmt.Sprintf("the Change List Index can list no more: the %d oldest Change Lists are no longer published", drop))
		b.across.report.Dropped += drop
	}
	return lists[drop:]
}

// fitOldest returns how many of the first n entries (those carried
// forward, oldest first) to leave out so that a document with the root of
// doc and the other entries fits limits.
func fitOldest(doc *rsxml.Doc, entries []rsxml.Entry, n int, limits Limits) int {
	size := int64(len(rsxml.AppendHeader(nil, doc)) + len(rsxml.AppendFooter(nil, doc)))
	sizes := make([]int64, len(entries))
	var buf []byte
	for i := range entries {
		buf = rsxml.AppendEntry(buf[:0], doc.Index, &entries[i])
		sizes[i] = int64(len(buf))
		size += sizes[i]
	}
	drop := 0
	for drop < n && (len(entries)-drop > limits.MaxEntries || size > limits.MaxBytes) {
		size -= sizes[drop]
		drop++
	}
	return drop
}
