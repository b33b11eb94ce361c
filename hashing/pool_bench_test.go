package hashing

import (
	"context"
	"io/fs"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rsgen/rsgen/internal/corpus"
)

// benchCorpus writes a corpus into a temporary directory once per
// benchmark and returns the paths of its files and their total size.
func benchCorpus(b *testing.B, s corpus.Spec) ([]string, int64) {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "corpus")
	total, err := corpus.Write(dir, s)
	if err != nil {
		b.Fatal(err)
	}
	var paths []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return paths, total
}

// runPool hashes paths once with a Pool, the way the generator drives it.
func runPool(b *testing.B, p *Pool, paths []string) {
	jobs := make(chan Job, 256)
	results := make(chan Result, 256)
	go func() {
		defer close(jobs)
		for _, path := range paths {
			jobs <- Job{Name: path, Path: path}
		}
	}()
	done := make(chan error, 1)
	go func() {
		defer close(results)
		done <- p.Run(context.Background(), jobs, results)
	}()
	n := 0
	for res := range results {
		if res.Err != nil {
			b.Fatal(res.Err)
		}
		n++
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	if n != len(paths) {
		b.Fatalf("%d results for %d files", n, len(paths))
	}
}

var benchSets = []struct {
	name string
	set  Set
}{
	{"md5", Set{MD5}},
	{"sha-1", Set{SHA1}},
	{"sha-256", Set{SHA256}},
	{"blake3", Set{BLAKE3}},
	{"all", Set{MD5, SHA1, SHA256, BLAKE3}},
}

// BenchmarkPoolSmallFiles hashes 5,000 files of 0.5-8 KiB (warm cache)
// with the default number of workers: the cost per file of open, fstat,
// read and close dominates.
func BenchmarkPoolSmallFiles(b *testing.B) {
	s := corpus.Small
	s.Files = 5000
	paths, total := benchCorpus(b, s)
	for _, bs := range benchSets {
		b.Run(bs.name, func(b *testing.B) {
			p := &Pool{Set: bs.set}
			b.SetBytes(total)
			b.ReportAllocs()
			for b.Loop() {
				runPool(b, p, paths)
			}
			b.ReportMetric(float64(len(paths)*b.N)/b.Elapsed().Seconds(), "files/s")
		})
	}
}

// BenchmarkPoolLargeFiles hashes 4 files of 32 MiB (warm cache): the
// speed of the digests, which should reach that of GOMAXPROCS cores.
func BenchmarkPoolLargeFiles(b *testing.B) {
	paths, total := benchCorpus(b, corpus.Spec{Files: 4, MinSize: 32 << 20, MaxSize: 32 << 20, PerDir: 4, Seed: 2})
	for _, bs := range benchSets {
		b.Run(bs.name, func(b *testing.B) {
			p := &Pool{Set: bs.set}
			b.SetBytes(total)
			for b.Loop() {
				runPool(b, p, paths)
			}
		})
	}
}

// BenchmarkPoolWorkers hashes the small files with sha-256 and 1 to 32
// workers, on a warm cache (bench/lists.sh measures a cold one).
func BenchmarkPoolWorkers(b *testing.B) {
	s := corpus.Small
	s.Files = 5000
	paths, total := benchCorpus(b, s)
	for _, n := range []int{1, 2, 4, 8, 16, 32} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			p := &Pool{Set: Set{SHA256}, Workers: n}
			b.SetBytes(total)
			for b.Loop() {
				runPool(b, p, paths)
			}
			b.ReportMetric(float64(len(paths)*b.N)/b.Elapsed().Seconds(), "files/s")
		})
	}
}

// BenchmarkHasher is the speed of one Hasher over bytes in memory: one
// core's hashing speed, the reference for the large-file case.
func BenchmarkHasher(b *testing.B) {
	data := make([]byte, 8<<20)
	for i := range data {
		data[i] = byte(i * 31)
	}
	for _, bs := range benchSets {
		b.Run(bs.name, func(b *testing.B) {
			h := NewHasher(bs.set)
			sum := make([]byte, 0, bs.set.SumSize())
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, _, err := h.Sum(sum[:0], &chunkReader{data: data, chunk: bufSize}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
