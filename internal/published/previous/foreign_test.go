package previous

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// restyle rewrites every document of dir with rewrite.
func restyle(t *testing.T, dir string, rewrite func(string) string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(p, []byte(rewrite(string(b))), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

var (
	sitemapTag  = regexp.MustCompile(`<(/?)(urlset|sitemapindex|url|sitemap|loc|lastmod)\b`)
	rsTag       = regexp.MustCompile(`<(/?)rs:`)
	utcDatetime = regexp.MustCompile(`(\d{4}-\d\d-\d\d)T(\d\d):(\d\d:\d\d)Z`)
	midnight    = regexp.MustCompile(`<lastmod>(\d{4}-\d\d-\d\d)T00:00:00Z</lastmod>`)
	dquoted     = regexp.MustCompile(`="([^"]*)"`)
)

const (
	nsSitemapDecl = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"`
	nsRSDecl      = `xmlns:rs="http://www.openarchives.org/rs/terms/"`
)

// The ways other implementations write what the spec allows (see
// validate/testdata/foreign): a previous build written so reads as the
// same build.
var foreignStyles = []struct {
	name    string
	rewrite func(string) string
}{
	{"sm: prefix (DSpace's ResourceSyncJava)", func(s string) string {
		s = strings.Replace(s, nsSitemapDecl, `xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"`, 1)
		return sitemapTag.ReplaceAllString(s, "<${1}sm:$2")
	}},
	{"ns2: prefix, ResourceSync the default namespace (JAXB)", func(s string) string {
		s = strings.Replace(s, nsSitemapDecl, `xmlns:ns2="http://www.sitemaps.org/schemas/sitemap/0.9"`, 1)
		s = strings.Replace(s, nsRSDecl, `xmlns="http://www.openarchives.org/rs/terms/"`, 1)
		s = sitemapTag.ReplaceAllString(s, "<${1}ns2:$2")
		return rsTag.ReplaceAllString(s, "<$1")
	}},
	{"byte order mark and CRLF (.NET XmlWriter)", func(s string) string {
		return "\ufeff" + strings.ReplaceAll(s, "\n", "\r\n")
	}},
	{"no declaration, single quotes (the Ruby gem's REXML)", func(s string) string {
		_, s, _ = strings.Cut(s, "?>\n")
		return dquoted.ReplaceAllString(s, "='$1'")
	}},
	{"offsets and fractions of a second", func(s string) string {
		return utcDatetime.ReplaceAllStringFunc(s, func(v string) string {
			m := utcDatetime.FindStringSubmatch(v)
			if m[2] == "23" {
				panic("the test data has a time at 23h, which +01:00 cannot shift without changing the day")
			}
			return m[1] + "T" + string(m[2][0]) + string(m[2][1]+1) + ":" + m[3] + ".000+01:00"
		})
	}},
	{"date-only lastmod", func(s string) string {
		return midnight.ReplaceAllString(s, "<lastmod>$1</lastmod>")
	}},
	{"text on lines of its own (Python 2's minidom.toprettyxml)", func(s string) string {
		for _, tag := range []string{"loc", "lastmod"} {
			s = strings.ReplaceAll(s, "<"+tag+">", "<"+tag+">\n\t\t\t")
			s = strings.ReplaceAll(s, "</"+tag+">", "\n\t\t</"+tag+">")
		}
		return s
	}},
	{"comments and a processing instruction", func(s string) string {
		s = strings.Replace(s, "?>\n", "?>\n<?xml-stylesheet type=\"text/xsl\" href=\"/sitemap.xsl\"?>\n<!-- written elsewhere -->\n", 1)
		return strings.ReplaceAll(s, "  <url>", "  <!-- an entry -->\n  <url>")
	}},
}

func TestReadForeignStyles(t *testing.T) {
	t.Parallel()
	at := mustTime(t, "2024-06-03T00:00:00Z")
	want, err := readAll(context.Background(), fixture(t, "good"), Options{At: at})
	if err != nil {
		t.Fatal(err)
	}
	for _, style := range foreignStyles {
		t.Run(style.name, func(t *testing.T) {
			dir := fixture(t, "good")
			restyle(t, dir, style.rewrite)
			site, err := readAll(context.Background(), dir, Options{At: at})
			if err != nil {
				t.Fatal(err)
			}
			if site.DocsBase != want.DocsBase || site.CapabilityList != want.CapabilityList || !site.At.Equal(want.At) {
				t.Errorf("read %s, %s, %v; want %s, %s, %v", site.DocsBase, site.CapabilityList, site.At, want.DocsBase, want.CapabilityList, want.At)
			}
			if len(site.Resources) != len(want.Resources) {
				t.Fatalf("%d resources, want %d", len(site.Resources), len(want.Resources))
			}
			for i, r := range site.Resources {
				w := want.Resources[i]
				if r.Loc != w.Loc || !r.Lastmod.Equal(w.Lastmod) || r.Length != w.Length || r.Type != w.Type || !reflect.DeepEqual(r.Hash, w.Hash) {
					t.Errorf("resource %d read as %+v, want %+v", i, r, w)
				}
			}
			if len(site.ChangeLists) != len(want.ChangeLists) {
				t.Fatalf("%d change lists, want %d", len(site.ChangeLists), len(want.ChangeLists))
			}
			for i, cl := range site.ChangeLists {
				w := want.ChangeLists[i]
				if cl.Rel != w.Rel || !cl.From.Equal(w.From) || !cl.Until.Equal(w.Until) || cl.Entries != w.Entries {
					t.Errorf("change list %d read as %s %v %v (%d entries), want %s %v %v (%d)", i, cl.Rel, cl.From, cl.Until, cl.Entries, w.Rel, w.From, w.Until, w.Entries)
				}
				// Carried forward as published, in its own style.
				data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(cl.Rel)))
				if err != nil {
					t.Fatal(err)
				}
				if string(listData(t, site.Site, &cl)) != string(data) {
					t.Errorf("change list %d: the bytes kept are not those published", i)
				}
			}
		})
	}
}

