package notify

import (
	"maps"
	"slices"
	"time"

	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

type notifications struct{ Changes, Framework []rsxml.Entry }

// plan returns what to notify about s. Change notifications carry the
// Change List entries after since if it is not zero, else after the
// newest change and the snapshot of the state, else (the first run) those
// at or after the snapshot, which the last build found. Framework
// notifications carry each document created, updated (its bytes changed)
// or deleted since the state.
func plan(s *Site, st *State, since time.Time) notifications {
	var n notifications
	after, inclusive := since, false
	switch {
	case !since.IsZero():
	case st != nil:
		for _, v := range []string{st.At, st.ChangesUntil} {
			if t, err := rsxml.ParseTime(v); err == nil && t.After(after) {
				after = t
			}
		}
	default:
		after, _ = rsxml.ParseTime(s.At)
		inclusive = true
	}
	for i := range s.Changes {
		e := &s.Changes[i]
		t, ok := changeTime(e)
		if !ok || t.Before(after) || t.Equal(after) && !inclusive {
			continue
		}
		n.Changes = append(n.Changes, *e)
	}

	datetime := s.At
	var old map[string]docState
	if st != nil {
		old = st.Documents
	}
	now := make(map[string]bool, len(s.Documents))
	for _, d := range s.Documents {
		now[d.URL] = true
		change := rsxml.ChangeCreated
		if o, ok := old[d.URL]; ok {
			if o.Hash == d.Hash {
				continue
			}
			change = rsxml.ChangeUpdated
		}
		n.Framework = append(n.Framework, frameworkEntry(d.URL, d.Capability, d.Index, change, datetime))
	}
	for _, u := range slices.Sorted(maps.Keys(old)) { // the same order every time
		if !now[u] {
			o := old[u]
			n.Framework = append(n.Framework, frameworkEntry(u, o.Capability, o.Index, rsxml.ChangeDeleted, datetime))
		}
	}
	return n
}

// frameworkEntry is the entry of a framework notification about the
// document at u (Framework Notification 1.0.1, section 3).
func frameworkEntry(u, capability, index, change, datetime string) rsxml.Entry {
	e := rsxml.Entry{Loc: u, MD: rsxml.MD{Capability: capability, Change: change, Datetime: datetime}}
	if index != "" {
		e.Links = []rsxml.Link{{Rel: "index", Href: index}}
	}
	return e
}

// ContentType is the media type of a payload (Change Notification
// 1.0.1, section 4.1).
const ContentType = "application/xml"

// payloads renders entries as notification documents of capability that
// link up to capList. Notifications are never indexes: entries that do not
// fit one document go on in the next.
func payloads(capability, capList string, entries []rsxml.Entry, limits listwriter.Limits) [][]byte {
	doc := rsxml.Doc{MD: rsxml.MD{Capability: capability}, Links: []rsxml.Link{{Rel: "up", Href: capList}}}
	head := rsxml.AppendHeader(nil, &doc)
	foot := rsxml.AppendFooter(nil, &doc)
	var out [][]byte
	var cur []byte
	var m *listwriter.Measure
	var entry []byte
	for i := range entries {
		entry = rsxml.AppendEntry(entry[:0], false, &entries[i])
		if cur != nil && !m.Room(int64(len(entry)), 1) {
			out = append(out, append(cur, foot...))
			cur = nil
		}
		if cur == nil {
			cur = append([]byte(nil), head...)
			m = listwriter.NewMeasure(&doc, limits)
		}
		cur = append(cur, entry...)
		m.AddSize(int64(len(entry)), 1)
	}
	if cur != nil {
		out = append(out, append(cur, foot...))
	}
	return out
}
