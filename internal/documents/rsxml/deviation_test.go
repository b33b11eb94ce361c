package rsxml

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func readAllDeviations(t *testing.T, doc string) (root, entries, foreign []Deviation, err error) {
	t.Helper()
	rd, err := NewReader(strings.NewReader(doc), ReadOptions{})
	if err != nil {
		return nil, nil, nil, err
	}
	for {
		e, err := rd.Next()
		if err == io.EOF {
			return rd.Deviations, entries, foreign, nil
		}
		if err != nil {
			return nil, nil, nil, err
		}
		entries = append(entries, e.Deviations...)
		foreign = append(foreign, e.Foreign...)
	}
}

const devHead = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/" xmlns:x="urn:x">
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
`

func TestReaderDeviations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                   string
		body                   string
		root, entries, foreign int
		line                   int // line of the first deviation, if any
	}{
		{"clean", `<url><loc>http://example.com/a</loc><lastmod>2013-01-01</lastmod><rs:md length="1"/><rs:ln rel="a" href="http://example.com/b"/></url>`, 0, 0, 0, 0},
		{"md before loc", "<url>\n<rs:md length=\"1\"/><loc>http://example.com/a</loc></url>", 0, 1, 0, 5},
		{"lastmod after md", `<url><loc>http://example.com/a</loc><rs:md length="1"/><lastmod>2013-01-01</lastmod></url>`, 0, 1, 0, 4},
		{"lastmod twice", `<url><loc>http://example.com/a</loc><lastmod>2013-01-01</lastmod><lastmod>2013-01-01</lastmod></url>`, 0, 1, 0, 4},
		{"content in md", `<url><loc>http://example.com/a</loc><rs:md length="1"> </rs:md></url>`, 0, 1, 0, 4},
		{"attribute on url", `<url id="1"><loc>http://example.com/a</loc></url>`, 0, 1, 0, 4},
		{"foreign element", `<url><loc>http://example.com/a</loc><x:image/></url>`, 0, 0, 1, 0},
		{"late root link", "<url><loc>http://example.com/a</loc></url>\n<rs:ln rel=\"up\" href=\"http://example.com/c\"/>", 1, 0, 0, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, entries, foreign, err := readAllDeviations(t, devHead+tt.body+"\n</urlset>\n")
			if err != nil {
				t.Fatal(err)
			}
			if len(root) != tt.root || len(entries) != tt.entries || len(foreign) != tt.foreign {
				t.Fatalf("deviations root %v, entries %v, foreign %v; want %d, %d, %d", root, entries, foreign, tt.root, tt.entries, tt.foreign)
			}
			all := append(root, entries...)
			if tt.line > 0 && all[0].Line != tt.line {
				t.Errorf("first deviation on line %d, want %d (%s)", all[0].Line, tt.line, all[0].Msg)
			}
		})
	}
}

func TestReaderSyntaxKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		doc  string
		kind SyntaxKind
	}{
		{"malformed", devHead + "<url><loc>x</url>", SyntaxMalformed},
		{"root", `<feed xmlns="http://www.w3.org/2005/Atom"/>`, SyntaxRoot},
		{"unknown sitemap element", devHead + "<url><loc>http://example.com/a</loc><image/></url></urlset>", SyntaxShape},
		{"no loc", devHead + "<url><lastmod>2013-01-01</lastmod></url></urlset>", SyntaxShape},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, _, err := readAllDeviations(t, tt.doc)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want a SyntaxError", err)
			}
			if se.Kind != tt.kind {
				t.Errorf("kind %d, want %d (%v)", se.Kind, tt.kind, err)
			}
		})
	}
}
