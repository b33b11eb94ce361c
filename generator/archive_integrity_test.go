package generator

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rsgen/rsgen/internal/rsxml"
	"github.com/rsgen/rsgen/internal/testenv"
)

// tarBytes is a tar of members, padded with zeros as tar pads its last
// record.
func tarBytes(t testing.TB, members []archiveMember, pad int) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, m := range members {
		if err := tw.WriteHeader(&tar.Header{Name: m.name, Typeflag: tar.TypeReg, Mode: 0o644, ModTime: archiveMtime, Size: int64(len(m.body))}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(m.body))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	buf.Write(make([]byte, pad))
	return buf.Bytes()
}

// gzipBytes compresses data as one gzip member, stored (level 0) so that
// a flipped byte of content is read back without a flate error.
func gzipBytes(t testing.TB, data []byte, level int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, level)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A damaged archive is an error that names it, and nothing is published
// (issue 9 item 2); the legal variants of a good one are published.
func TestArchiveDamaged(t *testing.T) {
	body := strings.Repeat("the content of a member; ", 40)
	members := []archiveMember{{name: "a.txt", body: body}, {name: "b.txt", body: "second"}}
	plain := tarBytes(t, members, 0)
	padded := tarBytes(t, members, 8192)
	stored := gzipBytes(t, plain, gzip.NoCompression)
	flip := func(b []byte, i int) []byte {
		b = bytes.Clone(b)
		b[i] ^= 0x20
		return b
	}
	contentAt := bytes.Index(stored, []byte(body))
	split := len(plain) / 2
	twoMembers := append(gzipBytes(t, plain[:split], 6), gzipBytes(t, plain[split:], 6)...)
	zipStored := func(crcZero bool) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, m := range members {
			w, err := zw.CreateHeader(&zip.FileHeader{Name: m.name, Method: zip.Store, Modified: archiveMtime})
			if err != nil {
				t.Fatal(err)
			}
			w.Write([]byte(m.body))
		}
		zw.Close()
		b := buf.Bytes()
		if crcZero { // as a writer that leaves the field out would: no data descriptor, CRC 0
			for i := 0; i+4 <= len(b); i++ {
				switch binary.LittleEndian.Uint32(b[i:]) {
				case 0x04034b50: // local header: flags at 6, CRC at 14
					binary.LittleEndian.PutUint16(b[i+6:], 0)
					binary.LittleEndian.PutUint32(b[i+14:], 0)
				case 0x02014b50: // central header: flags at 8, CRC at 16
					binary.LittleEndian.PutUint16(b[i+8:], 0)
					binary.LittleEndian.PutUint32(b[i+16:], 0)
				case 0x08074b50: // data descriptor: CRC at 4
					binary.LittleEndian.PutUint32(b[i+4:], 0)
				}
			}
		}
		return b
	}
	good := zipStored(false)
	goodZero := zipStored(true)
	zipAt := bytes.Index(good, []byte(body))

	for _, c := range []struct {
		name string
		data []byte
		bad  bool
	}{
		{"good.tar.gz", gzipBytes(t, plain, 6), false},
		{"padded-inside.tgz", gzipBytes(t, padded, 6), false},
		{"two-members.tar.gz", twoMembers, false},
		{"zeros-after.tar.gz", append(gzipBytes(t, plain, 6), make([]byte, 512)...), false},
		{"padded.tar", padded, false},
		{"good.zip", good, false},
		{"content-flipped.tar.gz", flip(stored, contentAt+3), true},
		{"crc-flipped.tar.gz", flip(stored, len(stored)-6), true},
		{"size-flipped.tar.gz", flip(stored, len(stored)-2), true},
		{"cut-trailer.tar.gz", stored[:len(stored)-4], true},
		{"garbage-after.tar.gz", append(bytes.Clone(stored), "garbage"...), true},
		{"second-member-flipped.tar.gz", flip(twoMembers, len(twoMembers)-6), true},
		{"garbage-after-tar.tar", append(bytes.Clone(padded), "garbage"...), true},
		{"garbage-after-tar-inside.tgz", gzipBytes(t, append(bytes.Clone(plain), "garbage"...), 6), true},
		{"content-flipped.zip", flip(good, zipAt+3), true},
		{"crc-zero-flipped.zip", flip(goodZero, zipAt+3), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, c.name)
			if err := os.WriteFile(src, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, dump := range []bool{false, true} {
				out := filepath.Join(dir, "out")
				os.RemoveAll(out)
				cfg := testConfig(t, src, out)
				cfg.Dump.Enabled = dump
				rep, err := Build(context.Background(), cfg)
				if !c.bad {
					if err != nil || len(rep.Problems) > 0 {
						t.Fatalf("dump %v: %v, %d problems", dump, err, len(rep.Problems))
					}
					continue
				}
				if err == nil || !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), src) {
					t.Fatalf("dump %v: error %v, want ErrDamaged naming %s", dump, err, src)
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("dump %v: output published from a damaged archive", dump)
				}
			}
		})
	}
}

