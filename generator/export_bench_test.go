package generator

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/testenv"
)

// writeBenchExport writes a JSON Lines export of n records like those of
// bench/export.sh: digests given, locs out of order, 5% tombstones, 2%
// drafts, times over 400 days before exportAt.
func writeBenchExport(tb testing.TB, n int) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "records.jsonl")
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range n {
		id := (i * 7919) % n
		t := exportAt.Add(-time.Duration(id*34567%(400*86400)) * time.Second)
		lm := t.Format("2006-01-02T15:04:05Z")
		if id%20 == 7 {
			fmt.Fprintf(w, `{"loc":"https://example.org/records/%d","deleted":"%s"}`+"\n", id, lm)
			continue
		}
		status := "published"
		if id%50 == 3 {
			status = "draft"
		}
		created := lm
		if id%3 != 0 {
			created = t.Add(-time.Duration(id%97) * 24 * time.Hour).Format("2006-01-02T15:04:05Z")
		}
		fmt.Fprintf(w, `{"loc":"https://example.org/records/%d","lastmod":"%s","created":"%s","status":"%s","hash":"sha-256:%064x","length":%d,"type":"text/html"}`+"\n",
			id, lm, created, status, uint64(id)*0x9e3779b97f4a7c15, 1000+id%50000)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return p
}

// BenchmarkExport builds from a JSON Lines export of 200,000 records with
// digests given, and reports records per second, CPU time per record and
// the peak heap. bench/export.sh times a million through the CLI.
func BenchmarkExport(b *testing.B) {
	const n = 200000
	export := writeBenchExport(b, n)
	runtime.GC()
	stop := make(chan struct{})
	peak := testenv.HeapPeak(stop)
	cpu := testenv.CPUTime()
	for b.Loop() {
		cfg := exportCfg(b, export)
		rep, err := Build(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		if rep.Export.Records != n {
			b.Fatalf("%d records read", rep.Export.Records)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
	// CPU time is what the machine's load does not inflate (much).
	b.ReportMetric(float64((testenv.CPUTime()-cpu).Nanoseconds())/1e3/float64(n*b.N), "cpu-us/record")
	close(stop)
	b.ReportMetric(float64(<-peak)/(1<<20), "peak-heap-MiB")
}
