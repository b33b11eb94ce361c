// Command floor reads and hashes every regular file under a directory with
// a pool of readers, and nothing else: the floor a first build of rsgen is
// measured against (bench/floor.sh, docs/PERFORMANCE.md). It walks the
// tree in one goroutine, as rsgen does, and each of -j readers opens a
// file, reads it whole through SHA-256 and closes it.
//
//	go run ./bench/floor [-j N] DIR
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

func main() {
	jobs := flag.Int("j", max(8, 2*runtime.GOMAXPROCS(0)), "readers (rsgen's default --jobs)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: floor [-j N] DIR")
		os.Exit(2)
	}
	paths := make(chan string, 4096)
	var files, bytes atomic.Int64
	var wg sync.WaitGroup
	for range *jobs {
		wg.Go(func() {
			h := sha256.New()
			buf := make([]byte, 256<<10)
			for p := range paths {
				f, err := os.Open(p)
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					continue
				}
				h.Reset()
				n, err := io.CopyBuffer(h, f, buf)
				f.Close()
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					continue
				}
				h.Sum(nil)
				files.Add(1)
				bytes.Add(n)
			}
		})
	}
	err := filepath.WalkDir(flag.Arg(0), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			paths <- p
		}
		return nil
	})
	close(paths)
	wg.Wait()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%d files, %d bytes\n", files.Load(), bytes.Load())
}
