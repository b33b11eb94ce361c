package generator

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/zipdump"
)

// benchArchive writes an archive of n members of size bytes each
// (testenv.TextMembers).
func benchArchive(b *testing.B, name string, n, size int) string {
	b.Helper()
	p := filepath.Join(b.TempDir(), name)
	testenv.WriteArchive(b, p, testenv.TextMembers(n, size))
	return p
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
					cfg := Config{Source: srcs[name], Out: b.TempDir(), BaseURL: base, Dump: Dump{Enabled: true, Compression: comp}}
					rep, err := Build(context.Background(), cfg)
					if err != nil || rep.Files != n {
						b.Fatalf("%v, %+v", err, rep)
					}
				}
			})
		}
	}
}