// An archive of more members than the cap is an error naming it, before
// it takes the memory of the machine (issue 9 item 10).
func TestArchiveTooManyMembers(t *testing.T) {
	maxArchiveMembers, maxTarMembers = 5, 5
	t.Cleanup(func() { maxArchiveMembers, maxTarMembers = MaxArchiveMembers, rsxml.MaxEntries*rsxml.MaxEntries })
	dir := t.TempDir()
	var members []archiveMember
	for i := range 6 {
		members = append(members, archiveMember{name: strings.Repeat("m", i+1)})
	}
	for _, name := range []string{"many.tar.gz", "many.zip", "five.tar", "five.zip"} {
		src := filepath.Join(dir, name)
		m := members
		if strings.HasPrefix(name, "five") {
			m = members[:5]
		}
		writeTestArchive(t, src, m)
		cfg := testConfig(t, src, filepath.Join(dir, "out-"+name))
		_, err := Build(context.Background(), cfg)
		if strings.HasPrefix(name, "five") {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if !errors.Is(err, ErrTooManyMembers) || !strings.Contains(err.Error(), src) {
			t.Errorf("%s: error %v, want ErrTooManyMembers naming it", name, err)
		}
		if _, err := os.Stat(cfg.Out); err == nil {
			t.Errorf("%s: output published", name)
		}
	}
}

// The index of the members is kept only for a Resource Dump: a tar of
// many empty members costs the disk of its sort, not memory.
func TestArchiveIndexesMembersOnlyForADump(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "empty.tar")
	writeTestArchive(t, src, []archiveMember{{name: "a"}, {name: "b"}, {name: "c", body: "x"}, {name: "c"}})
	cfg := testConfig(t, src, filepath.Join(dir, "out"))
	b := archiveBuild(t, &cfg, &archive{path: src, kind: archiveTar})
	out := scannedArchive(t, b, context.Background())
	if len(out) != 2 || out[0].Path != "a" || out[1].Path != "b" || out[0].Hash != out[1].Hash {
		t.Errorf("resources %+v: want a and b, with the digests of nothing", out)
	}
	if b.archive.members != nil {
		t.Errorf("members indexed without a dump: %v", b.archive.members)
	}
	if len(b.problems.Sorted()) != 1 {
		t.Errorf("problems %v, want the duplicate c", b.problems.Sorted())
	}
}

// cancelAfter is a context cancelled once its Err has been asked for
// calls times: a cancellation that comes while a member is being read.
type cancelAfter struct {
	context.Context
	mu    sync.Mutex
	calls int
	done  chan struct{}
}

func newCancelAfter(calls int) *cancelAfter {
	return &cancelAfter{Context: context.Background(), calls: calls, done: make(chan struct{})}
}

func (c *cancelAfter) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls > 0 {
		if c.calls--; c.calls == 0 {
			close(c.done)
		}
		return nil
	}
	return context.Canceled
}

func (c *cancelAfter) Done() <-chan struct{} { return c.done }

// An interrupt stops the scan inside a member too: a member of a .tar.gz
// or a zip may expand to far more than the archive holds (a sparse tar
// member of a petabyte takes a few hundred bytes), and an interrupted
// build that reads it to its end never stops.
func TestArchiveScanInterruptedInsideMember(t *testing.T) {
	zeros := strings.Repeat("\x00", 8<<20)
	for _, kind := range []string{"tar.gz", "zip"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "big."+kind)
			a := &archive{path: src, kind: archiveTarGz}
			if kind == "zip" {
				a.kind = archiveZip
				var buf bytes.Buffer
				zw := zip.NewWriter(&buf)
				w, err := zw.CreateHeader(&zip.FileHeader{Name: "zeros.bin", Method: zip.Deflate, Modified: archiveMtime})
				if err != nil {
					t.Fatal(err)
				}
				w.Write([]byte(zeros))
				if err := zw.Close(); err != nil {
					t.Fatal(err)
				}
				os.WriteFile(src, buf.Bytes(), 0o644)
			} else {
				os.WriteFile(src, gzipBytes(t, tarBytes(t, []archiveMember{{name: "zeros.bin", body: zeros}}, 0), gzip.BestCompression), 0o644)
			}
			cfg := testConfig(t, src, filepath.Join(dir, "out"))
			cfg.Jobs = 1
			b := archiveBuild(t, &cfg, a)
			ctx := newCancelAfter(3)
			_, err := b.scanArchive(ctx)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("scanArchive: %v; want context.Canceled from inside the member", err)
			}
		})
	}
}

