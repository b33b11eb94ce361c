package previous

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadChangeListArchive(t *testing.T) {
	dir := fixture(t, "archive")
	site, err := Read(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := site.ChangeListArchive
	if a == nil || a.URL != "http://example.com/resourcesync/changelist-archive.xml" || len(a.Lists) != 2 {
		t.Fatalf("the archive: %+v", a)
	}
	for i, want := range []struct{ rel, from, until string }{
		{"resourcesync/archive/changelist-20240102T000000Z.xml", "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z"},
		{"resourcesync/archive/changelist-20240103T000000Z.xml", "2024-01-02T00:00:00Z", "2024-01-03T00:00:00Z"},
	} {
		cl := &a.Lists[i]
		if cl.Rel != want.rel || !cl.From.Equal(mustTime(t, want.from)) || !cl.Until.Equal(mustTime(t, want.until)) || cl.Entries != 1 {
			t.Errorf("list %d: %+v, want %+v", i, cl, want)
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(want.rel)))
		if err != nil {
			t.Fatal(err)
		}
		if got := listData(t, site, cl); string(got) != string(b) {
			t.Errorf("OpenList(%s) gives other bytes than the file", cl.URL)
		}
	}
}

// An archive whose lists are not what it says, or not closed Change Lists
// in order, cannot be carried forward.
func TestReadChangeListArchiveRefused(t *testing.T) {
	const (
		archive = "resourcesync/changelist-archive.xml"
		first   = "resourcesync/archive/changelist-20240102T000000Z.xml"
		second  = "resourcesync/archive/changelist-20240103T000000Z.xml"
	)
	type change struct{ rel, old, new string }
	tests := []struct {
		name    string
		edits   []change
		kind    error
		message string
	}{
		{"an open list", []change{{first, ` until="2024-01-02T00:00:00Z"/>`, `/>`}}, ErrInvalid, "an open Change List (no until)"},
		{"an until the list does not have", []change{{archive, `until="2024-01-02T00:00:00Z"`, `until="2024-01-02T06:00:00Z"`}}, ErrInvalid, `until is "2024-01-02T00:00:00Z", but the Change List Archive`},
		{"a from the list does not have", []change{{archive, `from="2024-01-02T00:00:00Z"`, `from="2024-01-01T00:00:00Z"`}}, ErrInvalid, `from is "2024-01-02T00:00:00Z"`},
		{"an entry without until", []change{{archive, ` until="2024-01-02T00:00:00Z"`, ``}}, ErrInvalid, "has no from or no until"},
		{"lists that overlap", []change{
			{archive, `from="2024-01-02T00:00:00Z"`, `from="2024-01-01T12:00:00Z"`},
			{second, `from="2024-01-02T00:00:00Z"`, `from="2024-01-01T12:00:00Z"`},
		}, ErrInvalid, "before the until of the entry before it"},
		{"a change outside the list", []change{{first, `datetime="2024-01-01T12:00:00Z"`, `datetime="2024-01-02T12:00:00Z"`}}, ErrInvalid, "is outside the document's from"},
		{"a list after the snapshot", []change{
			{archive, `until="2024-01-03T00:00:00Z"`, `until="2024-01-04T00:00:00Z"`},
			{second, `until="2024-01-03T00:00:00Z"`, `until="2024-01-04T00:00:00Z"`},
		}, ErrInvalid, "after the snapshot time"},
		{"a Resource List in the archive", []change{{archive, "archive/changelist-20240102T000000Z.xml", "resourcelist.xml"}}, ErrInvalid, "listed twice"},
		{"a document of another capability", []change{{first, `capability="changelist"`, `capability="changedump"`}}, ErrCapability, `capability "changedump" where "changelist" was expected`},
		{"an archive index", []change{
			{archive, "<urlset", "<sitemapindex"}, {archive, "</urlset>", "</sitemapindex>"},
			{archive, "<url>", "<sitemap>"}, {archive, "</url>", "</sitemap>"},
			{archive, "<url>", "<sitemap>"}, {archive, "</url>", "</sitemap>"},
		}, ErrInvalid, "a Change List Archive Index"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fixture(t, "archive")
			for _, e := range tt.edits {
				edit(t, dir, e.rel, e.old, e.new)
			}
			_, err := Read(context.Background(), dir, Options{})
			if !errors.Is(err, tt.kind) || err == nil || !strings.Contains(err.Error(), tt.message) {
				t.Fatalf("Read: %v; want %v with %q", err, tt.kind, tt.message)
			}
		})
	}
}
