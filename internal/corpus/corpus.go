// Package corpus writes synthetic file trees for rsgen's benchmarks and
// bench/ scripts: many small files spread over directories, or a few large
// ones. The content is pseudo-random from a seed, so the same Spec gives the
// same bytes. Write may be called from several goroutines for different
// directories; it writes with GOMAXPROCS goroutines itself.
package corpus

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/rsgen/rsgen/internal/storage/confined"
)

// Exts are the extensions given to the files in turn: most are known by
// name, "" makes rsgen sniff the content.
var Exts = []string{".html", ".txt", ".json", ".png", ".xml", ".csv", "", ".jpg", ".pdf", ".css"}

// A Spec describes a corpus.
type Spec struct {
	Files   int   // number of files
	MinSize int64 // smallest file in bytes (0: empty files are possible)
	MaxSize int64 // largest file in bytes
	PerDir  int   // files per directory; directories are two levels deep
	Seed    uint64
}

// Small is the small-file corpus of docs/PERFORMANCE.md: 50,000 files of
// 0.5 to 8 KiB, 500 per directory.
var Small = Spec{Files: 50000, MinSize: 512, MaxSize: 8 << 10, PerDir: 500, Seed: 1}

// Write creates the corpus of s under dir (which must not exist) and
// returns the number of bytes written. Directory d holds files
// [d*PerDir, (d+1)*PerDir) with sizes and content drawn from a generator
// seeded with (Seed, d), whatever the order the directories are written in.
func Write(dir string, s Spec) (int64, error) {
	if s.MaxSize < s.MinSize || s.MinSize < 0 || s.PerDir < 1 || s.Files < 0 {
		return 0, errors.New("corpus: MaxSize below MinSize, negative size or count, or PerDir below 1")
	}
	if err := confined.Mkdir(dir, 0o755); err != nil {
		return 0, err
	}
	root, err := confined.Open(dir)
	if err != nil {
		return 0, err
	}
	defer root.Close()
	dirs := (s.Files + s.PerDir - 1) / s.PerDir
	var next, total atomic.Int64
	errs := make([]error, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 1<<20)
			for {
				d := int(next.Add(1) - 1)
				if d >= dirs {
					return
				}
				n, err := writeDir(root, s, d, buf)
				total.Add(n)
				if err != nil {
					errs[w] = err
					next.Store(int64(dirs)) // stop the others
					return
				}
			}
		}()
	}
	wg.Wait()
	return total.Load(), errors.Join(errs...)
}

// writeDir writes the files of directory d.
func writeDir(root *confined.Root, s Spec, d int, buf []byte) (int64, error) {
	sub := fmt.Sprintf("d%03d/d%05d", d/100, d)
	if err := root.MkdirAll(sub, 0o755); err != nil {
		return 0, err
	}
	rng := rand.New(rand.NewPCG(s.Seed, uint64(d)))
	var total int64
	for i := d * s.PerDir; i < min(s.Files, (d+1)*s.PerDir); i++ {
		size := s.MinSize
		if s.MaxSize > s.MinSize {
			size += rng.Int64N(s.MaxSize - s.MinSize + 1)
		}
		name := fmt.Sprintf("%s/file-%07d%s", sub, i, Exts[i%len(Exts)])
		if err := writeFile(root, name, size, rng, buf); err != nil {
			return total, err
		}
		total += size
	}
	return total, nil
}

func writeFile(root *confined.Root, name string, size int64, rng *rand.Rand, buf []byte) error {
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	for size > 0 {
		chunk := buf[:min(size, int64(len(buf)))]
		for i := 0; i < len(chunk); i += 8 {
			v := rng.Uint64()
			for j := 0; j < 8 && i+j < len(chunk); j++ {
				chunk[i+j] = byte(v >> (8 * j))
			}
		}
		if _, err := f.Write(chunk); err != nil {
			f.Close()
			return fmt.Errorf("writing %s: %w", name, err)
		}
		size -= int64(len(chunk))
	}
	return f.Close()
}
