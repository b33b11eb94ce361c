package previous

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// The iterator's memory does not grow with the Resource List: allocated
// bytes per entry, at 10,000 and 100,000 entries in parts of 50,000.
func BenchmarkResourceIter(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			docs := syntheticList(b, n, false)
			site, err := readMem(docs, Options{})
			if err != nil {
				b.Fatal(err)
			}
			key := keyUnder("https://example.org/")
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			for b.Loop() {
				it, err := site.ResourceIter(context.Background(), IterOptions{Key: key})
				if err != nil {
					b.Fatal(err)
				}
				k := 0
				for it.Next() {
					k++
				}
				if it.Err() != nil || k != n {
					b.Fatalf("%d entries, %v", k, it.Err())
				}
				it.Close()
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N*n), "B/entry")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N*n), "allocs/entry")
			b.ReportMetric(float64(liveHeap(b, site, key, n)), "live-B")
		})
	}
}

// liveHeap is the heap an iterator holds, less what was live before it,
// measured after it has returned half of its n entries.
func liveHeap(b *testing.B, site *Site, key func(string) (string, bool), n int) int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	base := int64(m.HeapAlloc)
	it, err := site.ResourceIter(context.Background(), IterOptions{Key: key})
	if err != nil {
		b.Fatal(err)
	}
	defer it.Close()
	for k := 0; k < n/2 && it.Next(); k++ {
	}
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc) - base
}

// syntheticList is testdata/good with a Resource List of n entries in
// key order (or in reverse), in parts of 50,000.
func syntheticList(tb testing.TB, n int, reverse bool) memSource {
	docs := goodDocs(tb)
	var index strings.Builder
	index.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2024-06-03T00:00:00Z"/>
`)
	for p := 0; p*50_000 < n; p++ {
		u := fmt.Sprintf("https://example.org/resourcesync/resourcelist-%05d.xml", p+1)
		fmt.Fprintf(&index, "<sitemap><loc>%s</loc></sitemap>\n", u)
		var part strings.Builder
		part.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
<rs:md capability="resourcelist" at="2024-06-03T00:00:00Z"/>
`)
		for i := p * 50_000; i < min(n, (p+1)*50_000); i++ {
			if reverse {
				i := n - 1 - i
				fmt.Fprintf(&part, "<url><loc>https://example.org/d%04d/f%08d.txt</loc><lastmod>2024-06-01T00:00:00Z</lastmod>"+
					`<rs:md hash="sha-256:%064x" length="%d" type="text/plain"/></url>`+"\n", i/1000, i, i, i)
				continue
			}
			fmt.Fprintf(&part, "<url><loc>https://example.org/d%04d/f%08d.txt</loc><lastmod>2024-06-01T00:00:00Z</lastmod>"+
				`<rs:md hash="sha-256:%064x" length="%d" type="text/plain"/></url>`+"\n", i/1000, i, i, i)
		}
		part.WriteString("</urlset>\n")
		docs[u] = []byte(part.String())
	}
	index.WriteString("</sitemapindex>\n")
	docs["https://example.org/resourcesync/resourcelist.xml"] = []byte(index.String())
	return docs
}
