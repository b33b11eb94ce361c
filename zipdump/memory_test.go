package zipdump

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// manySeq gives n items of one byte each, with long names, made as they
// are asked for; at items from and to, it notes the live heap.
type manySeq struct {
	n, from, to int
	hash        []hashing.Token
	heap        [2]uint64
}

func (s *manySeq) name(i int) string { return fmt.Sprintf("d%03d/%0120d.txt", i/1000, i) }

func (s *manySeq) Names(yield func(string) bool) error {
	for i := range s.n {
		if !yield(s.name(i)) {
			break
		}
	}
	return nil
}

func (s *manySeq) Items(yield func(*Item) bool) error {
	for i := range s.n {
		if i == s.from || i == s.to {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			s.heap[min(i/s.to, 1)] = ms.HeapAlloc
		}
		name := s.name(i)
		it := Item{Name: name, Size: 1, Hash: s.hash, Entry: rsxml.Entry{Loc: "https://example.org/" + name, Lastmod: "2024-01-02T03:04:05Z",
			MD: rsxml.MD{Hash: hashing.FormatTokens(s.hash), Length: "1", Type: "text/plain"}}}
		if !yield(&it) {
			break
		}
	}
	return nil
}

// The memory of a package does not hold its manifest's entries: the live
// heap grows by far less per item than an entry takes (issue 22, item 16:
// a package of 50,000 files held 50,000 entries, and a build with
// --resource-dump peaked at 214 MB). What still grows is the central
// directory of the ZIP file, its name and about 50 bytes an item, up to
// the 50,000 items of a package. Not parallel: it reads the live heap.
func TestPackageMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("packages 40,000 items")
	}
	_, sum, err := hashing.NewHasher(hashing.DefaultSet).Sum(nil, strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	seq := &manySeq{n: 40000, from: 4000, to: 36000, hash: hashing.DefaultSet.Tokens(nil, sum)}
	out := t.TempDir()
	opt := Options{
		Hashes: hashing.DefaultSet, Stem: "resourcedump", At: testAt, Workers: 2,
		Compression: Store, // the method changes no entry; probing 40,000 items costs CPU
		Open:        func(*Item) (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("x")), nil },
		Create: func(name string) (File, error) {
			return os.OpenFile(filepath.Join(out, name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		},
		Remove: func(name string) error { return os.Remove(filepath.Join(out, name)) },
	}
	res, err := RunSeq(context.Background(), seq, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Packages) != 1 {
		t.Fatalf("%d packages, want one", len(res.Packages))
	}
	perItem := (int64(seq.heap[1]) - int64(seq.heap[0])) / int64(seq.to-seq.from)
	t.Logf("live heap %d → %d bytes: %d bytes an item", seq.heap[0], seq.heap[1], perItem)
	if perItem > 400 {
		t.Errorf("the live heap grows by %d bytes an item of a package; its central directory takes about 200", perItem)
	}
}
