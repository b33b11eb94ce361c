package detect

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/internal/spill/spilltest"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/published/previous"
)

const base = "https://example.org/"

var (
	since = time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC) // the previous build's snapshot
	at    = time.Date(2024, 6, 3, 0, 0, 0, 0, time.UTC) // this build's
)

// sha is the hash attribute of content by SHA-256.
func sha(content string) string {
	sum := sha256.Sum256([]byte(content))
	return "sha-256:" + hex.EncodeToString(sum[:])
}

// digests are the tokens of attr, a hash attribute.
func digests(attr string) []hashing.Token {
	tokens, err := hashing.ParseAttr(attr)
	if err != nil {
		panic(err)
	}
	return tokens
}

// md5Attr is the hash attribute of content by MD5.
func md5Attr(content string) string {
	sum := md5.Sum([]byte(content))
	return "md5:" + hex.EncodeToString(sum[:])
}

// An entry is one of the previous build's Resource List.
type entry struct {
	loc     string // under base unless absolute
	lastmod time.Time
	hash    string
	length  int64
}

// writePrevious publishes a previous build in a directory, its Resource
// List holding entries in the order given, and reads it back as a build
// of base does.
func writePrevious(t testing.TB, entries ...entry) *previous.Site {
	t.Helper()
	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		doc := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
` + body + "</urlset>\n"
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".well-known/resourcesync", `<rs:md capability="description"/>
<url><loc>`+base+`resourcesync/capabilitylist.xml</loc><rs:md capability="capabilitylist"/></url>
`)
	write("resourcesync/capabilitylist.xml", `<rs:ln rel="up" href="`+base+`.well-known/resourcesync"/>
<rs:md capability="capabilitylist"/>
<url><loc>`+base+`resourcesync/resourcelist.xml</loc><rs:md capability="resourcelist"/></url>
`)
	var b strings.Builder
	ts := since.Format(time.RFC3339)
	fmt.Fprintf(&b, `<rs:ln rel="up" href="%sresourcesync/capabilitylist.xml"/>
<rs:md capability="resourcelist" at="%s" completed="%s"/>
`, base, ts, ts)
	for _, e := range entries {
		loc := e.loc
		if !strings.Contains(loc, "://") {
			loc = base + loc
		}
		fmt.Fprintf(&b, "<url><loc>%s</loc><lastmod>%s</lastmod><rs:md hash=%q length=\"%d\"/></url>\n",
			loc, e.lastmod.Format(time.RFC3339), e.hash, e.length)
	}
	write("resourcesync/resourcelist.xml", b.String())
	site, err := previous.Read(context.Background(), dir, previous.Options{DocsURL: base})
	if err != nil {
		t.Fatal(err)
	}
	return site
}

// spoolOf spools the entries of site, keyed by their paths under base.
func spoolOf(t testing.TB, area *spill.Area, site *previous.Site) *Previous {
	t.Helper()
	b, err := uri.ParseBase(base)
	if err != nil {
		t.Fatal(err)
	}
	p, err := SpoolPrevious(context.Background(), site, b, area, func(err error) { t.Errorf("spooling the previous entries: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// newJoin is a Join of a build at at with a previous build of entries at
// since, publishing SHA-256.
func newJoin(t testing.TB, entries ...entry) *Join {
	t.Helper()
	area := spilltest.Area(t)
	return &Join{
		Previous: spoolOf(t, area, writePrevious(t, entries...)),
		Since:    since,
		At:       at,
		Hashes:   hashing.Set{hashing.SHA256},
		Spill:    area,
		Problems: new(report.Problems),
		Report:   &report.ChangeReport{Since: since},
		Notice:   func(msg string) { t.Logf("notice: %s", msg) },
	}
}

// spoolResources spools rs, in the order of their paths, as a scan does.
func spoolResources(t *testing.T, area *spill.Area, rs ...spill.Resource) *spill.ResourceSpool {
	t.Helper()
	return spilltest.Spool(t, area, rs)
}

// A change, as a test states it.
type change struct {
	loc, kind string
	datetime  time.Time
}

// changes reads back the changes of s, in their order.
func changes(t *testing.T, s *spill.ChangeSet) []change {
	t.Helper()
	var out []change
	if err := s.Each(func(c *spill.Change) error {
		out = append(out, change{strings.TrimPrefix(c.Loc, base), c.Change, c.Datetime})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}
