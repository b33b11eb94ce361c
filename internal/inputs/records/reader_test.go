package records

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"testing"
)

// endless yields its head, then the byte fill forever, and fails the test
// once more than limit bytes are asked of it: a reader that holds a record
// whole would read on.
type endless struct {
	head  *strings.Reader
	fill  byte
	read  int
	limit int
}

func (e *endless) Read(p []byte) (int, error) {
	if e.head.Len() > 0 {
		return e.head.Read(p)
	}
	if e.read += len(p); e.read > e.limit {
		return 0, errors.New("read too far: the record is held whole")
	}
	for i := range p {
		p[i] = e.fill
	}
	return len(p), nil
}

// A CSV record is capped as a JSON Lines line is: a longer one is an
// error naming its line, read no further than the cap (issue 9 item 10).
func TestCSVRecordCap(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		head string
		fill byte
	}{
		{"unquoted field", "loc,type\nrecords/1,text/html\nrecords/2,", 'x'},
		{"quoted field of many lines", "loc,type\nrecords/1,text/html\n\"records/2\",\"", '\n'},
		{"quoted field of quotes", "loc,type\n\"records/1\",text/html\nrecords/2,\"", '"'},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := &endless{head: strings.NewReader(c.head), fill: c.fill, limit: 8 * maxLineBytes}
			rd, err := NewReader(src, CSV)
			if err != nil {
				t.Fatal(err)
			}
			var b Batch
			err = rd.ReadBatch(&b, 10)
			if err == nil {
				err = rd.ReadBatch(&b, 10)
			}
			if !errors.Is(err, errRecordTooLong) || !strings.Contains(err.Error(), "line 3:") {
				t.Fatalf("error %v, want ErrRecordTooLong at line 3", err)
			}
		})
	}
}

// Records up to the cap are read whole, quotes and line breaks in them
// followed, and the lines of later records stay right.
func TestCSVRecordUnderCap(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("a,\"\"b\"\"\n", (maxLineBytes-100)/9)
	in := "loc,type\n\"records/1\",\"" + big + "\"\nrecords/2,text/html\n" + strings.Repeat("x", maxLineBytes-20) + ",text/html\n"
	rd, err := NewReader(strings.NewReader(in), CSV)
	if err != nil {
		t.Fatal(err)
	}
	var b Batch
	if err := rd.ReadBatch(&b, 10); err != nil {
		t.Fatal(err)
	}
	if b.Len() != 3 {
		t.Fatalf("%d records, want 3", b.Len())
	}
	rec, err := rd.Parse(&b, 1)
	if want := 3 + strings.Count(big, "\n"); err != nil || rec.Line != want {
		t.Errorf("second record at line %d (%v), want %d", rec.Line, err, want)
	}
}

// A gzipped export is read to the end of its stream, its CRC-32 checked.
func TestGzipExportDamaged(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.NoCompression)
	io.WriteString(zw, `{"loc":"records/1"}`+"\n")
	zw.Close()
	good := buf.Bytes()
	for name, data := range map[string][]byte{
		"crc flipped":   append(bytes.Clone(good[:len(good)-8]), append([]byte{good[len(good)-8] ^ 1}, good[len(good)-7:]...)...),
		"garbage after": append(bytes.Clone(good), "garbage"...),
		"cut short":     good[:len(good)-3],
	} {
		for _, f := range []Format{JSONL, CSV} {
			in := data
			if f == CSV {
				var cb bytes.Buffer
				zw, _ := gzip.NewWriterLevel(&cb, gzip.NoCompression)
				io.WriteString(zw, "loc\nrecords/1\n")
				zw.Close()
				c := cb.Bytes()
				switch name {
				case "crc flipped":
					c[len(c)-8] ^= 1
				case "garbage after":
					c = append(c, "garbage"...)
				case "cut short":
					c = c[:len(c)-3]
				}
				in = c
			}
			rd, err := NewReader(bytes.NewReader(in), f)
			if err == nil {
				next := nextRecord(rd)
				for err == nil {
					_, err = next()
				}
			}
			if errors.Is(err, io.EOF) {
				t.Errorf("%s %v: read to the end without an error", name, f)
			}
		}
	}
}
