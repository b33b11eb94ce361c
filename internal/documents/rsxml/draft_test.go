package rsxml

import (
	"errors"
	"strings"
	"testing"
)

// Documents of the 2012 drafts put <rs:md> in http://www.openarchives.org/rs/:
// the error says which namespace ResourceSync uses.
func TestDraftNamespaceHint(t *testing.T) {
	t.Parallel()
	const hint = "the namespace of the 2012 drafts: ResourceSync 1.0 and 1.1 use http://www.openarchives.org/rs/terms/"
	root := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/">
  <rs:md capability="resourcelist" modified="2012-10-31T09:00:00Z"/>
</urlset>`
	_, _, err := ReadAll(strings.NewReader(root), ReadOptions{})
	var se *SyntaxError
	if !errors.As(err, &se) || se.Kind != SyntaxShape || se.Line != 2 || !strings.Contains(se.Msg, hint) {
		t.Errorf("root: err = %v, want a shape error on line 2 with the hint", err)
	}

	entry := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/" xmlns:old="http://www.openarchives.org/rs/">
  <rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
  <url><loc>http://example.com/res1</loc><old:md length="1"/><image xmlns="http://www.google.com/schemas/sitemap-image/1.1"/></url>
</urlset>`
	_, entries, err := ReadAll(strings.NewReader(entry), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f := entries[0].Foreign; len(f) != 2 || !strings.Contains(f[0].Msg, hint) || strings.Contains(f[1].Msg, "2012") {
		t.Errorf("entry: foreign elements %v, want the hint on the first only", f)
	}
}
