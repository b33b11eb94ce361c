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

		// Namespaces in XML 1.0, which encoding/xml does not enforce.
		{"undeclared prefix of an element", root + `<url><loc>a</loc><zz:md/></url></urlset>`, "the prefix zz of <zz:md> is not declared"},
		{"prefix declared on a sibling only", root + `<url><loc>a</loc><x:a xmlns:x="urn:x"/><x:b/></url></urlset>`, "the prefix x of <x:b> is not declared"},
		{"undeclared prefix of an attribute", root + `<url><loc>a</loc><rs:md zz:a="1"/></url></urlset>`, "the prefix zz of attribute zz:a is not declared"},
		{"undeclared prefix of the root", `<sm:urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></sm:urlset>`, "the prefix sm of <sm:urlset>"},
		{"element of prefix xmlns", root + `<url><loc>a</loc><xmlns:a/></url></urlset>`, "the prefix xmlns of <xmlns:a> is not declared"},
		{"element name with a colon first", root + `<url><loc>a</loc><:a/></url></urlset>`, "element name :a is not a QName"},
		{"element name with two colons", root + `<url><loc>a</loc><a:b:c/></url></urlset>`, "element name a:b:c is not a QName"},
		{"attribute name with a colon last", root + `<url><loc>a</loc><rs:md b:="1"/></url></urlset>`, "attribute name b: is not a QName"},
		{"xml bound elsewhere", root + `<url xmlns:xml="http://bad"><loc>a</loc></url></urlset>`, "the prefix xml can only be bound to http://www.w3.org/XML/1998/namespace"},
		{"another prefix bound to xml's namespace", root + `<url xmlns:x="http://www.w3.org/XML/1998/namespace"><loc>a</loc></url></urlset>`, "only the prefix xml can be bound"},
		{"default namespace of xml", root + `<url><loc>a</loc><a xmlns="http://www.w3.org/XML/1998/namespace"/></url></urlset>`, "only the prefix xml can be bound"},
		{"xmlns declared", root + `<url xmlns:xmlns="urn:x"><loc>a</loc></url></urlset>`, "the prefix xmlns cannot be declared"},
		{"xmlns's namespace bound", root + `<url xmlns:x="http://www.w3.org/2000/xmlns/"><loc>a</loc></url></urlset>`, "no prefix can be bound to http://www.w3.org/2000/xmlns/"},
		{"prefix undeclared", root + `<url xmlns:rs=""><loc>a</loc></url></urlset>`, `xmlns:rs="" undeclares a prefix`},

		// The target xml is the XML declaration's, at the very start only.
		{"declaration after the root", root + `<url><loc>a</loc></url></urlset>` + "\n<?xml version=\"1.0\"?>\n", "XML declaration <?xml …?> is allowed only at the very start"},
		{"declaration twice", `<?xml version="1.0"?><?xml version="1.0"?>` + root + `</urlset>`, "allowed only at the very start"},
		{"declaration inside the root", root + `<?xml version="1.0"?></urlset>`, "allowed only at the very start"},
		{"white space before the declaration", " \n<?xml version=\"1.0\"?>" + root + `</urlset>`, "allowed only at the very start"},
		{"white space after a byte order mark", "\uFEFF <?xml version=\"1.0\"?>" + root + `</urlset>`, "allowed only at the very start"},
		{"comment before the declaration", `<!-- c --><?xml version="1.0"?>` + root + `</urlset>`, "allowed only at the very start"},
		{"processing instruction XML", `<?XML version="1.0"?>` + root + `</urlset>`, "the processing instruction target XML is reserved"},
		{"processing instruction xMl in the root", root + `<url><loc>a</loc><?xMl x?></url></urlset>`, "target xMl is reserved"},
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

// TestReadAcceptsNamespaces: what Namespaces in XML 1.0 allows, next to
// what it forbids above, is read.
func TestReadAcceptsNamespaces(t *testing.T) {
	t.Parallel()
	const root = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">`
	for _, doc := range []string{
		`<?xml version="1.0"?>` + root + `<url><loc>a</loc></url></urlset>`,
		"\uFEFF<?xml version=\"1.0\"?>" + root + `<url><loc>a</loc></url></urlset>`,
		root + `<url xmlns:xml="http://www.w3.org/XML/1998/namespace" xml:lang="en"><loc>a</loc></url></urlset>`,
		root + `<url><loc>a</loc><x:a xmlns:x="urn:x"><b xmlns=""/><x:c/></x:a></url></urlset>`,
		root + `<url><loc>a</loc><?xml-stylesheet href="a"?><?xmlx?></url></urlset>`,
	} {
		if _, entries, err := ReadAll(strings.NewReader(doc), ReadOptions{}); err != nil || len(entries) != 1 {
			t.Errorf("%d entries, error %v, want 1 entry read from\n%s", len(entries), err, doc)
		}
	}
}

// TestReadNormalizesAttributes: a line break or tab written in an
// attribute value is a space; one written as a reference stays itself
// (XML 1.0 §3.3.3).
func TestReadNormalizesAttributes(t *testing.T) {
	t.Parallel()
	for value, want := range map[string]string{
		"text/\nplain":        "text/ plain",
		"text/\tplain":        "text/ plain",
		"text/\r\nplain":      "text/ plain",
		"text/\rplain":        "text/ plain",
		"\n text/plain\r\n\r": "  text/plain  ",
		"text/&#10;plain":     "text/\nplain",
		"text/&#9;plain":      "text/\tplain",
		"text/&#13;&#10;":     "text/\r\n",
		"a&#10;\nb":           "a\n b",
	} {
		doc := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"><url><loc>a</loc>` +
			`<rs:md type="` + value + `"/><rs:ln rel="x" href='` + value + `'/></url></urlset>`
		_, entries, err := ReadAll(strings.NewReader(doc), ReadOptions{})
		if err != nil {
			t.Fatalf("%q: %v", value, err)
		}
		if e := entries[0]; e.MD.Type != want || e.Links[0].Href != want {
			t.Errorf("%q read as type %q and href %q, want %q", value, e.MD.Type, e.Links[0].Href, want)
		}
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
