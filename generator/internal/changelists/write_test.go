package changelists

import (
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// The options of a Change List: closed with an until, open without one,
// linked up to the set's Capability List, its parts starting at the
// datetime of their first change.
func TestOptions(t *testing.T) {
	t.Parallel()
	d := &docs.Writer{Base: "https://example.org/", Dir: "resourcesync"}
	from, until := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 6, 2, 0, 0, 0, 0, time.UTC)
	opt := Options(d, "changelist-20240602T000000Z", from, until, "https://example.org/resourcesync/changelist.xml", ChangeTime)
	md := opt.Doc.MD
	if md.Capability != rsxml.CapChangeList || md.From != "2024-06-01T00:00:00Z" || md.Until != "2024-06-02T00:00:00Z" ||
		opt.Doc.Link("up") != "https://example.org/resourcesync/capabilitylist.xml" || opt.Index == "" {
		t.Errorf("options %+v", opt)
	}
	if open := Options(d, IndexName, from, time.Time{}, "", ChangeTime); open.Doc.MD.Until != "" {
		t.Errorf("an open list has until %q", open.Doc.MD.Until)
	}
	e := &rsxml.Entry{MD: rsxml.MD{Datetime: "2024-06-01T12:00:00Z"}}
	if got := opt.Time(e); got != "2024-06-01T12:00:00Z" {
		t.Errorf("a part starts at %q, want its first change's datetime", got)
	}
}
