package validate_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/validate"
)

// indexedSite is a site whose Resource List is an index over parts, each
// holding the paths given, in that order; BASE stands for its URL.
func indexedSite(parts ...[]string) map[string]string {
	const head = `<?xml version="1.0" encoding="UTF-8"?>
`
	const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"`
	docs := map[string]string{
		".well-known/resourcesync": head + `<urlset ` + ns + `><rs:md capability="description"/>
<url><loc>BASEresourcesync/capabilitylist.xml</loc><rs:md capability="capabilitylist"/></url></urlset>`,
		"resourcesync/capabilitylist.xml": head + `<urlset ` + ns + `><rs:ln rel="up" href="BASE.well-known/resourcesync"/><rs:md capability="capabilitylist"/>
<url><loc>BASEresourcesync/resourcelist.xml</loc><rs:md capability="resourcelist"/></url></urlset>`,
	}
	var index strings.Builder
	index.WriteString(head + `<sitemapindex ` + ns + `><rs:ln rel="up" href="BASEresourcesync/capabilitylist.xml"/><rs:md capability="resourcelist" at="2024-06-01T00:00:00Z"/>
`)
	for i, paths := range parts {
		name := fmt.Sprintf("resourcesync/resourcelist-%05d.xml", i+1)
		fmt.Fprintf(&index, "<sitemap><loc>BASE%s</loc><rs:md at=\"2024-06-01T00:00:00Z\"/></sitemap>\n", name)
		var part strings.Builder
		part.WriteString(head + `<urlset ` + ns + `><rs:ln rel="up" href="BASEresourcesync/capabilitylist.xml"/><rs:ln rel="index" href="BASEresourcesync/resourcelist.xml"/><rs:md capability="resourcelist" at="2024-06-01T00:00:00Z"/>
`)
		for _, p := range paths {
			fmt.Fprintf(&part, "<url><loc>BASE%s</loc></url>\n", p)
		}
		part.WriteString("</urlset>\n")
		docs[name] = part.String()
	}
	index.WriteString("</sitemapindex>\n")
	docs["resourcesync/resourcelist.xml"] = index.String()
	return docs
}

// duplicates are the findings of rule duplicate-loc, as
// "part:line: loc first-part:line".
func duplicates(rep *validate.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		if f.Rule == validate.RuleDuplicateLoc {
			out = append(out, fmt.Sprintf("%s:%d: %s", filepath.Base(f.Document), f.Line, f.Message))
		}
	}
	slices.Sort(out)
	return out
}

// A resource listed by two parts of a Resource List index is listed twice
// (section 10.1), in a directory as over HTTP, whatever the order of the
// parts; parts in another order that list each resource once are valid.
func TestDuplicatesAcrossParts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		parts   [][]string
		want    []string // the part and line of each repeat, and the first
		inOrder bool     // the parts need not be read again
	}{
		{"one part repeats another's, out of order", [][]string{{"c", "a"}, {"b", "a"}}, []string{"resourcelist-00002.xml:4 resourcelist-00001.xml, line 4"}, false},
		{"parts in order that touch", [][]string{{"a", "b"}, {"b", "c"}}, []string{"resourcelist-00002.xml:3 resourcelist-00001.xml, line 4"}, false},
		{"three parts, one loc in each", [][]string{{"x"}, {"x"}, {"x"}}, []string{"resourcelist-00002.xml:3 resourcelist-00001.xml, line 3", "resourcelist-00003.xml:3 resourcelist-00001.xml, line 3"}, false},
		{"parts in reverse order, each once", [][]string{{"c", "d"}, {"a", "b"}}, nil, false},
		{"parts in the order of their paths, escaped", [][]string{{"a/%20", "a/z"}, {"a/%C3%A9", "b"}}, nil, true},
		{"in order", [][]string{{"a", "b"}, {"c", "d"}}, nil, true},
		{"parts in the order of their locs, escaped", [][]string{{"a/%C3%A9", "a/%FF"}, {"a/z"}}, nil, true},
		{"parts in neither order", [][]string{{"a/z", "a/%C3%A9"}, {"a/%C3%80"}}, nil, false},
	} {
		docs := indexedSite(tc.parts...)
		check := func(t *testing.T, rep *validate.Report, readAgain int) {
			t.Helper()
			if readAgain >= 0 && (readAgain == 0) != tc.inOrder {
				t.Errorf("the parts were read again %d times; in order: %v", readAgain, tc.inOrder)
			}
			got := duplicates(rep)
			if len(got) != len(tc.want) {
				t.Fatalf("duplicate findings %q, want %d", got, len(tc.want))
			}
			for i, w := range tc.want {
				part, first, _ := strings.Cut(w, " ")
				if !strings.HasPrefix(got[i], part+": ") || !strings.Contains(got[i], "(first in ") || !strings.Contains(got[i], first) {
					t.Errorf("finding %q, want in %s naming %s", got[i], part, first)
				}
			}
		}
		t.Run(tc.name+"/directory", func(t *testing.T) {
			dir := t.TempDir()
			for name, doc := range docs {
				testenv.WriteFile(t, dir, name, strings.ReplaceAll(doc, "BASE", "https://example.org/"))
			}
			rep, err := validate.Path(context.Background(), dir, validate.Options{})
			if err != nil {
				t.Fatal(err)
			}
			check(t, rep, -1) // the http case shows which parts are read again
		})
		t.Run(tc.name+"/http", func(t *testing.T) {
			var gets atomic.Int64 // of the parts
			base := serveDocs(t, docs, func(path string) {
				if strings.Contains(path, "resourcelist-") {
					gets.Add(1)
				}
			})
			rep, err := validate.Site(context.Background(), base, validate.Options{})
			if err != nil {
				t.Fatal(err)
			}
			check(t, rep, int(gets.Load())-len(tc.parts))
		})
	}
}

// An index that lists one part twice, under any spelling of its URL,
// lists that part's resources twice.
func TestPartListedTwice(t *testing.T) {
	t.Parallel()
	for _, again := range []string{"BASEresourcesync/resourcelist-00001.xml", "BASEresourcesync/resourcelist-0000%31.xml"} {
		docs := indexedSite([]string{"a"}, []string{"b"})
		docs["resourcesync/resourcelist.xml"] = strings.Replace(docs["resourcesync/resourcelist.xml"], "</sitemapindex>",
			`<sitemap><loc>`+again+`</loc><rs:md at="2024-06-01T00:00:00Z"/></sitemap>`+"\n</sitemapindex>", 1)
		base := serveDocs(t, docs)
		rep, err := validate.Site(context.Background(), base, validate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := duplicates(rep); len(got) != 1 || !strings.HasPrefix(got[0], "resourcelist.xml:5: ") {
			t.Errorf("%s listed again: duplicate findings %q, want one on line 5 of the index", again, got)
		}
	}
}
