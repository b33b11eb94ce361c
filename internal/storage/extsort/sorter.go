package extsort

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/rsgen/rsgen/internal/storage/binrec"
)

const (
	// DefaultChunkBytes is the memory a Sorter holds records in before it
	// spills them to a run.
	DefaultChunkBytes = 64 << 20
	entSize           = 24 // the memory of one ent
	// blockSize is the unit in which a chunk's memory grows: blocks are
	// never copied, as one growing slice would be.
	blockSize = 1 << 20
)

type ent struct {
	k    uint64 // eight key bytes after the chunk's common prefix, set by sort
	blk  uint32 // block holding the record
	off  uint32 // start of the key in the block
	klen uint32
	plen uint32
}

// A Sorter sorts records by key. Create it with New, Add the records, then
// Iter over them as often as needed; Close removes its files.
type Sorter struct {
	dir    string
	limit  int
	blocks [][]byte // the chunk's records; the last one is being filled
	free   [][]byte // blocks of spilled chunks, for reuse
	used   int      // bytes of records in blocks
	ents   []ent
	sorted bool
	runs   []*binrec.File // the spilled runs, in order
	err    error
}

// New returns a Sorter that holds at most chunkBytes (DefaultChunkBytes if
// zero or less) of records in memory and writes its runs into dir, which
// must exist.
func New(dir string, chunkBytes int) *Sorter {
	if chunkBytes <= 0 {
		chunkBytes = DefaultChunkBytes
	}
	return &Sorter{dir: dir, limit: chunkBytes}
}

func (s *Sorter) Runs() int { return len(s.runs) }

// Add copies a record in; the error of writing a run sticks.
func (s *Sorter) Add(key, payload []byte) error {
	if s.err != nil {
		return s.err
	}
	size := len(key) + len(payload)
	if size > s.limit/2 || size >= 1<<31 {
		return fmt.Errorf("extsort: a record of %d bytes is more than half a chunk", size)
	}
	if s.used+size+(len(s.ents)+1)*entSize > s.limit && len(s.ents) > 0 {
		if s.err = s.spill(); s.err != nil {
			return s.err
		}
	}
	if len(s.blocks) == 0 || cap(s.blocks[len(s.blocks)-1])-len(s.blocks[len(s.blocks)-1]) < size {
		var b []byte
		if n := len(s.free); n > 0 && cap(s.free[n-1]) >= size {
			b, s.free = s.free[n-1], s.free[:n-1]
		} else {
			b = make([]byte, 0, max(blockSize, size))
		}
		s.blocks = append(s.blocks, b)
	}
	bi := len(s.blocks) - 1
	b := s.blocks[bi]
	off := len(b)
	b = append(b, key...)
	s.blocks[bi] = append(b, payload...)
	s.used += size
	s.ents = append(s.ents, ent{blk: uint32(bi), off: uint32(off), klen: uint32(len(key)), plen: uint32(len(payload))})
	s.sorted = false
	return nil
}

func (s *Sorter) key(e *ent) []byte { return s.blocks[e.blk][e.off : e.off+e.klen] }

func (s *Sorter) payload(e *ent) []byte {
	start := e.off + e.klen
	return s.blocks[e.blk][start : start+e.plen]
}

func (s *Sorter) record(e *ent) []byte { return s.blocks[e.blk][e.off : e.off+e.klen+e.plen] }

func (s *Sorter) sortChunk() {
	if s.sorted {
		return
	}
	s.sorted = true
	if len(s.ents) == 0 {
		return
	}
	cp := len(s.key(&s.ents[0]))
	first := s.key(&s.ents[0])
	for i := 1; i < len(s.ents) && cp > 0; i++ {
		k := s.key(&s.ents[i])
		n := min(cp, len(k))
		j := 0
		for j < n && k[j] == first[j] {
			j++
		}
		cp = j
	}
	var buf [8]byte
	for i := range s.ents {
		e := &s.ents[i]
		k := s.key(e)
		buf = [8]byte{}
		if cp < len(k) {
			copy(buf[:], k[cp:])
		}
		e.k = binary.BigEndian.Uint64(buf[:])
	}
	slices.SortFunc(s.ents, func(a, b ent) int {
		if c := cmp.Compare(a.k, b.k); c != 0 {
			return c
		}
		if c := bytes.Compare(s.key(&a)[cp:], s.key(&b)[cp:]); c != 0 {
			return c
		}
		if c := cmp.Compare(a.blk, b.blk); c != 0 {
			return c
		}
		return cmp.Compare(a.off, b.off)
	})
}

