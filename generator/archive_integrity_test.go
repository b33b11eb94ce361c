package generator

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/generator/internal/archivescan"
	"github.com/rsgen/rsgen/internal/testenv"
)

// A damaged archive is an error that names it, and nothing is published
// (issue 9 item 2); the legal variants of a good one are published.
func TestArchiveDamaged(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("the content of a member; ", 40)
	members := []testenv.Member{{Name: "a.txt", Body: body}, {Name: "b.txt", Body: "second"}}
	plain := testenv.TarBytes(t, members, 0)
	padded := testenv.TarBytes(t, members, 8192)
	stored := testenv.GzipBytes(t, plain, gzip.NoCompression)
	flip := func(b []byte, i int) []byte {
		b = bytes.Clone(b)
		b[i] ^= 0x20
		return b
	}
	contentAt := bytes.Index(stored, []byte(body))
	split := len(plain) / 2
	twoMembers := append(testenv.GzipBytes(t, plain[:split], 6), testenv.GzipBytes(t, plain[split:], 6)...)
	zipStored := func(crcZero bool) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, m := range members {
			w, err := zw.CreateHeader(&zip.FileHeader{Name: m.Name, Method: zip.Store, Modified: testenv.ArchiveMtime})
			if err != nil {
				t.Fatal(err)
			}
			w.Write([]byte(m.Body))
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
		{"good.tar.gz", testenv.GzipBytes(t, plain, 6), false},
		{"padded-inside.tgz", testenv.GzipBytes(t, padded, 6), false},
		{"two-members.tar.gz", twoMembers, false},
		{"zeros-after.tar.gz", append(testenv.GzipBytes(t, plain, 6), make([]byte, 512)...), false},
		{"padded.tar", padded, false},
		{"good.zip", good, false},
		{"content-flipped.tar.gz", flip(stored, contentAt+3), true},
		{"crc-flipped.tar.gz", flip(stored, len(stored)-6), true},
		{"size-flipped.tar.gz", flip(stored, len(stored)-2), true},
		{"cut-trailer.tar.gz", stored[:len(stored)-4], true},
		{"garbage-after.tar.gz", append(bytes.Clone(stored), "garbage"...), true},
		{"second-member-flipped.tar.gz", flip(twoMembers, len(twoMembers)-6), true},
		{"garbage-after-tar.tar", append(bytes.Clone(padded), "garbage"...), true},
		{"garbage-after-tar-inside.tgz", testenv.GzipBytes(t, append(bytes.Clone(plain), "garbage"...), 6), true},
		{"content-flipped.zip", flip(good, zipAt+3), true},
		{"crc-zero-flipped.zip", flip(goodZero, zipAt+3), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
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
				if err == nil || !errors.Is(err, archivescan.ErrDamaged) || !strings.Contains(err.Error(), src) {
					t.Fatalf("dump %v: error %v, want ErrDamaged naming %s", dump, err, src)
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("dump %v: output published from a damaged archive", dump)
				}
			}
		})
	}
}
