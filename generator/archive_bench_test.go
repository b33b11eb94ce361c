package generator

import (
	"archive/tar"
	"archive/zip"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/zipdump"
)

// benchArchive writes an archive of n members of size bytes each: text of
// random words, which gzip compresses about threefold, as it does HTML.
func benchArchive(b *testing.B, name string, n, size int) string {
	b.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	words := strings.Fields("the of and to in a is that for it as was with be by on not he this are or his from at which but have an they you were her she there been one all we their has would when if so no will more can about up out who said into some time them like other could only my then")
	members := make([]archiveMember, n)
	for i := range members {
		var sb strings.Builder
		for sb.Len() < size {
			sb.WriteString(words[rng.IntN(len(words))])
			sb.WriteByte(" \n"[rng.IntN(12)/11])
		}
		members[i] = archiveMember{name: fmt.Sprintf("dir%d/file%04d.txt", i%10, i), body: sb.String()[:size]}
	}
	p := filepath.Join(b.TempDir(), name)
	writeTestArchive(b, p, members)
	return p
}

// BenchmarkScanArchive reads and hashes (sha-256) 64 MiB of text: tar
// and tar.gz streamed by one goroutine that hashes as it reads (the code
// rsgen runs), against a reader that hands its buffers to a hashing
// goroutine (pipelined), and zip with members hashed in parallel.
func BenchmarkScanArchive(b *testing.B) {
	const n, size = 64, 1 << 20
	base, _ := ParseBaseURL("https://example.org/")
	for _, name := range []string{"site.tar", "site.tar.gz", "site.zip"} {
		src := benchArchive(b, name, n, size)
		runtime.GC() // the garbage of making the archive is not the scan's
		cfg := Config{Source: src, BaseURL: base, DocsURL: base, Hashes: hashing.DefaultSet}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(n * size)
			for b.Loop() {
				bld := archiveBuild(b, &cfg, &archive{path: src, kind: archiveKindOf(src)})
				if out := scannedArchive(b, bld, context.Background()); len(out) != n {
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
				if got, err := scanTarPipelined(&archive{path: src, kind: archiveKindOf(src)}); err != nil || got != n {
					b.Fatalf("%d members, %v", got, err)
				}
			}
		})
	}
}

// scanTarPipelined is the alternative design BenchmarkScanArchive measures:
// the reading goroutine only reads (and decompresses), and hands 256 KiB
// buffers to one goroutine that hashes.
func scanTarPipelined(a *archive) (int, error) {
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

// BenchmarkArchiveDump builds the Resource List and the Resource Dump of
// 64 MiB of text (64 members of 1 MiB) from a tree, a tar, a tar.gz and a
// zip holding it, with the packages stored or compressed (auto): what
// packaging the members of an archive costs against the files of a tree.
// The throughput is of member bytes.
func BenchmarkArchiveDump(b *testing.B) {
	const n, size = 64, 1 << 20
	base, _ := ParseBaseURL("https://example.org/")
	tree := b.TempDir()
	srcs := map[string]string{"tree": tree}
	for _, name := range []string{"site.tar", "site.tar.gz", "site.zip"} {
		srcs[name] = benchArchive(b, name, n, size)
	}
	// The tree: the members of the zip, unpacked.
	zr, err := zip.OpenReader(srcs["site.zip"])
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range zr.File {
		r, _ := f.Open()
		data, _ := io.ReadAll(r)
		r.Close()
		p := filepath.Join(tree, filepath.FromSlash(f.Name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	zr.Close()
	runtime.GC()
	for _, comp := range []zipdump.Compression{zipdump.Store, zipdump.Auto} {
		for _, name := range []string{"tree", "site.tar", "site.tar.gz", "site.zip"} {
			b.Run(fmt.Sprintf("%s/%s", comp, name), func(b *testing.B) {
				b.SetBytes(n * size)
				for b.Loop() {
					cfg := Config{Source: srcs[name], Out: b.TempDir(), BaseURL: base, Dump: DumpConfig{Enabled: true, Compression: comp}}
					rep, err := Build(context.Background(), cfg)
					if err != nil || rep.Files != n {
						b.Fatalf("%v, %+v", err, rep)
					}
				}
			})
		}
	}
}
