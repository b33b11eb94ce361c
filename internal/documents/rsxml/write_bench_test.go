package rsxml

import (
	"fmt"
	"io"
	"testing"
	"time"
)

// benchEntries are Resource List entries shaped like rsgen's: a
// percent-encoded URL, a lastmod, a sha-256 digest, a length and a type.
func benchEntries(n int) []Entry {
	es := make([]Entry, n)
	t := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	for i := range es {
		es[i] = Entry{
			Loc:     fmt.Sprintf("https://example.org/collection/d%03d/d%05d/file-%07d.html", i/50000, i/500, i),
			Lastmod: FormatTime(t.Add(time.Duration(i) * time.Second)),
			MD: MD{
				Hash:   fmt.Sprintf("sha-256:%064x", i),
				Length: fmt.Sprint(512 + i%7680),
				Type:   "text/html",
			},
		}
	}
	return es
}

// BenchmarkWriter streams a Resource List of 10,000 entries to
// io.Discard: the cost of rendering, per entry and per byte.
func BenchmarkWriter(b *testing.B) {
	entries := benchEntries(10000)
	doc := Doc{MD: MD{Capability: CapResourceList, At: "2024-06-01T00:00:00Z"}, Links: []Link{{Rel: "up", Href: "https://example.org/resourcesync/capabilitylist.xml"}}}
	var size int64
	b.ReportAllocs()
	for b.Loop() {
		w := NewWriter(io.Discard, doc)
		for i := range entries {
			w.Add(&entries[i])
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		size = w.Size()
	}
	b.SetBytes(size)
	b.ReportMetric(float64(len(entries)*b.N)/b.Elapsed().Seconds(), "entries/s")
}

// BenchmarkAppendEntry renders one entry into a reused buffer, as the list
// planner does for every entry.
func BenchmarkAppendEntry(b *testing.B) {
	entries := benchEntries(1000)
	var buf []byte
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		buf = AppendEntry(buf[:0], false, &entries[i%len(entries)])
		i++
	}
	b.SetBytes(int64(len(buf)))
}

// BenchmarkAppendEscaped escapes a URL with nothing to escape and one
// with characters that need references.
func BenchmarkAppendEscaped(b *testing.B) {
	for _, s := range []string{
		"https://example.org/collection/d000/d00012/file-0006123.html",
		`https://example.org/a&b/"quoted"/<tag>/caf` + "\u00e9",
	} {
		b.Run(fmt.Sprint(len(s)), func(b *testing.B) {
			var buf []byte
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				buf = appendEscaped(buf[:0], s)
			}
		})
	}
}

// BenchmarkFormatTime formats a lastmod, as every entry of a list does
// twice (planning, writing).
func BenchmarkFormatTime(b *testing.B) {
	t := time.Date(2024, 6, 1, 12, 34, 56, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		if len(FormatTime(t)) != 20 {
			b.Fatal("wrong length")
		}
	}
}
