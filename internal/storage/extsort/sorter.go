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

// DefaultChunkBytes is the memory a Sorter holds records in before it
// spills them to a run.
const DefaultChunkBytes = 64 << 20

const (
	blockSize = 1 << 20
	entSize   = 24 // of an ent
	partLen   = blockSize / entSize
)

// An ent indexes a record: its key at blocks[blk][off:], its payload
// after it.
type ent struct {
	k                    uint64 // eight key bytes past the prefix the chunk shares, set by setK
	blk, off, klen, plen uint32
}

// A Sorter sorts records by key. Create it with New, Add the records, then
// Iter over them as often as needed; Close removes its files.
type Sorter struct {
	dir          string
	limit, used  int      // used: by the chunk's records and ents
	blocks, free [][]byte // the chunk's records, the last being filled; blocks to reuse
	parts, spare [][]ent  // the chunk's index, each part sorted once full; parts to reuse
	sorted       bool     // the last part is
	first        []byte   // the chunk's first key
	cp           int      // the length of the prefix the chunk's keys share
	cps          []int    // the cp each part's ents have their k past
	runs         []*binrec.File
	err          error
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
	if s.used+size+entSize > s.limit && s.used > 0 {
		if s.err = s.spill(); s.err != nil {
			return s.err
		}
	}
	if n := len(s.blocks); n == 0 || cap(s.blocks[n-1])-len(s.blocks[n-1]) < size {
		s.blocks = append(s.blocks, reuse(&s.free, max(blockSize, size)))
	}
	if n := len(s.parts); n == 0 || len(s.parts[n-1]) == partLen {
		s.parts = append(s.parts, reuse(&s.spare, min(n, 1)*partLen)) // the first grows as it fills: a small sort stays small
	}
	bi := len(s.blocks) - 1
	b := s.blocks[bi]
	s.blocks[bi] = append(append(b, key...), payload...)
	if s.used == 0 {
		s.first, s.cp = s.blocks[bi][len(b):len(b)+len(key)], len(key)
	}
	if len(key) < s.cp || !bytes.Equal(key[:s.cp], s.first[:s.cp]) {
		n := 0
		for n < min(s.cp, len(key)) && key[n] == s.first[n] {
			n++
		}
		s.cp = n
	}
	s.used += size + entSize
	part := &s.parts[len(s.parts)-1]
	*part = append(*part, ent{blk: uint32(bi), off: uint32(len(b)), klen: uint32(len(key)), plen: uint32(len(payload))})
	if s.sorted = len(*part) == partLen; s.sorted {
		s.sort(len(s.parts) - 1)
	}
	return nil
}

// reuse returns one of free, emptied, or a new slice of capacity n.
func reuse[T any](free *[][]T, n int) []T {
	if k := len(*free); k > 0 && cap((*free)[k-1]) >= n {
		b := (*free)[k-1]
		*free = (*free)[:k-1]
		return b[:0]
	}
	return make([]T, 0, n)
}

func (s *Sorter) key(e *ent) []byte { return s.blocks[e.blk][e.off : e.off+e.klen] }

// sort sorts part i of the index by key, then in the order of addition.
func (s *Sorter) sort(i int) {
	s.setK(i)
	cp := s.cp
	slices.SortFunc(s.parts[i], func(a, b ent) int {
		if c := cmp.Compare(a.k, b.k); c != 0 {
			return c
		}
		if c := bytes.Compare(s.key(&a)[cp:], s.key(&b)[cp:]); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.blk, b.blk), cmp.Compare(a.off, b.off))
	})
}

// setK sets the k of the ents of part i past the chunk's common prefix,
// which all parts must share for the merge to compare their k.
func (s *Sorter) setK(i int) {
	for j := range s.parts[i] {
		e := &s.parts[i][j]
		var buf [8]byte
		copy(buf[:], s.key(e)[s.cp:])
		e.k = binary.BigEndian.Uint64(buf[:])
	}
	for len(s.cps) <= i {
		s.cps = append(s.cps, 0)
	}
	s.cps[i] = s.cp
}

