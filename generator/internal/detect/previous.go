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

// Previous is the previous build's Resource List, read while the tree is
// scanned and spooled in the order of the paths, the order the join with
// the scan needs (previous.Site.ResourceIter: a list published in another
// order goes through an external sort, also when only a later part shows
// it). Parsing the XML of a large list costs as much CPU as the scan; done
// beside it, on a second core, the join then reads binary records from
// the spool. An error fails the build at once, while the scan runs.
type Previous struct {
	done chan struct{} // closed when the spool is complete, or failed
	stop context.CancelFunc
	file *binrec.File
	n    int // the previous build's resources (for the mass-delete guard)
	err  error
}

// sortMemory is the memory of the sort of a previous Resource List that
// was not published in the order of its paths.
const sortMemory = 32 << 20

// SpoolPrevious starts spooling the entries of site into area, each with
// its key (the path of its loc under base, the build's base URL), and
// calls fail with its error if it fails. area closes the spool when it is
// removed, and stops it first if it is not complete.
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
			// A later part of the previous Resource List was out of
			// order: once more, through a sort.
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
// (base.Resolve, the one mapping of paths to URLs, which base.RelPath
// undoes): the same as it was for rsgen's own, and rsgen's form for one
// another tool wrote otherwise ("a+b.txt" for "a%2Bb.txt"), in which a
// deletion is then published.
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

// Len is the number of the previous build's entries, once they are all
// spooled (0 before, and for a nil Previous).
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

// Close removes the spool, once it is done with; a build that ends
// before it is complete (an error of the scan) stops it first.
func (p *Previous) Close() {
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

// readEntry reads an entry of spoolPrevious's record.
func readEntry(d *binrec.Reader, e *prevEntry) error {
	e.Foreign = d.Byte() == 1
	e.Key = ""
	if !e.Foreign {
		e.Key = d.String()
	}
	return previous.ReadResource(d, &e.Resource)
}