// spill sorts the chunk and writes it as a run of records: the length of
// the key, the key and the payload.
func (s *Sorter) spill() error {
	s.sortChunk()
	run, err := binrec.Create(s.dir, "run-*")
	if err != nil {
		return fmt.Errorf("spilling sorted records: %w", err)
	}
	s.runs = append(s.runs, run)
	var buf []byte
	for i := range s.ents {
		e := &s.ents[i]
		buf = append(binary.AppendUvarint(buf[:0], uint64(e.klen)), s.record(e)...)
		run.Append(buf) // its error sticks: Flush returns it
	}
	if err := run.Flush(); err != nil {
		return fmt.Errorf("spilling sorted records: %w", err)
	}
	for i, b := range s.blocks {
		s.free = append(s.free, b[:0])
		s.blocks[i] = nil
	}
	s.blocks = s.blocks[:0]
	s.used = 0
	s.ents = s.ents[:0]
	s.sorted = false
	return nil
}

// Iter starts a pass over all records in key order. Records may not be
// added while an Iter is in use.
func (s *Sorter) Iter() (*Iter, error) {
	if s.err != nil {
		return nil, s.err
	}
	s.sortChunk()
	it := &Iter{s: s}
	for i, run := range s.runs {
		r, err := run.Reader()
		if err != nil {
			return nil, fmt.Errorf("reading sorted records: %w", err)
		}
		it.srcs = append(it.srcs, &source{r: r, idx: i})
	}
	if len(s.ents) > 0 {
		it.srcs = append(it.srcs, &source{idx: len(it.srcs)})
	}
	for _, src := range it.srcs {
		if err := it.advance(src); err != nil {
			return nil, err
		}
		if !src.done {
			it.heap = append(it.heap, src)
		}
	}
	for i := len(it.heap)/2 - 1; i >= 0; i-- {
		it.down(i)
	}
	return it, nil
}

// Close removes the runs.
func (s *Sorter) Close() error {
	var errs []error
	for _, run := range s.runs {
		errs = append(errs, run.Close())
	}
	s.runs, s.blocks, s.free, s.ents = nil, nil, nil, nil
	s.err = errors.New("extsort: sorter closed")
	return errors.Join(errs...)
}

// source is one sorted run being merged: a spool, or the chunk in memory
// (r nil).
type source struct {
	r    *binrec.FileReader
	pos  int // next ent, for the chunk in memory
	idx  int // order of the run: breaks ties between equal keys
	done bool
	key  []byte
	val  []byte
}

// An Iter is one pass over the records of a Sorter in key order.
type Iter struct {
	s    *Sorter
	srcs []*source
	heap []*source
	cur  *source
	err  error
}

func (it *Iter) advance(src *source) error {
	if src.r == nil {
		if src.pos >= len(it.s.ents) {
			src.done = true
			return nil
		}
		e := &it.s.ents[src.pos]
		src.pos++
		src.key, src.val = it.s.key(e), it.s.payload(e)
		return nil
	}
	if !src.r.Next() {
		src.done = true
		if err := src.r.Err(); err != nil {
			return fmt.Errorf("reading sorted records: %w", err)
		}
		return nil
	}
	rec := src.r.Record()
	klen, n := binary.Uvarint(rec)
	if n <= 0 || klen > uint64(len(rec)-n) {
		return fmt.Errorf("reading sorted records: %w", binrec.ErrCorrupt)
	}
	src.key, src.val = rec[n:n+int(klen)], rec[n+int(klen):]
	return nil
}

func (it *Iter) less(a, b *source) bool {
	if c := bytes.Compare(a.key, b.key); c != 0 {
		return c < 0
	}
	return a.idx < b.idx
}

func (it *Iter) down(i int) {
	h := it.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && it.less(h[r], h[l]) {
			m = r
		}
		if !it.less(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// Next moves to the next record and reports whether there is one.
func (it *Iter) Next() bool {
	if it.err != nil {
		return false
	}
	if it.cur != nil {
		if err := it.advance(it.cur); err != nil {
			it.err = err
			return false
		}
		if it.cur.done {
			last := len(it.heap) - 1
			it.heap[0] = it.heap[last]
			it.heap = it.heap[:last]
		}
		if len(it.heap) > 0 {
			it.down(0)
		}
	}
	if len(it.heap) == 0 {
		it.cur = nil
		return false
	}
	it.cur = it.heap[0]
	return true
}

// Key and Value return the current record's, valid until Next.
func (it *Iter) Key() []byte   { return it.cur.key }
func (it *Iter) Value() []byte { return it.cur.val }

func (it *Iter) Err() error { return it.err }
