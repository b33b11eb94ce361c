package records

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"sync/atomic"
)

// Format is the syntax of an export.
type Format int

// The formats of an export.
const (
	JSONL Format = iota + 1 // JSON Lines: one object per line
	CSV                     // RFC 4180 comma-separated values with a header row
)

// ParseFormat reads a format name: jsonl (or ndjson) or csv.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "jsonl", "ndjson", "jsonlines":
		return JSONL, nil
	case "csv":
		return CSV, nil
	}
	return 0, fmt.Errorf("unknown export format %q (known: jsonl, csv)", s)
}

// FormatOf returns the format named by the extension of a file name
// (.jsonl, .ndjson, .csv, each optionally followed by .gz), and false if
// the extension names none.
func FormatOf(name string) (Format, bool) {
	ext := strings.ToLower(path.Ext(name))
	if ext == ".gz" {
		ext = strings.ToLower(path.Ext(strings.TrimSuffix(name, path.Ext(name))))
	}
	switch ext {
	case ".jsonl", ".ndjson":
		return JSONL, true
	case ".csv":
		return CSV, true
	}
	return 0, false
}

// maxLineBytes is the longest record an export may have. A longer line of
// JSON Lines is a bad record, skipped without being held in memory; a
// longer record of CSV is errRecordTooLong, and the export cannot be read
// on (where a CSV record ends cannot be known without reading it).
const maxLineBytes = 1 << 20

// errRecordTooLong reports a CSV record longer than maxLineBytes.
var errRecordTooLong = fmt.Errorf("a CSV record is longer than %d bytes", maxLineBytes)

// csvLimit passes the bytes of a CSV export on to encoding/csv, which
// holds a whole record in memory, and fails once a record is longer than
// maxLineBytes. It follows the quotes of RFC 4180 to know where a record
// ends: at a line break outside a quoted field.
type csvLimit struct {
	r     io.Reader
	state csvState
	n     int // bytes of the record read so far
	lines int // line breaks read so far
	line  int // line the record starts on
	err   error
}

type csvState byte

const (
	csvFieldStart csvState = iota
	csvUnquoted
	csvQuoted
	csvQuoteInQuoted // a quote in a quoted field: its end, or the first of ""
)

func (l *csvLimit) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	for i, c := range p[:n] {
		if c == '\n' {
			l.lines++
			if l.state != csvQuoted {
				l.state, l.n, l.line = csvFieldStart, 0, l.lines+1
				continue
			}
		}
		switch {
		case l.state == csvQuoted:
			if c == '"' {
				l.state = csvQuoteInQuoted
			}
		case c == ',':
			l.state = csvFieldStart
		case c == '"' && l.state != csvUnquoted: // opens a field, or is the second of ""
			l.state = csvQuoted
		default:
			l.state = csvUnquoted
		}
		if l.n++; l.n > maxLineBytes {
			l.err = fmt.Errorf("line %d: %w; the export cannot be read on", l.line, errRecordTooLong)
			return i, nil
		}
	}
	return n, err
}

// A Reader reads the records of an export. It is not safe for concurrent
// use, except for Parse.
type Reader struct {
	// Count, if set, counts the records as they are read: a batch from a
	// slow input (a pipe) may take long to fill.
	Count *atomic.Int64

	format Format
	br     *bufio.Reader
	gz     *gzip.Reader
	line   int // lines of a JSON Lines export read so far
	csv    *csv.Reader
	schema *csvSchema
}

// NewReader returns a Reader of the export r in format f. Input compressed
// with gzip is recognised by its first bytes and decompressed; a leading
// UTF-8 byte order mark is skipped. For CSV, the header row is read: an
// error wrapping ErrHeader means it cannot be used.
func NewReader(r io.Reader, f Format) (*Reader, error) {
	rd := &Reader{format: f, br: bufio.NewReaderSize(r, 256<<10)}
	if magic, _ := rd.br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(rd.br)
		if err != nil {
			return nil, fmt.Errorf("reading gzip: %w", err)
		}
		rd.gz = gz
		rd.br = bufio.NewReaderSize(gz, 256<<10)
	}
	if bom, _ := rd.br.Peek(3); bytes.Equal(bom, []byte("\uFEFF")) {
		rd.br.Discard(3)
	}
	switch f {
	case JSONL:
	case CSV:
		rd.csv = csv.NewReader(&csvLimit{r: rd.br, line: 1})
		rd.csv.FieldsPerRecord = -1 // counted by the schema, to report the line
		header, err := rd.csv.Read()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: the export is empty; its first row must name the columns", ErrHeader)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrHeader, err)
		}
		if rd.schema, err = newCSVSchema(header); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown export format %d", f)
	}
	return rd, nil
}

