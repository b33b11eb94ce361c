package archivescan

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rsgen/rsgen/internal/testenv"
)

// BenchmarkScanArchive reads and hashes (sha-256) 64 MiB of text: tar
// and tar.gz streamed by one goroutine that hashes as it reads (the code
// rsgen runs), against a reader that hands its buffers to a hashing
// goroutine (pipelined), and zip with members hashed in parallel.
func BenchmarkScanArchive(b *testing.B) {
	const n, size = 64, 1 << 20
	for _, name := range []string{"site.tar", "site.tar.gz", "site.zip"} {
		src := filepath.Join(b.TempDir(), name)
		testenv.WriteArchive(b, src, testenv.TextMembers(n, size))
		runtime.GC() // the garbage of making the archive is not the scan's
		b.Run(name, func(b *testing.B) {
			b.SetBytes(n * size)
			for b.Loop() {
				if out := resources(b, newScan(b, src), context.Background()); len(out) != n {
					b.Fatalf("%d resources", len(out))
				}
			}
		})
		if name == "site.zip" {
			continue
		}
		b.Run(name+"/pipelined", func(b *testing.B) {
			b.SetBytes(n * size)
			for b.Loop() {
				if got, err := scanTarPipelined(&Archive{Path: src, Kind: KindOf(src)}); err != nil || got != n {
					b.Fatalf("%d members, %v", got, err)
				}
			}
		})
	}
}

// scanTarPipelined is the alternative design BenchmarkScanArchive measures:
// the reading goroutine only reads (and decompresses), and hands 256 KiB
// buffers to one goroutine that hashes.
func scanTarPipelined(a *Archive) (int, error) {
	ts, err := openTar(a)
	if err != nil {
		return 0, err
	}
	defer ts.close()
	tr := ts.tr
	type chunk struct {
		buf []byte
		end bool // last chunk of a member
	}
	chunks := make(chan chunk, 8)
	free := make(chan []byte, 10)
	for range cap(free) {
		free <- make([]byte, 256<<10)
	}
	done := make(chan int)
	go func() {
		h := sha256.New() // what a Hasher of hashing.DefaultSet computes
		count := 0
		for c := range chunks {
			h.Write(c.buf)
			free <- c.buf[:cap(c.buf)]
			if c.end {
				h.Sum(nil)
				h.Reset()
				count++
			}
		}
		done <- count
	}()
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			close(chunks)
			<-done
			return 0, err
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		for {
			buf := <-free
			m, err := io.ReadFull(tr, buf)
			end := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
			chunks <- chunk{buf: buf[:m], end: end}
			if end {
				break
			}
			if err != nil {
				close(chunks)
				<-done
				return 0, err
			}
		}
	}
	close(chunks)
	return <-done, nil
}
