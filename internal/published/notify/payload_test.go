package notify

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// The payload of Example 4.1 of the Notification draft (seed 003), with
// the root <rs:md> of 1.0.1: what Payloads writes must read back the same.
func TestPayloadReadsBack(t *testing.T) {
	t.Parallel()
	entries := []rsxml.Entry{
		{Loc: "http://example.com/res1", Lastmod: "2013-01-02T13:03:00Z", MD: rsxml.MD{Change: "updated", Datetime: "2013-01-02T13:03:00Z", Hash: "md5:1584abdf8ebdc9802ac0c6a7402c03b6", Length: "8876", Type: "text/html"}},
		{Loc: "http://example.com/res2", Lastmod: "2013-01-02T13:23:00Z", MD: rsxml.MD{Change: "deleted", Datetime: "2013-01-02T13:23:00Z"}},
	}
	ps := payloads(rsxml.CapChangeListNotification, "http://example.com/dataset1/capabilitylist.xml", entries, listwriter.Limits{})
	if len(ps) != 1 {
		t.Fatalf("%d payloads, want 1", len(ps))
	}
	doc, got, err := rsxml.ReadAll(bytes.NewReader(ps[0]), rsxml.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Index || doc.MD.Capability != rsxml.CapChangeListNotification || doc.Link("up") != "http://example.com/dataset1/capabilitylist.xml" {
		t.Errorf("root: %+v", doc)
	}
	if len(got) != 2 || got[0].Loc != entries[0].Loc || got[0].MD.Hash != entries[0].MD.Hash || got[1].MD.Change != "deleted" {
		t.Errorf("entries: %+v", got)
	}
}

func TestPayloadsSplit(t *testing.T) {
	t.Parallel()
	var entries []rsxml.Entry
	for i := range 7 {
		entries = append(entries, rsxml.Entry{Loc: fmt.Sprintf("https://example.org/r%d", i), MD: rsxml.MD{Change: "created"}})
	}
	for _, tc := range []struct {
		name                 string
		maxEntries, maxBytes int
		want                 []int
	}{
		{"by entries", 3, 1 << 20, []int{3, 3, 1}},
		{"by bytes", 100, 600, nil}, // counted below
		{"one", 7, 1 << 20, []int{7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := payloads(rsxml.CapFrameworkNotification, "https://example.org/cl.xml", entries, listwriter.Limits{MaxEntries: tc.maxEntries, MaxBytes: int64(tc.maxBytes)})
			var sizes []int
			n := 0
			for _, p := range ps {
				if len(p) > tc.maxBytes {
					t.Errorf("a payload of %d bytes, over %d", len(p), tc.maxBytes)
				}
				_, es, err := rsxml.ReadAll(bytes.NewReader(p), rsxml.ReadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range es {
					if e.Loc != entries[n].Loc {
						t.Errorf("entry %d is %s, want %s", n, e.Loc, entries[n].Loc)
					}
					n++
				}
				sizes = append(sizes, len(es))
			}
			if n != len(entries) {
				t.Errorf("%d entries in all, want %d", n, len(entries))
			}
			if tc.want != nil && fmt.Sprint(sizes) != fmt.Sprint(tc.want) {
				t.Errorf("sizes %v, want %v", sizes, tc.want)
			}
			if tc.want == nil && len(sizes) < 2 {
				t.Errorf("sizes %v: the byte limit split nothing", sizes)
			}
		})
	}
	if ps := payloads(rsxml.CapChangeListNotification, "x", nil, listwriter.Limits{}); ps != nil {
		t.Errorf("no entry gave %d payloads", len(ps))
	}
}
