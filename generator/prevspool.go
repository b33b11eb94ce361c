package generator

import (
	"context"
	"errors"
	"fmt"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/internal/binrec"
	"github.com/rsgen/rsgen/internal/previous"
	"github.com/rsgen/rsgen/internal/spool"
)

// prevEntries is the previous build's Resource List, read while the tree
// is scanned and spooled in the order of the paths, the order the join
// with the scan needs (previous.Site.ResourceIter: a list published in
// another order goes through an external sort, also when only a later
// part shows it). Parsing the XML of a large list costs as much CPU as the
// scan; done beside it, on a second core, the join then reads binary
// records from the spool. An error fails the build at once, while the scan
// runs.
type prevEntries struct {
	done chan struct{} // closed when the spool is complete, or failed
	stop context.CancelFunc
	file *spool.File
	n    int // the previous build's resources (for the mass-delete guard)
	err  error
}

// readPrevious starts spooling the entries of the previous build, and
// cancels the build with its error if it fails.
func (b *build) readPrevious(ctx context.Context, fail context.CancelCauseFunc) (*prevEntries, error) {
	spillDir, err := b.spill.Path() // before the goroutine: the scan makes its spools there too
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(ctx)
	p := &prevEntries{done: make(chan struct{}), stop: stop}
	b.spill.Track(p)
	go func() {
		defer close(p.done)
		p.file, p.n, p.err = b.spoolPrevious(ctx, spillDir, false)
		if errors.Is(p.err, previous.ErrUnsorted) {
			// A later part of the previous Resource List was out of
			// order: once more, through a sort.
			p.file, p.n, p.err = b.spoolPrevious(ctx, spillDir, true)
		}
		if p.err != nil && ctx.Err() == nil {
			if !errors.Is(p.err, spill.ErrSpool) {
				p.err = fmt.Errorf("%w: %w", ErrPrevious, p.err)
			}
			fail(p.err)
		}
	}()
	return p, nil
}

// spoolPrevious reads the previous build's entries into a new spool file.
func (b *build) spoolPrevious(ctx context.Context, spillDir string, sort bool) (*spool.File, int, error) {
	it, err := b.across.prev.ResourceIter(ctx, previous.IterOptions{
		Key:      b.cfg.BaseURL.RelPath,
		SpillDir: spillDir,
		Memory:   previousSortMemory,
		Sort:     sort,
	})
	if err != nil {
		return nil, 0, err
	}
	defer it.Close()
	f, err := spool.Create(spillDir, "previous-*")
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %w", spill.ErrSpool, err)
	}
	n := 0
	var rec []byte
	for it.Next() {
		n++
		rec = rec[:0]
		if it.Foreign() {
			rec = append(rec, 1)
		} else {
			rec = append(rec, 0)
			rec = binrec.AppendBytes(rec, it.Key())
		}
		rec = previous.AppendResource(rec, it.Resource())
		if err := f.Append(rec); err != nil {
			f.Close()
			return nil, 0, fmt.Errorf("%w: %w", spill.ErrSpool, err)
		}
	}
	if err := it.Err(); err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, n, nil
}

// wait waits for the spool to be complete and returns its error.
func (p *prevEntries) wait(ctx context.Context) error {
	select {
	case <-p.done:
		return p.err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Close removes the spool, once it is done with; a build that ends
// before it is complete (an error of the scan) stops it first.
func (p *prevEntries) Close() {
	p.stop()
	<-p.done
	if p.file != nil {
		p.file.Close()
		p.file = nil
	}
}

// iter returns an iterator over the entries, once they are all spooled:
// in the order of their keys (paths under the base URL), then those with
// no key (foreign).
func (p *prevEntries) iter(ctx context.Context) (*prevIter, error) {
	if err := p.wait(ctx); err != nil {
		return nil, err
	}
	r, err := p.file.Reader()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", spill.ErrSpool, err)
	}
	return &prevIter{r: r}, nil
}

// A prevIter reads the entries of a prevEntries.
type prevIter struct {
	r       *spool.Reader
	key     string
	foreign bool
	res     previous.Resource
	fail    error
}

func (it *prevIter) next() bool {
	if it.fail != nil || !it.r.Next() {
		return false
	}
	d := binrec.NewReader(it.r.Record(), spool.ErrCorrupt)
	it.foreign = d.Byte() == 1
	it.key = ""
	if !it.foreign {
		it.key = d.String()
	}
	if err := previous.ReadResource(d, &it.res); err != nil {
		it.fail = fmt.Errorf("%w: %w", spill.ErrSpool, err)
		return false
	}
	return true
}

func (it *prevIter) err() error {
	if it.fail != nil {
		return it.fail
	}
	if err := it.r.Err(); err != nil {
		return fmt.Errorf("%w: %w", spill.ErrSpool, err)
	}
	return nil
}
