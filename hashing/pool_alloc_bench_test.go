package hashing_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/inputs/tree"
)

// tinyFiles writes n files of 0-63 bytes, 100 per directory, and returns
// the directories, held, and the names of the files in each.
func tinyFiles(b *testing.B, n int) ([]*tree.Dir, [][]string) {
	b.Helper()
	root := b.TempDir()
	var dirs []*tree.Dir
	var names [][]string
	for i := 0; i < n; i += 100 {
		dir := filepath.Join(root, fmt.Sprintf("d%05d", i/100))
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		var ns []string
		for j := i; j < min(i+100, n); j++ {
			name := fmt.Sprintf("file-%07d.txt", j)
			if err := os.WriteFile(filepath.Join(dir, name), make([]byte, j%64), 0o644); err != nil {
				b.Fatal(err)
			}
			ns = append(ns, name)
		}
		d, err := tree.OpenDir(dir)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(d.Release)
		dirs = append(dirs, d)
		names = append(names, ns)
	}
	return dirs, names
}

// BenchmarkPoolTinyFiles sends 1,000 and 10,000 files of 0-63 bytes
// (warm page cache: reading costs next to nothing) through a Pool, as the
// build does, with sha-256: what the pool itself allocates per file (its
// Results and their sums, which the build then holds or drops). B/entry
// must not grow with the number of files.
func BenchmarkPoolTinyFiles(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			dirs, names := tinyFiles(b, n)
			p := &hashing.Pool{Set: hashing.Set{hashing.SHA256}}
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				jobs := make(chan hashing.Job, 256)
				results := make(chan hashing.Result, 256)
				go func() {
					defer close(jobs)
					for i, d := range dirs {
						for _, name := range names[i] {
							jobs <- hashing.Job{Name: name, Path: name, Dir: d.Hold()}
						}
					}
				}()
				done := make(chan error, 1)
				go func() {
					defer close(results)
					done <- p.Run(context.Background(), jobs, results)
				}()
				got := 0
				for res := range results {
					if res.Err != nil {
						b.Fatal(res.Err)
					}
					got++
				}
				if err := <-done; err != nil {
					b.Fatal(err)
				}
				if got != n {
					b.Fatalf("%d results for %d files", got, n)
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N*n), "B/entry")
		})
	}
}
