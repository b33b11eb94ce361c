package zipdump

import (
	"compress/flate"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/hashing"
)

// benchFiles is a mixed corpus of about 45 MiB: many small text files,
// some large text files (split into chunks), and incompressible files.
// The text is Go's own source, real text that compresses as text does
// (testText, a word salad, is a worst case for compress/flate).
func benchFiles(b *testing.B) map[string][]byte {
	var text []byte
	root := filepath.Join(runtime.GOROOT(), "src")
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if len(text) >= 34<<20 {
			return fs.SkipAll
		}
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			t, _ := os.ReadFile(p)
			text = append(text, t...)
		}
		return nil
	})
	if len(text) < 34<<20 {
		b.Logf("%s: %d bytes of Go source; word salad instead", root, len(text))
		text = testText(1, 34<<20)
	}
	files := map[string][]byte{}
	off := 0
	for i := range 400 {
		n := 8<<10 + i*97
		files[fmt.Sprintf("text/%03d/%d.html", i/50, i)] = text[off : off+n]
		off += n
	}
	for i := range 4 {
		files[fmt.Sprintf("big/%d.csv", i)] = text[off : off+5<<20]
		off += 5 << 20
	}
	for i := range 6 {
		files[fmt.Sprintf("noise/%d.bin", i)] = testRandom(uint64(2000+i), 2<<20+i)
	}
	return files
}

// BenchmarkRun packages the corpus with each compression policy; the
// throughput is of file bytes. Compare the policies, and levels, with
// benchstat; bench/dump.sh compares rsgen with zip on a larger corpus.
func BenchmarkRun(b *testing.B) {
	c := newCorpus(b, hashing.DefaultSet, benchFiles(b))
	var total int64
	for _, it := range c.items {
		total += it.Size
	}
	for _, comp := range []Compression{Store, Auto, Deflate} {
		for _, level := range []int{1, 6} {
			if comp == Store && level != 1 {
				continue
			}
			name := comp.String()
			if comp != Store {
				name += fmt.Sprintf("/level=%d", level)
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(total)
				for b.Loop() {
					opt, out := testOptions(b, c)
					opt.Compression, opt.Level = comp, level
					if _, err := Run(context.Background(), c.items, opt); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					os.RemoveAll(out)
					b.StartTimer()
				}
			})
		}
	}
}

// BenchmarkDeflateLevels measures compress/flate at each level on the text
// of benchFiles (Go source), with the compressed size as a fraction of the
// input (ratio): how defaultLevel was chosen.
func BenchmarkDeflateLevels(b *testing.B) {
	files := benchFiles(b)
	var text []byte
	for i := range 4 {
		text = append(text, files[fmt.Sprintf("big/%d.csv", i)]...)
	}
	for level := flate.BestSpeed; level <= flate.BestCompression; level++ {
		b.Run(fmt.Sprintf("level=%d", level), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			var cw countWriter
			for b.Loop() {
				cw.n = 0
				w, _ := flate.NewWriter(&cw, level)
				w.Write(text)
				w.Close()
			}
			b.ReportMetric(float64(cw.n)/float64(len(text)), "ratio")
		})
	}
}

// BenchmarkRunOpen packages the corpus of BenchmarkRun with its files
// opened three ways: as *os.File (a tree), checked by Stat; as plain
// readers (the members of a zip file); and as a stream opened in order,
// every read in one chain (a tar). A large file's chunks are read in turn
// and compressed in parallel. The throughput is of file bytes.
func BenchmarkRunOpen(b *testing.B) {
	c := newCorpus(b, hashing.DefaultSet, benchFiles(b))
	var total int64
	for _, it := range c.items {
		total += it.Size
	}
	for _, comp := range []Compression{Store, Auto} {
		for _, mode := range []openMode{modeFile, modeReader, modeSequential} {
			b.Run(fmt.Sprintf("%s/%s", comp, mode), func(b *testing.B) {
				b.SetBytes(total)
				for b.Loop() {
					opt, out := testOptions(b, c)
					opt.Compression = comp
					setMode(b, &opt, c, mode)
					if _, err := Run(context.Background(), c.items, opt); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					os.RemoveAll(out)
					b.StartTimer()
				}
			})
		}
	}
}
