package spill

import (
	"fmt"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/storage/binrec"
)

// An Iter reads the records of a spool file one at a time: Next decodes
// the next into Cur, until it returns false; then Err says why.
type Iter[T any] struct {
	Cur   T                  // its slices are reused by Next
	r     *binrec.FileReader // nil for an empty set
	d     binrec.Reader      // of the record read; here, not on the heap for each
	read  func(*binrec.Reader, *T) error
	entry func(*T, *rsxml.Entry) // for Fill
	fail  error
}

// NewIter returns an iterator over the records of f, each decoded by read
// into Cur; entry, if not nil, makes the list entry of Cur for Fill.
func NewIter[T any](f *binrec.File, read func(*binrec.Reader, *T) error, entry func(*T, *rsxml.Entry)) (*Iter[T], error) {
	r, err := f.Reader()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSpool, err)
	}
	return &Iter[T]{r: r, read: read, entry: entry}, nil
}

func (it *Iter[T]) Next() bool {
	if it.r == nil || it.fail != nil || !it.r.Next() {
		return false
	}
	it.d = *binrec.NewReader(it.r.Record(), binrec.ErrCorrupt)
	if err := it.read(&it.d, &it.Cur); err != nil {
		it.fail = fmt.Errorf("%w: %w", ErrSpool, err)
		return false
	}
	return true
}

func (it *Iter[T]) Err() error {
	if it.fail != nil {
		return it.fail
	}
	if it.r != nil && it.r.Err() != nil {
		return fmt.Errorf("%w: %w", ErrSpool, it.r.Err())
	}
	return nil
}

// Each calls fn with each record in order, until it returns an error.
func (it *Iter[T]) Each(fn func(*T) error) error {
	for it.Next() {
		if err := fn(&it.Cur); err != nil {
			return err
		}
	}
	return it.Err()
}

// Fill fills e with the next record, as the fill function of a list.
func (it *Iter[T]) Fill(_ int, e *rsxml.Entry) {
	if !it.Next() {
		*e = rsxml.Entry{}
		return
	}
	it.entry(&it.Cur, e)
}
