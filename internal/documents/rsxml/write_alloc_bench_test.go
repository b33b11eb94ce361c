package rsxml

import (
	"fmt"
	"io"
	"runtime"
	"testing"
)

// BenchmarkWriterPerEntry streams Resource Lists of 10,000 and 100,000
// entries (as rsgen writes them) to io.Discard and reports the bytes
// allocated per entry: a streaming writer allocates per document, not
// per entry, so B/entry falls tenfold from one size to the other.
func BenchmarkWriterPerEntry(b *testing.B) {
	doc := Doc{MD: MD{Capability: CapResourceList, At: "2024-06-01T00:00:00Z"}, Links: []Link{{Rel: "up", Href: "https://example.org/resourcesync/capabilitylist.xml"}}}
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			entries := benchEntries(n)
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				w := NewWriter(io.Discard, doc)
				for i := range entries {
					w.Add(&entries[i])
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N*n), "B/entry")
		})
	}
}
