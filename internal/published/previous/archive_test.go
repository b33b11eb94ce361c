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
	t.Parallel()
	dir := fixture(t, "archive")
	site, err := readAll(context.Background(), dir, Options{})
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
		l := &a.Lists[i]
		if l.Rel != want.rel || !l.From.Equal(mustTime(t, want.from)) || !l.Until.Equal(mustTime(t, want.until)) {
			t.Errorf("list %d: %+v, want %+v", i, l, want)
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(want.rel)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := site.ReadArchived(context.Background(), l)
		if err != nil || string(got) != string(b) {
			t.Errorf("ReadArchived(%s): %v, or other bytes than the file", l.URL, err)
		}
	}
}

// The archived lists are read only by ReadArchived: one that is missing
// or broken does not stop Read, so that a build that drops it (retention,
// or no archive any more) goes on.
func TestReadChangeListArchiveLazily(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "archive")
	if err := os.Remove(filepath.Join(dir, "resourcesync", "archive", "changelist-20240102T000000Z.xml")); err != nil {
		t.Fatal(err)
	}
	site, err := readAll(context.Background(), dir, Options{})
	if err != nil {
		t.Fatalf("Read with a missing archived list: %v", err)
	}
	if _, err := site.ReadArchived(context.Background(), &site.ChangeListArchive.Lists[0]); !errors.Is(err, ErrUnreachable) {
		t.Errorf("ReadArchived of the missing list: %v, want ErrUnreachable", err)
	}
}

// An archive whose lists are not what it says, or not closed Change Lists
// in order, cannot be carried forward: Read refuses what the archive says,
// ReadArchived what a list holds.
func TestReadChangeListArchiveRefused(t *testing.T) {
	t.Parallel()
	const (
		archive = "resourcesync/changelist-archive.xml"
		first   = "resourcesync/archive/changelist-20240102T000000Z.xml"
		second  = "resourcesync/archive/changelist-20240103T000000Z.xml"
	)
	type change struct{ rel, old, new string }
	tests := []struct {
		name    string
		edits   []change
		read    bool // Read fails, not ReadArchived
		kind    error
		message string
	}{
		{"an open list", []change{{first, ` until="2024-01-02T00:00:00Z"/>`, `/>`}}, false, ErrInvalid, "an open Change List (no until)"},
		{"an until the list does not have", []change{{archive, `until="2024-01-02T00:00:00Z"`, `until="2024-01-02T00:00:00Z"`}, {first, `until="2024-01-02T00:00:00Z"`, `until="2024-01-01T23:00:00Z"`}}, false, ErrInvalid, `until is "2024-01-01T23:00:00Z", but the Change List Archive`},
		{"a from the list does not have", []change{{first, `from="2024-01-01T00:00:00Z"`, `from="2024-01-01T06:00:00Z"`}}, false, ErrInvalid, `from is "2024-01-01T06:00:00Z"`},
		{"a list linked to an index", []change{{first, `<rs:md capability`, `<rs:ln rel="index" href="http://example.com/resourcesync/changelist.xml"/><rs:md capability`}}, false, ErrInvalid, `links rel="index"`},
		{"a change outside the list", []change{{first, `datetime="2024-01-01T12:00:00Z"`, `datetime="2024-01-02T12:00:00Z"`}}, false, ErrInvalid, "is after the document's until"},
		{"a change outside a list of year 1", []change{
			{archive, `from="2024-01-01T00:00:00Z" until="2024-01-02T00:00:00Z"`, `from="0001-01-01T00:00:00Z" until="0001-01-01T00:00:00Z"`},
			{first, `from="2024-01-01T00:00:00Z" until="2024-01-02T00:00:00Z"`, `from="0001-01-01T00:00:00Z" until="0001-01-01T00:00:00Z"`},
		}, false, ErrInvalid, "is after the document's until=0001-01-01T00:00:00Z"},
		{"a document of another capability", []change{{first, `capability="changelist"`, `capability="changedump"`}}, false, ErrCapability, `capability "changedump" where "changelist" was expected`},
		{"an entry without until", []change{{archive, ` until="2024-01-02T00:00:00Z"`, ``}}, true, ErrInvalid, "lacks from or until"},
		{"lists that overlap", []change{{archive, `from="2024-01-02T00:00:00Z"`, `from="2024-01-01T12:00:00Z"`}}, true, ErrInvalid, "before the until of the entry before it"},
		{"a list after the snapshot", []change{{archive, `until="2024-01-03T00:00:00Z"`, `until="2024-01-04T00:00:00Z"`}}, true, ErrInvalid, "after the snapshot time"},
		{"a list listed twice", []change{{archive, "changelist-20240103T000000Z.xml", "changelist-20240102T000000Z.xml"}, {archive, `from="2024-01-02T00:00:00Z"`, `from="2024-01-02T00:00:00Z"`}}, true, ErrInvalid, "is listed twice"},
		{"the Resource List in the archive", []change{{archive, "archive/changelist-20240102T000000Z.xml", "resourcelist.xml"}}, true, ErrInvalid, "is listed twice, or is another document of the build"},
		{"an archive index", []change{
			{archive, "<urlset", "<sitemapindex"}, {archive, "</urlset>", "</sitemapindex>"},
			{archive, "<url>", "<sitemap>"}, {archive, "</url>", "</sitemap>"},
			{archive, "<url>", "<sitemap>"}, {archive, "</url>", "</sitemap>"},
		}, true, ErrInvalid, "a Change List Archive Index"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fixture(t, "archive")
			for _, e := range tt.edits {
				edit(t, dir, e.rel, e.old, e.new)
			}
			site, err := readAll(context.Background(), dir, Options{})
			if !tt.read {
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				_, err = site.ReadArchived(context.Background(), &site.ChangeListArchive.Lists[0])
			}
			if !errors.Is(err, tt.kind) || err == nil || !strings.Contains(err.Error(), tt.message) {
				t.Fatalf("%v; want %v with %q", err, tt.kind, tt.message)
			}
		})
	}
}