// The offsets style must change every time of the test data, or it tests
// nothing.
func TestForeignStylesChangeTheDocuments(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/good/resourcesync/resourcelist-00001.xml")
	if err != nil {
		t.Fatal(err)
	}
	for _, style := range foreignStyles {
		if out := style.rewrite(string(b)); out == string(b) {
			t.Errorf("%s leaves resourcelist-00001.xml as it is", style.name)
		}
	}
	if got := foreignStyles[4].rewrite(`at="2024-06-03T06:30:00Z"`); got != `at="2024-06-03T07:30:00.000+01:00"` {
		t.Errorf("offsets: %s", got)
	}
	if tm, err := rsxml.ParseTime("2024-06-03T07:30:00.000+01:00"); err != nil || !tm.Equal(time.Date(2024, 6, 3, 6, 30, 0, 0, time.UTC)) {
		t.Errorf("ParseTime: %v, %v", tm, err)
	}
}

// A <loc> must be an absolute URI (section 7): a previous build whose
// documents use relative ones is refused, naming the document and line,
// rather than read as URLs no build publishes.
func TestReadRelativeLocs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, rel, old, new string
		doc                 string
	}{
		{"Capability List in the Source Description", ".well-known/resourcesync",
			"<loc>https://example.org/resourcesync/capabilitylist.xml</loc>", "<loc>../resourcesync/capabilitylist.xml</loc>",
			".well-known/resourcesync"},
		{"a resource in the Resource List", "resourcesync/resourcelist-00001.xml",
			"<loc>https://example.org/data/holdings.csv</loc>", "<loc>data/holdings.csv</loc>",
			"resourcesync/resourcelist-00001.xml"},
		{"a part in the Resource List Index", "resourcesync/resourcelist.xml",
			"<loc>https://example.org/resourcesync/resourcelist-00002.xml</loc>", "<loc>resourcelist-00002.xml</loc>",
			"resourcesync/resourcelist.xml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fixture(t, "good")
			edit(t, dir, tt.rel, tt.old, tt.new)
			_, err := readAll(context.Background(), dir, Options{})
			var pe *Error
			if !errors.As(err, &pe) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want an *Error of ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.doc) || !strings.Contains(err.Error(), "is not an absolute URI") {
				t.Errorf("err = %v, want it to name %s and say the URL is not absolute", err, tt.doc)
			}
		})
	}
}
