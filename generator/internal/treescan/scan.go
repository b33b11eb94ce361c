package treescan

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/mediatype"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/text/display"
)

// A Scan is one scan of a source: what it reads, how, and where it tells
// what it found.
type Scan struct {
	Source Source
	Jobs   int         // hashing workers; 0 or less: hashing.DefaultWorkers
	Hashes hashing.Set // the digests of each file
	Base   uri.Base    // the URL of the source
	Cache  *Cache      // the hash cache, or nil

	Spill    *spill.Area      // where the resources are spooled
	Problems *report.Problems // the files that cannot be published
	Stats    *report.Stats    // Found, Hashed, Cached, Bytes, Read, WalkDone

	Window int // files in flight between the listing and the spool; 0: DefaultWindow

	// ReadFailed, if set, makes the error of a file that could not be
	// read the one that ends the scan (an archive's: it is damaged);
	// else the file is a problem.
	ReadFailed func(path string, err error) error
}

// DefaultWindow is the window of files in flight: enough that the workers
// never wait for the file at the head of the window to be read while
// others are ready.
const DefaultWindow = 4096

// knownBatch is how many files of known digests (a tar's members) the
// listing hands to the collector at once: one by one, the hand-offs of
// a 1,000,000-member tar cost more system time than its reads.
const knownBatch = 256

// Run lists the source, hashes every file it publishes with a pool of
// workers and returns the resources in the order of their paths, with
// what could not be read; a file that cannot be published is a problem,
// not an error. Each file takes a slot of a window of files in flight as
// it is listed and gives it back as it leaves, after all those before it:
// memory is that of a window, whatever the size of the source. With a
// hash cache, checking workers stat each file (Source.Stat) and decide
// whether it must be read at all (Cache.decide).
func (sc *Scan) Run(ctx context.Context) (*spill.ResourceSpool, report.Unread, error) {
	found, err := sc.Spill.Resources()
	if err != nil {
		return nil, report.Unread{}, err
	}
	workers := sc.Jobs
	if workers <= 0 {
		workers = hashing.DefaultWorkers()
	}
	window := sc.Window
	if window <= 0 {
		window = DefaultWindow
	}
	s := &run{Scan: sc, workers: workers, spool: found,
		window: make([]*Entry, window),
		slots:  semaphore.NewWeighted(int64(window)),
		batch:  make([]*Entry, 0, min(knownBatch, window)),
		jobs:   make(chan hashing.Job, workers),
		hits:   make(chan []*Entry, workers),
	}
	if sc.Cache != nil {
		s.files = make(chan *Entry, workers)
	}
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if sc.Cache != nil {
			defer close(s.files)
		} else {
			defer close(s.hits)
			defer close(s.jobs)
		}
		err := sc.Source.List(ctx, func(e *Entry) error { return s.found(ctx, e) })
		if err == nil {
			err = s.flush(ctx)
		}
		sc.Stats.WalkDone.Store(true)
		return err
	})
	if sc.Cache != nil {
		g.Go(func() error {
			defer close(s.jobs)
			defer close(s.hits)
			return s.check(ctx)
		})
	}
	results := make(chan hashing.Result, workers)
	reads, blocking := sc.Source.Reads(workers)
	pool := &hashing.Pool{Set: sc.Hashes, Workers: workers, Reads: reads, ReadsBlock: blocking,
		Read: func(n int64) { sc.Stats.Read.Add(n) }}
	g.Go(func() error {
		defer close(results)
		return pool.Run(ctx, s.jobs, results)
	})
	g.Go(func() error { return s.collect(results) })
	err = g.Wait()
	s.drain()
	if err != nil {
		found.Close()
		return nil, report.Unread{}, err
	}
	return found, s.unread, nil
}

// drain releases what the files listed but not read hold when the run
// stopped early, and ends the cursor on the old cache.
func (s *run) drain() {
	if s.files != nil {
		for e := range s.files {
			s.Source.Drop(e)
		}
	}
	for j := range s.jobs {
		s.Source.Drop(j.Tag.(*Entry))
	}
	for _, e := range s.batch {
		s.Source.Drop(e)
	}
	if s.Cache != nil {
		s.Cache.close()
	}
}

