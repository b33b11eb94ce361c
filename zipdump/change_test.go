package zipdump

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/testenv"
)

// TestRunChangeDump packages the changes of a Change Dump: manifest-only
// entries for deletions, and a root <rs:md> that the caller gives each
// package from the items it holds.
func TestRunChangeDump(t *testing.T) {
	t.Parallel()
	c := newCorpus(t, hashing.DefaultSet, map[string][]byte{
		"a.txt": testText(1, 3000), "b/c.bin": testRandom(2, 5000), "d.txt": testText(3, 100),
	})
	deleted := func(loc string) Item {
		return Item{NoBitstream: true, Entry: rsxml.Entry{Loc: loc, MD: rsxml.MD{Change: rsxml.ChangeDeleted, Datetime: "2024-06-01T12:00:00Z"}}}
	}
	// Chronological changes: two deletions, one alone in its package.
	items := []Item{c.items[0], deleted("https://example.org/gone1"), c.items[1], deleted("https://example.org/gone2"), deleted("https://example.org/gone3"), c.items[2]}
	for i := range items {
		if !items[i].NoBitstream {
			items[i].Entry.MD.Change = rsxml.ChangeUpdated
			items[i].Entry.MD.Datetime = "2024-06-01T12:00:00Z"
		}
	}
	for _, maxEntries := range []int{0, 2} {
		t.Run(fmt.Sprintf("max %d entries", maxEntries), func(t *testing.T) {
			opt, out := testOptions(t, c)
			opt.Stem = "changedump-20240602T000000Z"
			opt.MaxEntries = maxEntries
			opt.ManifestMD = func(first, end int) rsxml.MD {
				return rsxml.MD{Capability: rsxml.CapChangeDumpManifest, From: fmt.Sprintf("2024-06-01T00:00:%02dZ", first), Until: fmt.Sprintf("2024-06-01T00:00:%02dZ", end)}
			}
			res := run(t, items, opt)
			if len(res.Skipped) != 0 {
				t.Fatalf("skipped %+v", res.Skipped)
			}
			var got []string
			next := 0
			for _, p := range res.Packages {
				if p.First != next || p.End <= p.First {
					t.Errorf("%s holds items [%d:%d], the one before ended at %d", p.Name, p.First, p.End, next)
				}
				next = p.End
				data, err := os.ReadFile(filepath.Join(out, p.Name))
				if err != nil {
					t.Fatal(err)
				}
				zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
				if err != nil {
					t.Fatal(err)
				}
				var manifest []byte
				bitstreams := map[string]bool{}
				for _, f := range zr.File {
					if f.Name == ManifestName {
						manifest = readZipFile(t, f)
					} else {
						bitstreams[f.Name] = true
					}
				}
				doc, entries, err := rsxml.ReadAll(bytes.NewReader(manifest), rsxml.ReadOptions{})
				if err != nil {
					t.Fatalf("%s: %v", p.Name, err)
				}
				want := rsxml.MD{Capability: rsxml.CapChangeDumpManifest, From: fmt.Sprintf("2024-06-01T00:00:%02dZ", p.First), Until: fmt.Sprintf("2024-06-01T00:00:%02dZ", p.End)}
				if doc.MD.Capability != want.Capability || doc.MD.From != want.From || doc.MD.Until != want.Until || doc.MD.At != "" || doc.Link("up") == "" {
					t.Errorf("%s: manifest root %+v, want %+v", p.Name, doc.MD, want)
				}
				if len(entries) != p.End-p.First || len(bitstreams) != p.Bitstreams {
					t.Errorf("%s: %d entries, %d bitstreams; holds %d items, reports %d bitstreams", p.Name, len(entries), len(bitstreams), p.End-p.First, p.Bitstreams)
				}
				for _, e := range entries {
					if e.MD.Change == rsxml.ChangeDeleted {
						if e.MD.Path != "" {
							t.Errorf("%s: deleted %s has path %q", p.Name, e.Loc, e.MD.Path)
						}
						got = append(got, "deleted "+e.Loc)
						continue
					}
					if !bitstreams[strings.TrimPrefix(e.MD.Path, "/")] {
						t.Errorf("%s: %s has no bitstream at %q", p.Name, e.Loc, e.MD.Path)
					}
					got = append(got, e.MD.Change+" "+e.MD.Path)
				}
				testenv.Unzip(t, filepath.Join(out, p.Name))
			}
			if next != len(items) {
				t.Errorf("the packages hold items up to %d of %d", next, len(items))
			}
			want := "updated /a.txt, deleted https://example.org/gone1, updated /b/c.bin, deleted https://example.org/gone2, deleted https://example.org/gone3, updated /d.txt"
			if strings.Join(got, ", ") != want {
				t.Errorf("manifests hold\n  %s\nwant\n  %s", strings.Join(got, ", "), want)
			}
			if maxEntries == 2 && len(res.Packages) != 3 {
				t.Errorf("%d packages, want 3", len(res.Packages))
			}
		})
	}
}
