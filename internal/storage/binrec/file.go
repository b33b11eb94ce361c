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

// ErrCorrupt reports a File that does not hold what was written to it;
// decoders of its records use it as the error of a Reader too.
var ErrCorrupt = errors.New("spool file damaged")

const maxRecord = 1 << 30 // a longer one means a damaged file

// A File keeps a sequence of records on disk, each after its length, for a
// step of a build that produces more than memory should hold. Records are
// appended, then read back in order by as many [FileReader]s as needed,
// each holding one record and a buffer. The file is a temporary file of
// the directory given to [Create] (a build's stage, which a crash leaves
// for the next build to remove); [File.Close] removes it.
type File struct {
	f    *os.File
	w    *bufio.Writer
	n    int   // records appended
	size int64 // bytes written
	err  error // sticky
	len  [binary.MaxVarintLen64]byte
}

func Create(dir, pattern string) (*File, error) {
	f, err := confined.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return &File{f: f}, nil
}

// writeBuffer is held only while records are appended: a build of many
// sets keeps a File of each.
const writeBuffer = 64 << 10

// Append appends one record; the first error met writing sticks.
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
	_, err := s.w.Write(s.len[:n])
	if err == nil {
		_, err = s.w.Write(rec)
	}
	if err != nil {
		s.err = fmt.Errorf("writing %s: %w", s.f.Name(), err)
		return s.err
	}
	s.n++
	s.size += int64(n + len(rec))
	return nil
}

func (s *File) Len() int { return s.n }

// Flush writes what was appended, and lets go of the buffer.
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
// appended so far.
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

type FileReader struct {
	name string
	r    *bufio.Reader
	left int // records not read
	rec  []byte
	err  error
}

// Next reads the next record; false at the end or on an error ([FileReader.Err]).
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

// Record returns the record Next read, valid until the next call of Next.
func (r *FileReader) Record() []byte { return r.rec }

func (r *FileReader) Err() error { return r.err }
