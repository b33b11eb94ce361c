package zipdump

import (
	"archive/zip"
	"compress/flate"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/testenv"
)

// More entries than the classic end record can count (65,535): the
// writer must add the ZIP64 end records. (A package of Run holds at most
// 50,001 entries; this checks the writer itself.)
func TestZipManyEntries(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "many.zip")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	const n = 70000
	z := newZipWriter(f, testAt, hashing.DefaultSet)
	for i := range n {
		b := []byte(fmt.Sprint(i))
		if err := z.writeEntry(fmt.Sprintf("d%d/%d.txt", i%10, i), methodStore, crc32.ChecksumIEEE(b), int64(len(b)), b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if len(zr.File) != n {
		t.Fatalf("archive/zip reads %d entries, want %d", len(zr.File), n)
	}
	for _, i := range []int{0, 65534, 65535, 65536, n - 1} {
		f := zr.File[i]
		if want := fmt.Sprintf("d%d/%d.txt", i%10, i); f.Name != want {
			t.Errorf("entry %d is %q, want %q", i, f.Name, want)
		}
		if got := string(readZipFile(t, f)); got != fmt.Sprint(i) {
			t.Errorf("entry %d holds %q", i, got)
		}
	}
	testenv.Unzip(t, path)
}

// A file over 4 GiB, sparse so that it costs no disk, packaged as ZIP64:
// its sizes do not fit in 32 bits, and neither do the offsets of the
// manifest after it nor of the central directory. Stored, so that the
// package is a real 4 GiB file to read back.
func TestZip64LargeFile(t *testing.T) {
	testenv.LongTest(t, "writes and reads a 4 GiB package")
	const size = 4<<30 + 1000
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(src, "sparse.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("the end\n"), size-8); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	c := &corpus{dir: src}
	c.items = []Item{c.item(t, hashing.DefaultSet, "sparse.bin")}
	opt, out := testOptions(t, c)
	opt.Compression = Store
	opt.MaxBytes = 1 << 30 // passed: the file gets a package of its own
	res := run(t, c.items, opt)
	if len(res.Packages) != 1 || len(res.Skipped) != 0 {
		t.Fatalf("%d packages, skipped %v", len(res.Packages), res.Skipped)
	}
	p := res.Packages[0]
	if p.Size <= size {
		t.Fatalf("package of %d bytes", p.Size)
	}
	zr, err := zip.OpenReader(filepath.Join(out, p.Name))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if len(zr.File) != 2 || zr.File[0].Name != "sparse.bin" || zr.File[1].Name != ManifestName {
		t.Fatalf("entries %v", zr.File)
	}
	big := zr.File[0]
	if big.UncompressedSize64 != size || big.CompressedSize64 != size {
		t.Errorf("sizes %d, %d; want %d", big.UncompressedSize64, big.CompressedSize64, size)
	}
	r, err := big.Open()
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, r) // archive/zip checks the CRC-32 at EOF
	r.Close()
	if err != nil || n != size {
		t.Errorf("read %d bytes: %v", n, err)
	}
	manifest := readZipFile(t, zr.File[1])
	copyBytes, err := os.ReadFile(filepath.Join(out, p.ManifestName))
	if err != nil || string(copyBytes) != string(manifest) {
		t.Errorf("manifest copy differs (%v)", err)
	}
	if testing.Verbose() {
		t.Logf("package %s: %d bytes", p.Name, p.Size)
	}
	testenv.Unzip(t, filepath.Join(out, p.Name))
}

// Deflate output never passes deflateBound, on the data it compresses
// worst (random bytes), at any level, whole or in chunks as split items
// are compressed.
func TestDeflateBound(t *testing.T) {
	t.Parallel()
	data := testRandom(7, 3*chunkSize+5)
	for _, level := range []int{flate.BestSpeed, defaultLevel, flate.BestCompression} {
		for _, n := range []int{0, 1, 100, 65535, 65536, 200000, len(data)} {
			var cw countWriter
			w, _ := flate.NewWriter(&cw, level)
			w.Write(data[:n])
			w.Close()
			if cw.n > deflateBound(int64(n)) {
				t.Errorf("level %d: %d bytes deflated to %d, bound %d", level, n, cw.n, deflateBound(int64(n)))
			}
		}
		// In chunks, each with the 32 KiB before it as dictionary and a
		// sync flush at its end.
		var cw countWriter
		for off := 0; off < len(data); off += chunkSize {
			end := min(off+chunkSize, len(data))
			w, _ := flate.NewWriterDict(&cw, level, data[max(0, off-dictSize):off])
			w.Write(data[off:end])
			if end == len(data) {
				w.Close()
			} else {
				w.Flush()
			}
		}
		if cw.n > deflateBound(int64(len(data))) {
			t.Errorf("level %d, in chunks: %d bytes deflated to %d, bound %d", level, len(data), cw.n, deflateBound(int64(len(data))))
		}
	}
}
