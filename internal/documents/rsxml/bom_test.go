package rsxml

import (
	"strings"
	"testing"
)

// TestReaderSkipsByteOrderMark checks that a document starting with a UTF-8
// byte order mark, which XML allows, reads like the same one without it,
// and that a BOM anywhere else is still refused.
func TestReaderSkipsByteOrderMark(t *testing.T) {
	t.Parallel()
	const doc = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:md capability="resourcelist" at="2024-06-01T00:00:00Z"/>
  <url><loc>https://example.org/a</loc></url>
</urlset>
`
	for _, tt := range []struct {
		name string
		in   string
		ok   bool
	}{
		{"no BOM", doc, true},
		{"BOM", "\uFEFF" + doc, true},
		{"BOM without declaration", "\uFEFF" + doc[strings.Index(doc, "\n")+1:], true},
		{"two BOMs", "\uFEFF\uFEFF" + doc, false},
		{"BOM after white space", "\n\uFEFF" + doc, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, entries, err := ReadAll(strings.NewReader(tt.in), ReadOptions{})
			if !tt.ok {
				if err == nil {
					t.Fatal("read succeeded; want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.MD.Capability != CapResourceList || len(entries) != 1 || entries[0].Loc != "https://example.org/a" {
				t.Errorf("read %+v, %d entries", d.MD, len(entries))
			}
		})
	}
}
