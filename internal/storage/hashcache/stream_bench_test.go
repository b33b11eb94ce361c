package hashcache

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
)

// benchSizes are the cache sizes of the streaming benchmarks: the bytes
// allocated per stream must not grow from one to the other (per entry,
// they shrink tenfold).
var benchSizes = []int{10_000, 100_000}

// reportPerEntry reports the bytes allocated per entry since before.
func reportPerEntry(b *testing.B, before *runtime.MemStats, entries int) {
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N*entries), "B/entry")
}

// BenchmarkReaderFind opens a cache and looks up every entry in order, as
// the join of a build does.
func BenchmarkReaderFind(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			c := sample(n)
			path := filepath.Join(b.TempDir(), "cache")
			writeStream(b, path, c)
			b.ReportAllocs()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				r, err := Open(path, "/src")
				if err != nil {
					b.Fatal(err)
				}
				for _, it := range c.list {
					if _, ok := r.Lookup(it.path, it.entry.Stat); !ok {
						b.Fatalf("%s missing: %v", it.path, r.Err())
					}
				}
				r.Close()
			}
			reportPerEntry(b, &before, n)
		})
	}
}

// BenchmarkWriterPut writes a cache entry by entry and commits it.
func BenchmarkWriterPut(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			c := sample(n)
			path := filepath.Join(b.TempDir(), "cache")
			b.ReportAllocs()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				w, err := Create(path, "/src")
				if err != nil {
					b.Fatal(err)
				}
				for _, it := range c.list {
					if err := w.Put(it.path, it.entry, settled); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Commit(); err != nil {
					b.Fatal(err)
				}
			}
			reportPerEntry(b, &before, n)
		})
	}
}
