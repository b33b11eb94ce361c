package hostfiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/documents/uri"
)

// The notice about robots.txt comes when the site's robots.txt at the
// root of the host does not name the Resource List, and only then.
func TestRobotsNotice(t *testing.T) {
	t.Parallel()
	const list = "https://example.org/resourcesync/resourcelist.xml"
	root, err := uri.ParseBase("https://example.org/")
	if err != nil {
		t.Fatal(err)
	}
	sub, err := uri.ParseBase("https://example.org/sub/")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		robots string // "" for none
		docs   uri.Base
		notice bool
	}{
		{"names it", "User-agent: *\nSITEMAP:  " + list + "\n", root, false},
		{"names another", "Sitemap: https://example.org/sitemap.xml\n", root, true},
		{"no robots.txt", "", root, false},
		{"not at the root of the host", "User-agent: *\n", sub, false},
		// A line past bufio.Scanner's 64 KiB stopped the reading: the
		// Sitemap line after it was not seen.
		{"names it after a long line", "# " + strings.Repeat("x", 100_000) + "\nSitemap: " + list + "\n", root, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			if tc.robots != "" {
				if err := os.WriteFile(filepath.Join(out, "robots.txt"), []byte(tc.robots), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			robotsNotice(tc.docs, out, list, func(s string) { got = append(got, s) })
			if (len(got) > 0) != tc.notice || tc.notice && !strings.Contains(got[0], "Sitemap: "+list) {
				t.Errorf("notices %q, want one: %v", got, tc.notice)
			}
		})
	}
}
