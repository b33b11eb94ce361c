package detect

import (
	"context"
	"errors"
	"fmt"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/storage/binrec"
)

// Previous is the previous build's Resource List, spooled in the order of
// the paths while the tree is scanned: parsing the XML of a large list
// costs as much CPU as the scan, so it runs beside it, on a second core.
// An error fails the build at once.
type Previous struct {
	done chan struct{} // closed when the spool is complete, or failed
	stop context.CancelFunc
	file *binrec.File
	n    int // the previous build's resources (for the mass-delete guard)
	err  error
}

// sortMemory is for a previous Resource List not in the order of its paths.
const sortMemory = 32 << 20

// SpoolPrevious starts spooling the entries of site into area, each keyed
// by the path of its loc under base, and calls fail with its error if it
// fails. Removing area stops and closes the spool.
func SpoolPrevious(ctx context.Context, site *previous.Site, base uri.Base, area *spill.Area, fail context.CancelCauseFunc) (*Previous, error) {
	spillDir, err := area.Path() // before the goroutine: the scan makes its spools there too
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(ctx)
	p := &Previous{done: make(chan struct{}), stop: stop}
	area.Track(p)
	go func() {
		defer close(p.done)
		p.file, p.n, p.err = spoolPrevious(ctx, site, base, spillDir, false)
		if errors.Is(p.err, previous.ErrUnsorted) {
			// a later part was out of order: once more, through a sort
			p.file, p.n, p.err = spoolPrevious(ctx, site, base, spillDir, true)
		}
		if p.err != nil && ctx.Err() == nil {
			if !errors.Is(p.err, spill.ErrSpool) {
				p.err = fmt.Errorf("%w: %w", docs.ErrPrevious, p.err)
			}
			fail(p.err)
		}
	}()
	return p, nil
}

// spoolPrevious reads the previous build's entries into a new spool file.
// The URL of a file under base is the one this build gives its path
// (base.Resolve): rsgen's form also for a URL another tool wrote otherwise
// ("a+b.txt" for "a%2Bb.txt"), in which a deletion is then published.
func spoolPrevious(ctx context.Context, site *previous.Site, base uri.Base, spillDir string, sort bool) (*binrec.File, int, error) {
	it, err := site.ResourceIter(ctx, previous.IterOptions{
		Key:      base.RelPath,
		SpillDir: spillDir,
		Memory:   sortMemory,
		Sort:     sort,
	})
	if err != nil {
		return nil, 0, err
	}
	defer it.Close()
	f, err := binrec.Create(spillDir, "previous-*")
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
			if u, err := base.Resolve(string(it.Key())); err == nil {
				it.Resource().Loc = u
			}
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

// Len is the number of entries once all are spooled (0 before, or if p is nil).
func (p *Previous) Len() int {
	if p == nil {
		return 0
	}
	select {
	case <-p.done:
		return p.n
	default:
		return 0
	}
}

// Close stops the spool if it is not complete, and removes it.
func (p *Previous) Close() {
	p.stop()
	<-p.done
	if p.file != nil {
		p.file.Close()
		p.file = nil
	}
}

// iter returns an iterator over the entries, once all are spooled: by
// key, then the foreign ones.
func (p *Previous) iter(ctx context.Context) (*spill.Iter[prevEntry], error) {
	select {
	case <-p.done:
		if p.err != nil {
			return nil, p.err
		}
		return spill.NewIter(p.file, readEntry, nil)
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// A prevEntry is one entry of the previous build's Resource List.
type prevEntry struct {
	Key      string // its path under the base URL; "" if Foreign
	Foreign  bool   // its loc is not under the base URL: no file of this build's
	Resource previous.Resource
}

func readEntry(d *binrec.Reader, e *prevEntry) error {
	e.Foreign = d.Byte() == 1
	e.Key = ""
	if !e.Foreign {
		e.Key = d.String()
	}
	return previous.ReadResource(d, &e.Resource)
}