type run struct {
	*Scan
	workers int // hashing workers, and checking workers with a cache

	// The listing's: a slot of the window for each file, and the files
	// of known digests not yet handed on.
	slots *semaphore.Weighted
	seq   uint64
	batch []*Entry

	files chan *Entry      // to the checking workers (with a cache)
	jobs  chan hashing.Job // to the hashing pool
	hits  chan []*Entry    // not read: the cache knows them unchanged, or the source their digests

	// The collector's: the files done, at window[seq%len(window)], until
	// all those before them are.
	window []*Entry
	spool  *spill.ResourceSpool
	last   string // the path of the last resource out
	anyOut bool
	tokens []hashing.Token // the digests of the resource passed last
	sum    []byte          // and those of one found in the cache

	mu     sync.Mutex    // guards unread.Dirs, which the listing adds to
	unread report.Unread // Files the collector's
}

// found takes an entry the source listed into the window. An entry with
// Err is a problem.
func (s *run) found(ctx context.Context, e *Entry) error {
	if e.Err != nil || e.Unread {
		if e.Err != nil {
			s.Problems.Add(report.Problem{Path: e.Path, Dir: e.Dir, Err: e.Err})
		}
		if e.Unread {
			s.mu.Lock()
			s.unread.Dirs = append(s.unread.Dirs, e.Path)
			s.mu.Unlock()
		}
		return nil
	}
	if len(s.Base.String())+uri.EscapedPathLen(e.Path) > uri.MaxLocLength { // before any read
		s.Problems.Add(report.Problem{Path: e.Path, Err: uri.ErrLocTooLong})
		s.Source.Drop(e)
		return nil
	}
	e.seq = s.seq
	s.seq++
	s.Stats.Found.Add(1)
	if e.Sum != nil && s.Cache == nil { // to the collector as the pool would give it
		e.res = result{sum: e.Sum, stored: true}
		if s.batch = append(s.batch, e); len(s.batch) < cap(s.batch) {
			return nil
		}
		return s.flush(ctx)
	}
	err := s.flush(ctx)
	if err == nil {
		err = s.slots.Acquire(ctx, 1)
	}
	switch {
	case err != nil:
	case s.Cache != nil:
		e.cached = s.Cache.candidate(e.Path)
		err = send(ctx, s.files, e)
	default:
		err = send(ctx, s.jobs, s.job(e))
	}
	if err != nil {
		s.Source.Drop(e)
	}
	return err
}

