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
