package generator_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/corpus"
)

// BenchmarkBuild runs a whole build (walk, hash with sha-256, sort, write
// the Resource List, publish) over a generated tree of small files on a
// warm cache. The output goes to a directory beside the source.
func BenchmarkBuild(b *testing.B) {
	for _, files := range []int{1000, 10000} {
		b.Run(strconv.Itoa(files)+"-files", func(b *testing.B) {
			benchBuild(b, files)
		})
	}
}

func benchBuild(b *testing.B, files int) {
	dir := b.TempDir()
	src := filepath.Join(dir, "src")
	s := corpus.Small
	s.Files = files
	total, err := corpus.Write(src, s)
	if err != nil {
		b.Fatal(err)
	}
	base, err := generator.ParseBaseURL("https://example.org/")
	if err != nil {
		b.Fatal(err)
	}
	cfg := generator.Config{
		Source:    src,
		Out:       filepath.Join(dir, "out"),
		BaseURL:   base,
		Hashes:    hashing.Set{hashing.SHA256},
		At:        time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC),
		FixedTime: true,
	}
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		rep, err := generator.Build(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		if rep.Files != files || len(rep.Problems) != 0 {
			b.Fatalf("published %d files with %d problems, want %d", rep.Files, len(rep.Problems), files)
		}
	}
	b.ReportMetric(float64(files*b.N)/b.Elapsed().Seconds(), "files/s")
}
