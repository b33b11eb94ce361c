package testenv

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"cmp"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
)

// A Member is one entry written into a test archive.
type Member struct {
	Name     string
	Body     string
	Typeflag byte // tar type; for zip, tar.TypeDir, TypeSymlink and TypeReg are written
	Link     string
	Mtime    time.Time // ArchiveMtime if zero (TarBytes)
}

// ArchiveMtime is the modification time of every member WriteArchive
// writes.
var ArchiveMtime = time.Date(2024, 5, 1, 8, 30, 15, 0, time.UTC)

// WriteArchive writes members into a .zip, .tar.gz, .tgz or .tar at path,
// by the name's suffix. A zip leaves out hard links, FIFOs and pax global
// headers, which it cannot hold.
func WriteArchive(t testing.TB, path string, members []Member) {
	t.Helper()
	var buf bytes.Buffer
	if strings.HasSuffix(strings.ToLower(path), ".zip") {
		zw := zip.NewWriter(&buf)
		for _, m := range members {
			if m.Typeflag == tar.TypeLink || m.Typeflag == tar.TypeFifo || m.Typeflag == tar.TypeXGlobalHeader {
				continue
			}
			h := &zip.FileHeader{Name: m.Name, Modified: ArchiveMtime, Method: zip.Deflate}
			switch m.Typeflag {
			case tar.TypeDir:
				h.SetMode(fs.ModeDir | 0o755)
			case tar.TypeSymlink:
				h.SetMode(fs.ModeSymlink | 0o777)
				m.Body = m.Link
			default:
				h.SetMode(0o644)
			}
			w, err := zw.CreateHeader(h)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(w, m.Body)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	} else {
		var w io.Writer = &buf
		var zw *gzip.Writer
		if strings.HasSuffix(path, "gz") {
			zw = gzip.NewWriter(&buf)
			w = zw
		}
		tw := tar.NewWriter(w)
		for _, m := range members {
			flag := m.Typeflag
			if flag == 0 {
				flag = tar.TypeReg
			}
			h := &tar.Header{Name: m.Name, Typeflag: flag, Linkname: m.Link, Mode: 0o644, ModTime: ArchiveMtime, Size: int64(len(m.Body)), Format: tar.FormatPAX}
			if flag != tar.TypeReg {
				h.Size = 0
			}
			if flag == tar.TypeXGlobalHeader { // as git archive writes it
				h = &tar.Header{Name: m.Name, Typeflag: flag, PAXRecords: map[string]string{"comment": "0123abcd"}, Format: tar.FormatPAX}
			}
			if err := tw.WriteHeader(h); err != nil {
				t.Fatal(err)
			}
			io.WriteString(tw, m.Body)
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		if zw != nil {
			zw.Close()
		}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TarBytes is a tar of regular members, padded with pad zeros as tar pads
// its last record.
func TarBytes(t testing.TB, members []Member, pad int) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, m := range members {
		if err := tw.WriteHeader(&tar.Header{Name: m.Name, Typeflag: tar.TypeReg, Mode: 0o644, ModTime: cmp.Or(m.Mtime, ArchiveMtime), Size: int64(len(m.Body))}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(m.Body))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	buf.Write(make([]byte, pad))
	return buf.Bytes()
}

// GzipBytes compresses data as one gzip member at level (0 stores it, so
// that a flipped byte of content is read back without a flate error).
func GzipBytes(t testing.TB, data []byte, level int) []byte {
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

// TextMembers are n members of size bytes each, in ten directories: text
// of random words, which gzip compresses about threefold, as it does HTML.
// The same n and size give the same members.
func TextMembers(n, size int) []Member {
	rng := rand.New(rand.NewPCG(5, 6))
	words := strings.Fields("the of and to in a is that for it as was with be by on not he this are or his from at which but have an they you were her she there been one all we their has would when if so no will more can about up out who said into some time them like other could only my then")
	members := make([]Member, n)
	for i := range members {
		var sb strings.Builder
		for sb.Len() < size {
			sb.WriteString(words[rng.IntN(len(words))])
			sb.WriteByte(" \n"[rng.IntN(12)/11])
		}
		members[i] = Member{Name: fmt.Sprintf("dir%d/file%04d.txt", i%10, i), Body: sb.String()[:size]}
	}
	return members
}

// ZipNames returns the names of the members of the zip file at path, in
// the order of its central directory.
func ZipNames(t testing.TB, path string) []string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	return names
}
