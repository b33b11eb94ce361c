package binrec

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFileRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Create(dir, ".spool-*")
	if err != nil {
		t.Fatal(err)
	}
	var want [][]byte
	for i := range 10000 {
		rec := bytes.Repeat([]byte{byte(i)}, i%300) // the empty record too
		want = append(want, rec)
		if err := s.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
	for pass := range 2 { // a File is read as often as needed
		r, err := s.Reader()
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for r.Next() {
			if !bytes.Equal(r.Record(), want[i]) {
				t.Fatalf("pass %d: record %d is %d bytes, want %d", pass, i, len(r.Record()), len(want[i]))
			}
			i++
		}
		if r.Err() != nil || i != len(want) {
			t.Fatalf("pass %d: %d records, error %v", pass, i, r.Err())
		}
	}
	if s.Len() != len(want) {
		t.Errorf("Len %d", s.Len())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("Close left %v", left)
	}
}

// A file truncated or overwritten under the reader is an error, never
// records that were not written.
func TestFileDamaged(t *testing.T) {
	t.Parallel()
	for _, damage := range []func(name string, size int64) error{
		func(name string, size int64) error { return os.Truncate(name, size-3) },
		func(name string, size int64) error {
			return os.WriteFile(name, bytes.Repeat([]byte{0xff}, int(size)), 0o600)
		},
	} {
		s, err := Create(t.TempDir(), "spool")
		if err != nil {
			t.Fatal(err)
		}
		for i := range 100 {
			s.Append(fmt.Appendf(nil, "record %d", i))
		}
		r, err := s.Reader()
		if err != nil {
			t.Fatal(err)
		}
		if err := damage(s.f.Name(), s.size); err != nil {
			t.Fatal(err)
		}
		n := 0
		for r.Next() {
			if want := fmt.Sprintf("record %d", n); string(r.Record()) != want {
				t.Fatalf("record %d reads %q", n, r.Record())
			}
			n++
		}
		if !errors.Is(r.Err(), ErrCorrupt) {
			t.Errorf("after %d records: error %v, want ErrCorrupt", n, r.Err())
		}
		s.Close()
	}
}

// A full disk is the error of Append, or of Reader, which flushes.
func TestFileFullDisk(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	s := &File{f: f}
	s.w = bufioWriter(f)
	var failed error
	for i := 0; i < 100000 && failed == nil; i++ {
		failed = s.Append([]byte("a record that fills the buffer"))
	}
	if failed == nil {
		_, failed = s.Reader()
	}
	if failed == nil {
		t.Fatal("no error writing to /dev/full")
	}
	f.Close()
}

func bufioWriter(f *os.File) *bufio.Writer { return bufio.NewWriterSize(f, 64<<10) }

// A spool holds its write buffer only while records are appended: a build
// of many sets keeps each set's spool until it publishes (64 KB a set).
func TestFileBufferLetGo(t *testing.T) {
	t.Parallel()
	s, err := Create(t.TempDir(), "spool-*")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.w != nil {
		t.Error("a new spool holds a buffer")
	}
	if err := s.Append([]byte("one")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reader(); err != nil {
		t.Fatal(err)
	}
	if s.w != nil {
		t.Error("a spool being read holds its write buffer")
	}
	if err := s.Append([]byte("two")); err != nil {
		t.Fatal(err)
	}
	r, err := s.Reader()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for r.Next() {
		got = append(got, string(r.Record()))
	}
	if r.Err() != nil || strings.Join(got, ",") != "one,two" {
		t.Errorf("records %q, %v; want one, two", got, r.Err())
	}
}
