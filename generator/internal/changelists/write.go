package changelists

import (
	"fmt"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

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
