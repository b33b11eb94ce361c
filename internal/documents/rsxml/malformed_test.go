package rsxml

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadRefusesMalformedXML: what XML 1.0 forbids but encoding/xml lets
// through is refused, with a line.
func TestReadRefusesMalformedXML(t *testing.T) {
	t.Parallel()
	const root = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">`
	many := strings.Repeat(` a0=""`, 1) + func() string {
		var b strings.Builder
		for i := range 40 {
			b.WriteString(` a` + strings.Repeat("x", i) + `="1"`)
		}
		return b.String()
	}()
	for _, tc := range []struct{ name, doc, msg string }{
		{"text before the root", "junk" + root + `</urlset>`, "text before the root"},
		{"ENTITY before the root", `<!ENTITY x "y">` + root + `</urlset>`, "declaration before the root"},
		{"DOCTYPE inside the root", root + `<url><loc>a</loc></url><!DOCTYPE x></urlset>`, "declaration after the start"},
		{"DOCTYPE after the root", root + `</urlset><!DOCTYPE x>`, "declaration after the start"},
		{"attribute twice on the root", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" a="1" a="2"></urlset>`, "attribute a given twice on <urlset>"},
		{"attribute twice on rs:md", root + `<rs:md capability="resourcelist" capability="changelist"/></urlset>`, "attribute capability given twice on <md>"},
		{"attribute twice on an entry rs:ln", root + `<url><loc>a</loc><rs:ln rel="up" href="x" href="y"/></url></urlset>`, "attribute href given twice"},
		{"one of many attributes twice", root + `<rs:md` + many + ` a0="2"/></urlset>`, "attribute a0 given twice"},
		{"same namespace, two prefixes", root + `<rs:md xmlns:x="urn:x" xmlns:y="urn:x" x:a="1" y:a="2"/></urlset>`, "attribute a given twice"},
		{"declaration inside rs:md", root + `<rs:md capability="resourcelist"><!ENTITY x "y"></rs:md></urlset>`, "declaration after the start"},
		{"declaration inside a foreign element", root + `<url><loc>a</loc><x:y xmlns:x="urn:x"><!DOCTYPE z></x:y></url></urlset>`, "declaration after the start"},
		{"attribute twice in a foreign element", root + `<url><loc>a</loc><x:y xmlns:x="urn:x"><z b="1" b="2"/></x:y></url></urlset>`, "attribute b given twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ReadAll(strings.NewReader(tc.doc), ReadOptions{})
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line == 0 || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v, want a *SyntaxError with a line saying %q", err, tc.msg)
			}
			if strings.Count(err.Error(), "line ") > 1 {
				t.Errorf("error %q gives its line twice", err)
			}
		})
	}
}

// TestReadMaxBytes: a document of exactly MaxBytes is read, one byte more
// is ErrTooLarge, however the input is cut into reads.
func TestReadMaxBytes(t *testing.T) {
	t.Parallel()
	doc := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.org/a</loc></url></urlset>` + "\n"
	for _, one := range []bool{false, true} {
		for _, limit := range []int64{int64(len(doc)), int64(len(doc)) - 1} {
			var r io.Reader = strings.NewReader(doc)
			if one {
				r = iotest.OneByteReader(r)
			}
			_, _, err := ReadAll(r, ReadOptions{MaxBytes: limit})
			if want := limit < int64(len(doc)); errors.Is(err, ErrTooLarge) != want {
				t.Errorf("%d bytes, MaxBytes %d, a byte a read %v: error %v", len(doc), limit, one, err)
			}
		}
	}
}
