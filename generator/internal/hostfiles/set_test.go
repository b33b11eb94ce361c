package hostfiles

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs/docstest"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/documents/uri"
)

// newSet is a build for hosts published at https://example.org/, its
// documents staged apart (docstest.Writer).
func newSet(t *testing.T, hosts ...string) *Set {
	t.Helper()
	base, err := uri.ParseBase("https://example.org/")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	d := docstest.Writer(t)
	return &Set{Hosts: hosts, BaseURL: base, DocsURL: base, Hashes: hashing.DefaultSet, At: at, Completed: at,
		Docs: d, Stage: d.Stage}
}

// write stages the files of s, the one set of a build without sets whose
// output directory is out; its notices go to *notices.
func write(s *Set, out string, notices *[]string) error {
	p, err := s.Part(nil)
	if err != nil {
		return err
	}
	site := &Site{Out: out, DocsURL: s.DocsURL, Hosts: s.Hosts, Templates: s.Templates, At: s.At, Notice: func(m string) { *notices = append(*notices, m) }}
	return site.Write(s.Stage, []*Part{p})
}

// A user's _headers with a block for rsgen gets rsgen's rules in the
// block at every build, and keeps its own lines (with generator's
// TestHostFileBrokenBlock, which refuses one whose block is broken).
func TestHeadersMergedInBlock(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	p := filepath.Join(out, hosting.Headers)
	if err := os.WriteFile(p, []byte("# BEGIN rsgen\n# END rsgen\n/*\n  X-Frame-Options: DENY\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for build := 1; build <= 2; build++ {
		var notices []string
		s := newSet(t, hosting.Netlify)
		if err := write(s, out, &notices); err != nil {
			t.Fatalf("build %d: %v", build, err)
		}
		got, err := os.ReadFile(s.Stage.Path(hosting.Headers))
		if err != nil {
			t.Fatal(err)
		}
		before, after, ok := strings.Cut(string(got), "# END rsgen\n")
		if !ok || after != "/*\n  X-Frame-Options: DENY\n" || !strings.HasPrefix(before, "# BEGIN rsgen\n# "+hosting.Marker) ||
			!strings.Contains(before, "/.well-known/resourcesync\n  Content-Type: application/xml\n") || strings.Count(string(got), hosting.Marker) != 1 {
			t.Fatalf("build %d: _headers is\n%s", build, got)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil { // published
			t.Fatal(err)
		}
	}
}

// Cloudflare Pages applies the first 100 rules of _headers: the user's
// rules around rsgen's block count as well as rsgen's own.
func TestCloudflareRuleLimitCountsTheUsersRules(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		theirs int
		notice bool
	}{{0, false}, {99, true}} {
		out := t.TempDir()
		var theirs strings.Builder
		theirs.WriteString("# BEGIN rsgen\n# END rsgen\n")
		for i := range tt.theirs {
			fmt.Fprintf(&theirs, "/page-%d\n  X-Robots-Tag: noindex\n", i)
		}
		if err := os.WriteFile(filepath.Join(out, hosting.Headers), []byte(theirs.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		var notices []string
		if err := write(newSet(t, hosting.Cloudflare), out, &notices); err != nil {
			t.Fatal(err)
		}
		if noticed := strings.Contains(strings.Join(notices, "\n"), "Cloudflare Pages applies the first 100"); noticed != tt.notice {
			t.Errorf("%d rules of the user's: notices %q; want the Cloudflare one: %v", tt.theirs, notices, tt.notice)
		}
	}
}

// The layout follows from the parts: the one unnamed set's pages are in
// resourcesync/ itself and no site page replaces its landing page; the
// sets of a site have theirs in resourcesync/<set>/, under the site's
// landing page that lists them, and the hosts' files name every set.
func TestSiteLayoutFromParts(t *testing.T) {
	t.Parallel()
	one := newSet(t, hosting.Nginx)
	var notices []string
	if err := write(one, t.TempDir(), &notices); err != nil {
		t.Fatal(err)
	}
	if page := docstest.Staged(t, one.Docs, "index.html"); strings.Contains(page, "resource sets") {
		t.Errorf("the one set's landing page is the site's:\n%s", page)
	}

	stg := newSet(t).Stage
	var parts []*Part
	for _, name := range []string{"a", "b"} {
		s := newSet(t, hosting.Nginx)
		s.Name, s.Stage, s.Hosts = name, stg, nil
		s.Docs.Stage, s.Docs.Dir = stg, "resourcesync/"+name
		p, err := s.Part(nil)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	site := &Site{Out: t.TempDir(), DocsURL: one.DocsURL, Hosts: []string{hosting.Nginx}, At: one.At, Notice: func(string) {}}
	if err := site.Write(stg, parts); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"resourcesync/a/index.html", "resourcesync/b/index.html"} {
		if _, err := os.Stat(stg.Path(name)); err != nil {
			t.Errorf("the set's page: %v", err)
		}
	}
	page, err := os.ReadFile(stg.Path(hosting.LandingPage))
	if err != nil || !strings.Contains(string(page), "2 resource sets") {
		t.Errorf("the site's landing page (%v):\n%s", err, page)
	}
	conf, err := os.ReadFile(stg.Path(hosting.NginxConf))
	if err != nil || !strings.Contains(string(conf), "/resourcesync/a/") || !strings.Contains(string(conf), "/resourcesync/b/") {
		t.Errorf("%s names both sets (%v):\n%s", hosting.NginxConf, err, conf)
	}
}
