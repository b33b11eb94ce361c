package spill

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/storage/binrec"
	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/extsort"
)

// A Change is one entry of a Change List (section 12.1): what happened to
// a resource, and when.
type Change struct {
	Resource           // the resource after the change; for a deletion, as it was last published
	Change   string    // rsxml.ChangeCreated, ChangeUpdated or ChangeDeleted
	Datetime time.Time // when the change happened: from <= Datetime <= until of its list
}

// Entry fills e with c as an entry of a change document. Both lastmod and
// datetime are written: 1.1 clients read datetime, 0.9 and 1.0 clients the
// lastmod, which they take for the time of the change. A deletion carries
// no digest or length: there are no bytes left to check.
func (c *Change) Entry(e *rsxml.Entry) {
	*e = rsxml.Entry{Loc: c.Loc, Links: c.Links}
	e.Lastmod = rsxml.FormatTime(c.Datetime.Truncate(time.Second))
	if c.Change != rsxml.ChangeDeleted && !c.Modified.IsZero() {
		e.Lastmod = rsxml.FormatTime(c.Modified.Truncate(time.Second))
	}
	e.MD.Change = c.Change
	e.MD.Datetime = rsxml.FormatTime(c.Datetime.Truncate(time.Second))
	if c.Change != rsxml.ChangeDeleted {
		e.MD.Hash = hashing.FormatTokens(c.Hash)
		if c.Length >= 0 {
			e.MD.Length = strconv.FormatInt(c.Length, 10)
		}
		e.MD.Type = c.Type
	}
}

// ChangeSet holds the changes a build found, sorted on disk by datetime
// and then by URL (the same trees give the same bytes), and read back one
// at a time: none is held in memory.
type ChangeSet struct {
	sorter *extsort.Sorter // until finish
	file   *binrec.File    // after finish
	closed bool
	buf    []byte

	Created, Updated, Deleted int
	times                     []int64 // the datetime of each change, in order, in unix seconds (after finish)
}

const DefaultSortMemory = 16 << 20

// Changes returns an empty set of changes.
func (a *Area) Changes() (*ChangeSet, error) {
	spill, err := a.Path()
	if err != nil {
		return nil, err
	}
	dir, err := confined.MkdirTemp(spill, "changes-*")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSpool, err)
	}
	mem := a.SortMemory
	if mem <= 0 {
		mem = DefaultSortMemory
	}
	s := &ChangeSet{sorter: extsort.New(dir, mem)}
	a.Track(s)
	return s, nil
}

// Add adds c, before Finish.
func (s *ChangeSet) Add(c *Change) error {
	key := appendTimeKey(s.buf[:0], c.Datetime)
	key = append(key, c.Loc...)
	n := len(key)
	rec := binrec.AppendBytes(key, c.Change)
	rec = binrec.AppendTime(rec, c.Datetime)
	rec = AppendResource(rec, &Resource{}, &c.Resource)
	s.buf = rec
	if err := s.sorter.Add(rec[:n], rec[n:]); err != nil {
		return fmt.Errorf("%w: %w", ErrSpool, err)
	}
	switch c.Change {
	case rsxml.ChangeCreated:
		s.Created++
	case rsxml.ChangeUpdated:
		s.Updated++
	default:
		s.Deleted++
	}
	return nil
}

// appendTimeKey appends t as 12 bytes that sort as the times do.
func appendTimeKey(b []byte, t time.Time) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(t.Unix())^1<<63)
	return binary.BigEndian.AppendUint32(b, uint32(t.Nanosecond()))
}

// Finish sorts the changes into the spool they are read from.
func (s *ChangeSet) Finish(a *Area) error {
	it, err := s.sorter.Iter()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSpool, err)
	}
	spill, err := a.Path()
	if err != nil {
		return err
	}
	if s.file, err = binrec.Create(spill, "changes-*"); err != nil {
		return fmt.Errorf("%w: %w", ErrSpool, err)
	}
	s.times = make([]int64, 0, s.Len())
	for it.Next() {
		key := it.Key()
		s.times = append(s.times, int64(binary.BigEndian.Uint64(key)^1<<63))
		if err := s.file.Append(it.Value()); err != nil {
			return fmt.Errorf("%w: %w", ErrSpool, err)
		}
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrSpool, err)
	}
	s.sorter.Close()
	s.sorter = nil
	return nil
}

func (s *ChangeSet) Len() int {
	if s == nil {
		return 0
	}
	return s.Created + s.Updated + s.Deleted
}

func (s *ChangeSet) Close() {
	if s == nil || s.closed {
		return
	}
	s.closed = true
	if s.sorter != nil {
		s.sorter.Close()
	}
	if s.file != nil {
		s.file.Close()
	}
}

// Each calls fn with each change in order, until it returns an error.
func (s *ChangeSet) Each(fn func(c *Change) error) error {
	it, err := s.Iter()
	if err != nil {
		return err
	}
	return it.Each(fn)
}

func (s *ChangeSet) Iter() (*Iter[Change], error) {
	if s == nil {
		return &Iter[Change]{}, nil
	}
	return NewIter(s.file, readChange, (*Change).Entry)
}

func readChange(d *binrec.Reader, c *Change) error {
	kind := d.Bytes()
	c.Change = "" // the constant, not a string of its own
	for _, k := range []string{rsxml.ChangeCreated, rsxml.ChangeUpdated, rsxml.ChangeDeleted} {
		if string(kind) == k {
			c.Change = k
		}
	}
	c.Datetime = d.Time()
	c.Resource = Resource{}
	if err := ReadResource(d, &c.Resource, func(t []byte) string { return string(t) }); err != nil || c.Change == "" {
		return binrec.ErrCorrupt
	}
	return nil
}

// Datetime is that of the i-th change, once the set is finished.
func (s *ChangeSet) Datetime(i int) time.Time { return time.Unix(s.times[i], 0).UTC() }