func send[T any](ctx context.Context, c chan<- T, v T) error {
	select {
	case c <- v:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// flush hands the batch of files of known digests to the collector, with
// their slots of the window: when it is full, before a file listed after
// them takes its slot (the slots taken in the order of the listing keep
// the files in flight within a window of seq), and when the listing ends.
func (s *run) flush(ctx context.Context) error {
	if len(s.batch) == 0 {
		return nil
	}
	if err := s.slots.Acquire(ctx, int64(len(s.batch))); err != nil {
		return err
	}
	if err := send(ctx, s.hits, s.batch); err != nil {
		return err
	}
	s.batch = make([]*Entry, 0, cap(s.batch))
	return nil
}

// check runs the checking workers: each stats the files it takes (in
// parallel: each stat may wait for the disk, as a read does) and sends on
// to be read those the cache does not know unchanged.
func (s *run) check(ctx context.Context) error {
	g, ctx := errgroup.WithContext(ctx)
	for range s.workers {
		g.Go(func() error {
			for e := range s.files {
				e.keyed = s.Source.Stat(e)
				var err error
				if e.hit = s.Cache.decide(s.Hashes, e); e.hit {
					s.Source.Drop(e)
					err = send(ctx, s.hits, []*Entry{e})
				} else if err = send(ctx, s.jobs, s.job(e)); err != nil {
					s.Source.Drop(e)
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

func (s *run) job(e *Entry) hashing.Job {
	j := s.Source.Job(e)
	j.Name, j.Seq, j.Tag = e.Path, e.seq, e
	j.Sniff = mediatype.ByName(e.Path) == ""
	return j
}

// collect passes the files on in the order of the listing.
func (s *run) collect(results <-chan hashing.Result) error {
	var next uint64 // the seq at the head of the window
	size := uint64(len(s.window))
	hits, res := s.hits, results
	for hits != nil || res != nil {
		select {
		case b, ok := <-hits:
			if !ok {
				hits = nil
				continue
			}
			for _, e := range b {
				s.window[e.seq%size] = e
			}
		case r, ok := <-res:
			if !ok {
				res = nil
				continue
			}
			e := r.Tag.(*Entry)
			e.res = result{sum: r.Sum, head: r.Head, size: r.Info.Size, modified: r.Info.ModTime, err: r.Err,
				stored: r.Stored, sniffed: r.Sniff}
			s.window[e.seq%size] = e
		}
		first := next
		for e := s.window[next%size]; e != nil && e.seq == next; e = s.window[next%size] {
			s.window[next%size] = nil
			next++
			if err := s.pass(e); err != nil {
				return err
			}
		}
		if next > first {
			s.slots.Release(int64(next - first))
		}
	}
	return nil
}

// pass spools the resource of a file that leaves the scan, in order, and
// saves its entry of the hash cache; a file that could not be read is a
// problem.
func (s *run) pass(e *Entry) error {
	rel := e.Path
	// Out of order only if the tree changed under the walk (a followed
	// link that became a file): the Resource List needs that order.
	if s.anyOut && rel <= s.last {
		return fmt.Errorf("%s: found after %s while the source was walked: the tree changed during the build; publish again once it is stable", display.Name(rel), display.Name(s.last))
	}
	s.last, s.anyOut = rel, true
	s.Stats.Hashed.Add(1)
	var sum []byte
	var typ string
	length, modified := e.Key.Size, e.Modified
	if modified.IsZero() {
		modified = time.Unix(0, e.Key.Mtime)
	}
	if e.hit {
		s.Stats.Cached.Add(1)
		s.Cache.put(rel, e.cached)
		sum, _ = e.cached.Sum(s.sum[:0], s.Hashes)
		s.sum, typ = sum, e.cachedType()
	} else {
		res := &e.res
		if !res.stored {
			s.Stats.Bytes.Add(res.size)
		}
		if res.err != nil && s.ReadFailed != nil {
			return s.ReadFailed(rel, res.err)
		}
		if res.err != nil {
			s.Problems.Add(report.Problem{Path: rel, Err: display.ReadError(res.err)})
			s.unread.Files = append(s.unread.Files, rel)
			return nil
		}
		sum = res.sum
		if !res.modified.IsZero() { // a file: what the read found
			length, modified = res.size, res.modified
		}
		switch typ = mediatype.ByName(rel); {
		case typ != "":
		case res.stored:
			typ = e.Type
		default:
			typ = mediatype.Sniff(res.head)
		}
	}
	path, loc := fileStrings(s.Base, rel)
	if !e.hit && s.Cache != nil && length == e.Key.Size && modified.UnixNano() == e.Key.Mtime {
		s.Cache.read(s.Hashes, e, typ)
	}
	s.tokens = s.Hashes.Tokens(s.tokens[:0], sum) // Add encodes them before the next pass
	return s.spool.Add(&spill.Resource{
		Path:     path,
		Loc:      loc,
		Length:   length,
		Modified: modified.UTC(),
		Hash:     s.tokens,
		Type:     typ,
	})
}

// fileStrings returns the Path and Loc of the Resource of the file
// published as rel, in one allocation: the Path is the tail of the Loc
// when the path needs no percent-encoding (the common case).
func fileStrings(base uri.Base, rel string) (path, loc string) {
	bs := base.String()
	var sb strings.Builder
	sb.Grow(len(bs) + uri.EscapedPathLen(rel))
	sb.WriteString(bs)
	var buf [512]byte
	sb.Write(uri.AppendEscapedPath(buf[:0], rel))
	loc = sb.String()
	if len(loc)-len(bs) == len(rel) { // nothing was escaped
		return loc[len(bs):], loc
	}
	return rel, loc
}