// A zip whose central directory lists one member's bytes under several
// names (the "overlapping" zip bomb: 46 MB that expand to petabytes) is
// damaged: no zip writer shares a member's data between entries.
func TestArchiveZipOverlappingMembers(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "a.txt", Method: zip.Deflate, Modified: archiveMtime})
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(strings.Repeat("kernel ", 100)))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	// Copy the central directory record of a.txt as b.txt, c.txt.
	data := buf.Bytes()
	eocd := bytes.LastIndex(data, []byte("PK\x05\x06"))
	cdSize := binary.LittleEndian.Uint32(data[eocd+12:])
	cdOff := binary.LittleEndian.Uint32(data[eocd+16:])
	rec := data[cdOff : cdOff+cdSize]
	var out []byte
	out = append(out, data[:cdOff]...)
	out = append(out, rec...)
	for _, name := range []string{"b.txt", "c.txt"} {
		r := bytes.Clone(rec)
		copy(r[46:], name)
		out = append(out, r...)
	}
	end := bytes.Clone(data[eocd : eocd+22])
	binary.LittleEndian.PutUint16(end[8:], 3)
	binary.LittleEndian.PutUint16(end[10:], 3)
	binary.LittleEndian.PutUint32(end[12:], 3*cdSize)
	out = append(out, end...)

	dir := t.TempDir()
	src := filepath.Join(dir, "overlap.zip")
	if err := os.WriteFile(src, out, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, src, filepath.Join(dir, "out"))
	b := archiveBuild(t, &cfg, &archive{path: src, kind: archiveZip})
	_, err = b.scanArchive(context.Background())
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), src) {
		t.Errorf("scanArchive: %v; want ErrDamaged naming the archive", err)
	}
}

// A member whose URL would be too long for a <loc> is skipped and
// reported, as a file of a tree is; the rest of the archive is published
// (it is not damaged).
func TestArchiveMemberURLTooLong(t *testing.T) {
	long := "d/" + strings.Repeat("x", 60<<10) // a zip name has at most 64 KiB
	for _, ext := range []string{"tar", "tar.gz", "zip"} {
		t.Run(ext, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "site."+ext)
			writeTestArchive(t, src, []archiveMember{{name: "a.txt", body: "a"}, {name: long, body: "l"}, {name: "b.txt", body: "b"}})
			cfg := testConfig(t, src, filepath.Join(dir, "out"))
			kind := map[string]archiveKind{"tar": archiveTar, "tar.gz": archiveTarGz, "zip": archiveZip}[ext]
			b := archiveBuild(t, &cfg, &archive{path: src, kind: kind})
			out := scannedArchive(t, b, context.Background())
			if len(out) != 2 || out[0].Path != "a.txt" || out[1].Path != "b.txt" {
				t.Errorf("resources %v, want a.txt and b.txt", out)
			}
			// The name a problem keeps is clipped: a tar's names may be a
			// MiB each (PAX), which a few KiB of .tar.gz compress.
			if p := b.problems.Sorted(); len(p) != 1 || !strings.HasPrefix(p[0].Path, "d/xxx") || len(p[0].Path) > maxProblemName+10 || !errors.Is(p[0].Err, ErrLocTooLong) {
				t.Errorf("problems %v, want the long name, clipped", p)
			}
		})
	}
}

// A tar's members are sorted on disk: an archive larger than the sort's
// memory, in no order, with names that several members hold, gives the
// same output as one sorted in memory.
func TestTarSortSpills(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var members []archiveMember
	for i := range 3000 {
		name := fmt.Sprintf("d%d/f%04d.txt", rng.IntN(9), rng.IntN(2500)) // some names twice
		members = append(members, archiveMember{name: name, body: strings.Repeat("z", i%50)})
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "site.tar.gz")
	writeTestArchive(t, src, members)
	var golden map[string]string
	var problems int
	for _, mem := range []int{32 << 20, 16 << 10} {
		func() {
			defer func(m int) { archiveSortMemory = m }(archiveSortMemory)
			archiveSortMemory = mem
			cfg := testConfig(t, src, filepath.Join(dir, fmt.Sprint("out-", mem)))
			rep, err := Build(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := testenv.ReadTree(t, cfg.Out)
			if golden == nil {
				golden, problems = got, len(rep.Problems)
				if problems == 0 || rep.Files < 1000 {
					t.Fatalf("%d files, %d problems: want names held twice", rep.Files, problems)
				}
				return
			}
			acSameFiles(t, fmt.Sprintf("a sort in %d bytes", mem), got, golden)
			if len(rep.Problems) != problems {
				t.Errorf("%d problems, want %d", len(rep.Problems), problems)
			}
		}()
	}
}