func TestReadChangeDumpArchive(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "dumparchive")
	site, err := readAll(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := site.ChangeDumpArchive
	if a == nil || len(a.Lists) != 2 || a.Lists[1].Rel != "resourcesync/archive/changedump-20240103T000000Z.xml" {
		t.Fatalf("the archive: %+v", a)
	}
	data, pkgs, err := site.ReadArchivedDump(context.Background(), &a.Lists[1])
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "resourcesync", "archive", "changedump-20240103T000000Z.xml"))
	if err != nil || string(data) != string(b) {
		t.Errorf("ReadArchivedDump gives other bytes than the file (%v)", err)
	}
	if len(pkgs) != 1 || pkgs[0].Rel != "resourcesync/changedump-20240103T000000Z-00001.zip" || pkgs[0].Content == nil ||
		pkgs[0].Content.Rel != "resourcesync/changedump-20240103T000000Z-00001.manifest.xml" {
		t.Errorf("packages %+v", pkgs)
	}
}

// An archived Change Dump that is not what the archive says, or whose
// packages lie outside it, cannot be carried forward.
func TestReadChangeDumpArchiveRefused(t *testing.T) {
	t.Parallel()
	const (
		archive = "resourcesync/changedump-archive.xml"
		second  = "resourcesync/archive/changedump-20240103T000000Z.xml"
	)
	type change struct{ rel, old, new string }
	for _, tt := range []struct {
		name    string
		edits   []change
		message string
	}{
		{"another until", []change{{second, `until="2024-01-03T00:00:00Z"/>`, `until="2024-01-02T23:00:00Z"/>`}}, `until is "2024-01-02T23:00:00Z"`},
		{"linked to an index", []change{{second, `<rs:md capability`, `<rs:ln rel="index" href="http://example.com/resourcesync/changedump.xml"/><rs:md capability`}}, `links rel="index"`},
		{"a package outside", []change{
			{archive, `from="2024-01-02T00:00:00Z"`, `from="2024-01-02T06:00:00Z"`},
			{second, `capability="changedump" from="2024-01-02T00:00:00Z"`, `capability="changedump" from="2024-01-02T06:00:00Z"`},
		}, "is before the dump's from"},
		{"a package that is not a zip", []change{{second, `type="application/zip"`, `type="application/x-tar"`}}, "ZIP packages only"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := fixture(t, "dumparchive")
			for _, e := range tt.edits {
				edit(t, dir, e.rel, e.old, e.new)
			}
			site, err := readAll(context.Background(), dir, Options{})
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			_, _, err = site.ReadArchivedDump(context.Background(), &site.ChangeDumpArchive.Lists[1])
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.message) {
				t.Fatalf("%v; want ErrInvalid with %q", err, tt.message)
			}
		})
	}
}