// A Batch holds the raw text of several records, read by ReadBatch. Its
// buffers are reused by the next ReadBatch into it.
type Batch struct {
	buf  []byte // JSON Lines: the lines, one after the other
	recs []rawRecord
}

type rawRecord struct {
	line int
	end  int      // JSON Lines: the end of its line in buf
	row  []string // CSV
	err  error    // a line too long, a row that could not be read as CSV
}

// Len returns the number of records in the batch.
func (b *Batch) Len() int { return len(b.recs) }

// ReadBatch reads up to max records into b, replacing what it held. It
// returns io.EOF when the export is exhausted and b is empty; any other
// error (of reading or decompressing) means the export cannot be read on.
// Blank lines are not records.
func (r *Reader) ReadBatch(b *Batch, max int) error {
	b.buf, b.recs = b.buf[:0], b.recs[:0]
	for b.Len() < max {
		var err error
		if r.format == CSV {
			err = r.readRow(b)
		} else {
			err = r.readLine(b)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if r.Count != nil {
			r.Count.Add(1)
		}
	}
	if b.Len() == 0 {
		return io.EOF
	}
	return nil
}

// errLong marks a line past maxLineBytes in a batch.
var errLong = fmt.Errorf("line longer than %d bytes", maxLineBytes)

// readLine reads the next line that is not blank into b.
func (r *Reader) readLine(b *Batch) error {
	for {
		start := len(b.buf)
		long := false
		var err error
		for {
			var chunk []byte
			chunk, err = r.br.ReadSlice('\n')
			if long = long || len(b.buf)-start+len(chunk) > maxLineBytes; long {
				b.buf = b.buf[:start] // not held in memory
			} else {
				b.buf = append(b.buf, chunk...)
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			b.buf = b.buf[:start]
			return r.readErr(err)
		}
		eof := err != nil
		if start == len(b.buf) && eof && !long {
			return io.EOF
		}
		r.line++
		if long {
			b.recs = append(b.recs, rawRecord{line: r.line, end: start, err: errLong})
			return nil
		}
		if blank(b.buf[start:]) {
			b.buf = b.buf[:start]
			if eof {
				return io.EOF
			}
			continue
		}
		b.recs = append(b.recs, rawRecord{line: r.line, end: len(b.buf)})
		return nil
	}
}

func (r *Reader) readErr(err error) error {
	if r.gz != nil {
		return fmt.Errorf("decompressing: %w", err)
	}
	return err
}

func blank(s []byte) bool {
	for _, c := range s {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

func (r *Reader) readRow(b *Batch) error {
	row, err := r.csv.Read()
	if errors.Is(err, io.EOF) {
		return io.EOF
	}
	var pe *csv.ParseError
	if err != nil && !errors.As(err, &pe) {
		return r.readErr(err)
	}
	raw := rawRecord{row: row}
	if err == nil {
		raw.line, _ = r.csv.FieldPos(0)
	} else {
		raw.line, raw.err = pe.StartLine, pe.Err
	}
	b.recs = append(b.recs, raw)
	return nil
}

// Parse parses record i of b. A bad record is returned with the error
// that says why, and its Line. Parse may be called from several
// goroutines at once.
func (r *Reader) Parse(b *Batch, i int) (Record, error) {
	raw := &b.recs[i]
	switch {
	case raw.err != nil:
		return newRecord(raw.line), raw.err
	case r.format == CSV:
		return r.schema.parse(raw.row, raw.line)
	}
	start := 0
	if i > 0 {
		start = b.recs[i-1].end
	}
	return parseJSONLine(b.buf[start:raw.end], raw.line)
}

// Close releases the decompressor, if any. It does not close the
// underlying reader.
func (r *Reader) Close() error {
	if r.gz != nil {
		return r.gz.Close()
	}
	return nil
}
