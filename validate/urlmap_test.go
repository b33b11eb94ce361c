package validate_test

import (
	"testing"

	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/validate"
)

// TestPathToURLAgreesWithBuild: the validator gives a file of a directory
// the URL the build publishes for it (issue 14: url.PathEscape left
// + : @ = & $ unescaped, which the build escapes).
func TestPathToURLAgreesWithBuild(t *testing.T) {
	t.Parallel()
	const base = "https://example.org/site/"
	b, err := uri.ParseBase(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{
		"resourcesync/resourcelist.xml", "a+b.xml", "c:d.xml", "e@f.xml", "g=h.xml", "i&j.xml", "k$l.xml",
		"dir;x/m,n.xml", "o'p(q)*!.xml", "what?.xml", "a#b.xml", "with space/café.xml", "p%zz.xml", "~-._.xml",
	} {
		want, err := b.Resolve(rel)
		if err != nil {
			t.Fatal(err)
		}
		if got := validate.DocURL(base, rel); got != want {
			t.Errorf("%q: validate maps it to %s, the build to %s", rel, got, want)
		}
	}
}