// spill writes the chunk as a run of records in key order: the length of
// the key, the key and the payload.
func (s *Sorter) spill() error {
	run, err := binrec.Create(s.dir, "run-*")
	if err != nil {
		return fmt.Errorf("spilling sorted records: %w", err)
	}
	s.runs = append(s.runs, run)
	it, _ := s.merge(nil) // no error without runs
	var buf []byte
	for it.Next() {
		buf = append(binary.AppendUvarint(buf[:0], uint64(len(it.Key()))), it.Key()...)
		buf = append(buf, it.Value()...)
		run.Append(buf) // its error sticks: Flush returns it
	}
	if err := run.Flush(); err != nil {
		return fmt.Errorf("spilling sorted records: %w", err)
	}
	s.free, s.spare = append(s.free, s.blocks...), append(s.spare, s.parts...)
	clear(s.blocks) // for the collector: they are held by free and spare, if at all
	clear(s.parts)
	s.blocks, s.parts, s.cps, s.used = s.blocks[:0], s.parts[:0], s.cps[:0], 0
	return nil
}

// Iter starts a pass over all records in key order. Records may not be
// added while an Iter is in use.
func (s *Sorter) Iter() (*Iter, error) {
	if s.err != nil {
		return nil, s.err
	}
	if len(s.runs) > 0 && s.used > 0 {
		// Spilled too, the chunk frees its memory for the passes.
		if s.err = s.spill(); s.err != nil {
			return nil, s.err
		}
		s.free, s.spare = nil, nil
	}
	var srcs []*source
	for _, run := range s.runs {
		r, err := run.Reader()
		if err != nil {
			return nil, fmt.Errorf("reading sorted records: %w", err)
		}
		srcs = append(srcs, &source{r: r})
	}
	return s.merge(srcs)
}

// merge returns an Iter over srcs and, after them, the parts of the chunk
// in memory: of equal keys, the record of the source first in that order
// comes first.
func (s *Sorter) merge(srcs []*source) (*Iter, error) {
	for i, p := range s.parts {
		switch {
		case i == len(s.parts)-1 && !s.sorted:
			s.sort(i)
			s.sorted = true
		case s.cps[i] != s.cp: // sorted before the chunk's prefix shrank
			s.setK(i)
		}
		srcs = append(srcs, &source{ents: p})
	}
	it := &Iter{s: s}
	for i, src := range srcs {
		src.idx = i
		if err := it.advance(src); err != nil {
			return nil, err
		}
		if src.key != nil {
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
	*s = Sorter{err: errors.New("extsort: sorter closed")}
	return errors.Join(errs...)
}

// A source is one sorted sequence being merged: a run, or a part of the
// chunk in memory (r nil).
type source struct {
	r        *binrec.FileReader
	ents     []ent
	k        uint64 // of the current record, of a part
	idx      int    // order of the source: breaks ties between equal keys
	key, val []byte // the current record; key nil once done
}

// An Iter is one pass over the records of a Sorter in key order.
type Iter struct {
	s    *Sorter
	heap []*source
	cur  *source
	err  error
}

func (it *Iter) advance(src *source) error {
	src.key, src.val = nil, nil
	if src.r == nil {
		if len(src.ents) > 0 {
			e := &src.ents[0]
			src.ents, src.k = src.ents[1:], e.k
			rec := it.s.blocks[e.blk][e.off : e.off+e.klen+e.plen]
			src.key, src.val = rec[:e.klen:e.klen], rec[e.klen:]
		}
		return nil
	}
	if !src.r.Next() {
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

func less(a, b *source) bool {
	if a.r == nil && b.r == nil && a.k != b.k { // parts of the chunk: k past the same prefix
		return a.k < b.k
	}
	if c := bytes.Compare(a.key, b.key); c != 0 {
		return c < 0
	}
	return a.idx < b.idx
}

func (it *Iter) down(i int) {
	h := it.heap
	for {
		m := 2*i + 1
		if m >= len(h) {
			return
		}
		if r := m + 1; r < len(h) && less(h[r], h[m]) {
			m = r
		}
		if !less(h[m], h[i]) {
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
		if it.err = it.advance(it.cur); it.err != nil {
			return false
		}
		if it.cur.key == nil {
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
