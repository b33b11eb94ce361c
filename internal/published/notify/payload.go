package notify

import (
	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

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
