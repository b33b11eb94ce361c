package validate

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/testenv"
)

// generated streams a Resource List of n entries, each padded with pad
// bytes of white space, without holding it in memory.
func generated(n, pad int) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		var b bytes.Buffer
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:ln rel="up" href="http://example.com/capabilitylist.xml"/>
<rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
`)
		padding := strings.Repeat(" ", pad)
		for i := range n {
			fmt.Fprintf(&b, "<url><loc>http://example.com/r%d</loc><rs:md length=\"%d\"/>%s</url>\n", i, i, padding)
			if b.Len() > 64<<10 {
				if _, err := pw.Write(b.Bytes()); err != nil {
					return
				}
				b.Reset()
			}
		}
		b.WriteString("</urlset>\n")
		pw.Write(b.Bytes())
		pw.Close()
	}()
	return pr
}

func TestLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		n, pad   int
		rule     string
		long     bool
		problems int
	}{
		{"50,000 entries", rsxml.MaxEntries, 0, "", false, 0},
		{"50,001 entries", rsxml.MaxEntries + 1, 0, RuleLimitEntries, false, 1},
		{"over 50 MB", 50000, 1100, RuleLimitBytes, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.long && testing.Short() {
				t.Skip("reads 50 MB")
			}
			s := newSink()
			checkDocument(s, "gen.xml", "", generated(tt.n, tt.pad), docOptions{})
			rep := s.report()
			if rep.Errors != tt.problems {
				t.Fatalf("%d errors, want %d: %v", rep.Errors, tt.problems, rep.Findings)
			}
			if tt.rule != "" && rep.Findings[0].Rule != tt.rule {
				t.Errorf("finding %s, want rule %s", rep.Findings[0], tt.rule)
			}
		})
	}
}

// BenchmarkCheckDocument measures the validator on a Resource List of
// 50,000 entries (about 6 MB), as rsgen build re-reads what it publishes,
// and reports the CPU time (user and system) per entry.
func BenchmarkCheckDocument(b *testing.B) {
	var doc bytes.Buffer
	io.Copy(&doc, generated(rsxml.MaxEntries, 0))
	b.SetBytes(int64(doc.Len()))
	cpu := testenv.CPUTime()
	for b.Loop() {
		s := newSink()
		checkDocument(s, "gen.xml", "", bytes.NewReader(doc.Bytes()), docOptions{})
		if s.errors > 0 {
			b.Fatal(s.findings)
		}
	}
	b.ReportMetric(float64((testenv.CPUTime()-cpu).Nanoseconds())/1e3/float64(rsxml.MaxEntries*b.N), "cpu-us/entry")
}

// BenchmarkCheckEntries measures the rules of one entry alone, without
// reading: 50,000 entries of a Resource List such as rsgen writes (sorted
// locs, lastmod, sha-256, length, type).
func BenchmarkCheckEntries(b *testing.B) {
	entries := make([]rsxml.Entry, rsxml.MaxEntries)
	for i := range entries {
		entries[i] = rsxml.Entry{Loc: fmt.Sprintf("https://example.org/collection/%03d/item-%05d.html", i/1000, i), Lastmod: "2024-06-01T00:00:00Z", Line: 6 + 5*i,
			MD: rsxml.MD{Hash: "sha-256:" + strings.Repeat(fmt.Sprintf("%08x", i), 8), Length: fmt.Sprint(1000 + i), Type: "text/html"}, HasMD: true, MDCount: 1, MDLine: 9 + 5*i}
	}
	doc := &rsxml.Doc{MD: rsxml.MD{Capability: rsxml.CapResourceList, At: "2024-06-01T00:00:00Z"}, MDLine: 4,
		Links: []rsxml.Link{{Rel: "up", Href: "https://example.org/resourcesync/capabilitylist.xml", Line: 3}}}
	cpu := testenv.CPUTime()
	for b.Loop() {
		s := newSink()
		c := &docCheck{s: s, info: &docInfo{name: "resourcelist.xml"}, doc: doc}
		c.root()
		for i := range entries {
			c.entry(&entries[i])
		}
		if s.errors > 0 {
			b.Fatal(s.findings)
		}
	}
	b.ReportMetric(float64((testenv.CPUTime()-cpu).Nanoseconds())/1e3/float64(len(entries)*b.N), "cpu-us/entry")
}
