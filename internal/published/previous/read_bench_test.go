package previous

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// syntheticSite returns the documents of a build of n resources, as rsgen
// writes them: a Source Description, a Capability List and a Resource
// List of one document, or an index and parts of 50,000 entries, written
// with rsxml.
func syntheticSite(tb testing.TB, n int) memSource {
	tb.Helper()
	const base = "https://example.org/"
	const at = "2024-06-03T00:00:00Z"
	render := func(doc rsxml.Doc, entries func(w *rsxml.Writer)) []byte {
		var buf bytes.Buffer
		w := rsxml.NewWriter(&buf, doc)
		entries(w)
		if err := w.Close(); err != nil {
			tb.Fatal(err)
		}
		return buf.Bytes()
	}
	up := func(href string) []rsxml.Link { return []rsxml.Link{{Rel: "up", Href: href}} }
	m := memSource{}
	m[base+WellKnown] = render(rsxml.Doc{MD: rsxml.MD{Capability: rsxml.CapDescription}}, func(w *rsxml.Writer) {
		w.Add(&rsxml.Entry{Loc: base + "resourcesync/capabilitylist.xml", MD: rsxml.MD{Capability: rsxml.CapCapabilityList}})
	})
	m[base+"resourcesync/capabilitylist.xml"] = render(rsxml.Doc{MD: rsxml.MD{Capability: rsxml.CapCapabilityList}, Links: up(base + WellKnown)}, func(w *rsxml.Writer) {
		w.Add(&rsxml.Entry{Loc: base + "resourcesync/resourcelist.xml", MD: rsxml.MD{Capability: rsxml.CapResourceList}})
	})
	capList := base + "resourcesync/capabilitylist.xml"
	t0 := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	part := func(from, to int) []byte {
		doc := rsxml.Doc{MD: rsxml.MD{Capability: rsxml.CapResourceList, At: at, Completed: at}, Links: up(capList)}
		if n > rsxml.MaxEntries {
			doc.Links = append(doc.Links, rsxml.Link{Rel: "index", Href: base + "resourcesync/resourcelist.xml"})
		}
		return render(doc, func(w *rsxml.Writer) {
			var e rsxml.Entry
			for i := from; i < to; i++ {
				e = rsxml.Entry{
					Loc:     fmt.Sprintf("%scollection/d%03d/d%05d/file-%07d.html", base, i/50000, i/500, i),
					Lastmod: rsxml.FormatTime(t0.Add(time.Duration(i) * time.Second)),
					MD:      rsxml.MD{Hash: fmt.Sprintf("sha-256:%064x", i), Length: fmt.Sprint(512 + i%7680), Type: "text/html"},
				}
				w.Add(&e)
			}
		})
	}
	if n <= rsxml.MaxEntries {
		m[base+"resourcesync/resourcelist.xml"] = part(0, n)
		return m
	}
	var parts []string
	for from := 0; from < n; from += rsxml.MaxEntries {
		u := fmt.Sprintf("%sresourcesync/resourcelist-%05d.xml", base, len(parts)+1)
		m[u] = part(from, min(from+rsxml.MaxEntries, n))
		parts = append(parts, u)
	}
	index := rsxml.Doc{Index: true, MD: rsxml.MD{Capability: rsxml.CapResourceList, At: at, Completed: at}, Links: up(capList)}
	m[base+"resourcesync/resourcelist.xml"] = render(index, func(w *rsxml.Writer) {
		for _, u := range parts {
			w.Add(&rsxml.Entry{Loc: u, MD: rsxml.MD{At: at, Completed: at}})
		}
	})
	return m
}

// BenchmarkReadResourceList reads a previous build whose Resource List has
// 10,000 and 100,000 entries, from memory: the bytes allocated per entry
// (B/entry, held or not) and those the Site still holds (heap-B/entry, the
// live heap after a collection, less the documents) are the baseline of the
// streaming reader, whose memory must not grow with the list. The
// collection in the loop makes ns/op meaningless here.
func BenchmarkReadResourceList(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			docs := syntheticSite(b, n)
			var size int
			for _, d := range docs {
				size += len(d)
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			var base runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&base) // the documents themselves
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var held uint64
			for b.Loop() {
				site, err := readMemAll(docs, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if len(site.Resources) != n {
					b.Fatalf("%d resources, want %d", len(site.Resources), n)
				}
				// What the Site holds after reading: the live heap with it,
				// less the documents.
				runtime.GC()
				var live runtime.MemStats
				runtime.ReadMemStats(&live)
				held = live.HeapAlloc - min(live.HeapAlloc, base.HeapAlloc)
				runtime.KeepAlive(site)
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N*n), "B/entry")
			b.ReportMetric(float64(held)/float64(n), "heap-B/entry")
		})
	}
}
