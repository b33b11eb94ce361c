package binrec

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rsgen/rsgen/internal/storage/confined"
)

// ErrCorrupt reports a File that does not hold what was written to it:
// something else wrote to it, or it was truncated. Decoders of records
// read back from a File use it as the error of a Reader too.
var ErrCorrupt = errors.New("spool file damaged")

// maxRecord bounds the length of one record: a length past it can only
// come from a damaged file.
const maxRecord = 1 << 30

// A File keeps a sequence of records on disk, for a step of a build that
// produces more of them than memory should hold and a later step that
// reads them back in the same order, once or several times. It is written
// by appending records and then read by as many [FileReader]s as needed,
// one after the other or at once; each holds one record and a buffer.
// Each record is stored with its length as a varint before it. The file
// is a temporary file of the directory given to [Create] (a build puts it
// in its stage, which a crash leaves for the next build to remove), and
// [File.Close] removes it.
type File struct {
	f    *os.File
	w    *bufio.Writer
	n    int   // records appended
	size int64 // bytes written
	err  error // sticky
	len  [binary.MaxVarintLen64]byte
}

// Create creates an empty File in dir, named after pattern as
// os.CreateTemp names it.
func Create(dir, pattern string) (*File, error) {
	f, err := confined.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return &File{f: f}, nil
}

// writeBuffer is the size of a File's buffer, which it holds only while
// records are appended: a build of many sets keeps a File of each.
const writeBuffer = 64 << 10

// Append appends one record. Its error, like that of every later call,
// is the first error met writing the file (a full disk).
func (s *File) Append(rec []byte) error {
	if s.err != nil {
		return s.err
	}
	if len(rec) > maxRecord {
		s.err = fmt.Errorf("spool record of %d bytes", len(rec))
		return s.err
	}
	if s.w == nil {
		s.w = bufio.NewWriterSize(s.f, writeBuffer)
	}
	n := binary.PutUvarint(s.len[:], uint64(len(rec)))
	if _, err := s.w.Write(s.len[:n]); err != nil {
		s.err = fmt.Errorf("writing %s: %w", s.f.Name(), err)
		return s.err
	}
	if _, err := s.w.Write(rec); err != nil {
		s.err = fmt.Errorf("writing %s: %w", s.f.Name(), err)
		return s.err
	}
	s.n++
	s.size += int64(n + len(rec))
	return nil
}

// Len returns the number of records appended.
func (s *File) Len() int { return s.n }

// Flush writes what was appended to the file, and lets go of the buffer
// until a record is appended again.
func (s *File) Flush() error {
	if s.err == nil && s.w != nil {
		if err := s.w.Flush(); err != nil {
			s.err = fmt.Errorf("writing %s: %w", s.f.Name(), err)
		}
		s.w = nil
	}
	return s.err
}

// Reader flushes what was appended and returns a FileReader of the records
// appended so far, from the first. Records appended later are not read.
func (s *File) Reader() (*FileReader, error) {
	if err := s.Flush(); err != nil {
		return nil, err
	}
	return &FileReader{
		name: s.f.Name(),
		r:    bufio.NewReaderSize(io.NewSectionReader(s.f, 0, s.size), 64<<10),
		left: s.n,
	}, nil
}

// Close closes and removes the file. Readers of it are left to fail.
func (s *File) Close() error {
	err := s.f.Close()
	if rerr := confined.Remove(s.f.Name()); err == nil {
		err = rerr
	}
	return err
}

// A FileReader reads the records of a File in the order they were appended.
type FileReader struct {
	name string
	r    *bufio.Reader
	left int // records not read
	rec  []byte
	err  error
}

// Next reads the next record, which [FileReader.Record] then returns. It
// returns false at the end of the records, or on an error ([FileReader.Err]).
func (r *FileReader) Next() bool {
	if r.err != nil || r.left == 0 {
		return false
	}
	n, err := binary.ReadUvarint(r.r)
	if err == nil && n > maxRecord {
		err = ErrCorrupt
	}
	if err == nil {
		if cap(r.rec) < int(n) {
			r.rec = make([]byte, n)
		}
		r.rec = r.rec[:n]
		_, err = io.ReadFull(r.r, r.rec)
	}
	if err != nil {
		// Fewer bytes than were written, or bytes that are not a record:
		// either way not what was appended.
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = io.ErrUnexpectedEOF
		}
		if !errors.Is(err, ErrCorrupt) {
			err = fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		r.err = fmt.Errorf("reading %s: %w", r.name, err)
		return false
	}
	r.left--
	return true
}

// Record returns the record Next read. It is valid until the next call
// of Next.
func (r *FileReader) Record() []byte { return r.rec }

// Err returns the error that ended the records early, if one did.
func (r *FileReader) Err() error { return r.err }
