package treescan

import (
	"context"
	"fmt"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/display"
	"github.com/rsgen/rsgen/internal/hashcache"
	"github.com/rsgen/rsgen/internal/mediatype"
	"github.com/rsgen/rsgen/internal/tree"
	"github.com/rsgen/rsgen/internal/uri"
)

// A Scan is one scan of a tree: what it reads, how, and where it tells
// what it found.
type Scan struct {
	Root   string                 // the tree, absolute with links resolved
	Filter *tree.Filter           // what is published
	Follow bool                   // follow symbolic links to directories and files
	Skip   func(real string) bool // paths never walked, once links are resolved (rsgen's own); nil: none
	Jobs   int                    // hashing workers; 0 or less: hashing.DefaultWorkers
	Hashes hashing.Set            // the digests of each file
	Base   uri.Base               // the URL of the tree
	Cache  *Cache                 // the hash cache, or nil

	Spill    *spill.Area      // where the resources are spooled
	Problems *report.Problems // the files that cannot be published
	Stats    *report.Stats    // Found, Hashed, Cached, Bytes, Read, WalkDone
	Notice   func(string)     // tells the user what they should know; never nil

	// Window is how many files may be in flight between the walk and the
	// spool; 0 means DefaultWindow.
	Window int
	// BigDir is the most entries of a directory sorted in memory
	// (tree.Walker.BigDir); 0 means tree.DefaultBigDir.
	BigDir int
	// Listed, if set, is called with each file the walk will publish,
	// before it is read; ReadDir, if set, with each directory the walk
	// lists, its error replacing the listing. Both are seams for tests.
	Listed  func(rel string)
	ReadDir func(rel string) error
}

// DefaultWindow is the window of files in flight: enough that the workers
// never wait for the file at the head of the window to be read while
// others are ready.
const DefaultWindow = 4096

// DiskReads is the fewest reads of files a scan keeps in flight, however
// few workers hash (hashing.Pool.Reads): enough to keep a cold disk busy.
// On the 2-core reference machine, a cold first build of 50,000 small
// files took a median 2.4 s with 16, 2.65 s with 8 (bench/cold.sh,
// docs/PERFORMANCE.md, "Reads in flight").
const DiskReads = 16

// Run walks the tree, hashes every published file with a pool of workers
// and returns the resources in the order of their paths, with what could
// not be read. A file that cannot be published is a problem
// (Scan.Problems), not an error.
//
// The walk gives the files in that order (tree.Walker), and they leave
// the scan in it: each takes a slot of a window of files in flight as the
// walk finds it, and gives it back when it leaves, after all the files
// before it. A file that takes long to read holds back at most a window
// of others; memory is that of a window, whatever the size of the tree.
// With a hash cache, the walk reads the cache as a cursor in the same
// order, and checking workers stat each file and decide whether it must
// be read at all (Cache.decide).
func (sc *Scan) Run(ctx context.Context) (*spill.ResourceSpool, report.Unread, error) {
	spillDir, err := sc.Spill.Path()
	if err != nil {
		return nil, report.Unread{}, err
	}
	found, err := sc.Spill.Resources()
	if err != nil {
		return nil, report.Unread{}, err
	}
	s := sc.newRun(found)
	g, ctx := errgroup.WithContext(ctx)
	w := s.walker(ctx, spillDir)
	stopCount := sc.count(ctx, w)
	defer stopCount()
	g.Go(func() error {
		if sc.Cache != nil {
			defer close(s.files)
		} else {
			defer close(s.jobs)
		}
		err := w.Walk(ctx)
		sc.Stats.WalkDone.Store(true)
		return err
	})
	if sc.Cache != nil {
		g.Go(func() error {
			defer close(s.jobs)
			defer close(s.hits)
			return s.check(ctx)
		})
	} else {
		close(s.hits)
	}
	results := make(chan hashing.Result, s.workers)
	pool := &hashing.Pool{Set: sc.Hashes, Workers: s.workers, Reads: max(s.workers, DiskReads), ReadsBlock: true,
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

// newRun returns the state of a Run that spools into found.
func (sc *Scan) newRun(found *spill.ResourceSpool) *run {
	workers := sc.Jobs
	if workers <= 0 {
		workers = hashing.DefaultWorkers()
	}
	window := sc.Window
	if window <= 0 {
		window = DefaultWindow
	}
	s := &run{
		Scan:    sc,
		workers: workers,
		spool:   found,
		window:  make([]*item, window),
		slots:   make(chan struct{}, window),
		jobs:    make(chan hashing.Job, workers),
		hits:    make(chan *item, workers),
	}
	if sc.Cache != nil {
		s.files = make(chan *item, workers)
	}
	return s
}

// walker returns the walk of the tree, which gives each file it finds to
// the run (found).
func (s *run) walker(ctx context.Context, spillDir string) *tree.Walker {
	skip := s.Skip
	if skip == nil {
		skip = func(string) bool { return false }
	}
	return &tree.Walker{
		Root:     s.Root,
		Filter:   s.Filter,
		Follow:   s.Follow,
		Skip:     skip,
		SpillDir: spillDir,
		BigDir:   s.BigDir,
		Problem: func(rel string, dir bool, err error) {
			s.Problems.Add(report.Problem{Path: rel, Dir: dir, Err: err})
		},
		Unread:      func(rel string) { s.unread.Dirs = append(s.unread.Dirs, rel) },
		Notice:      s.Notice,
		Emit:        func(f tree.File) error { return s.found(ctx, f) },
		ReadDirHook: s.ReadDir,
	}
}

// drain releases the directories of the files found but not read when
// the run stopped early, and ends the cursor on the old cache.
func (s *run) drain() {
	if s.files != nil {
		for it := range s.files {
			it.file.Dir.Release()
		}
	}
	for j := range s.jobs {
		j.Dir.Release()
	}
	if s.Cache != nil {
		s.Cache.close()
	}
}

// run is the state of one Run.
type run struct {
	*Scan
	workers int // hashing workers, and checking workers with a cache

	// The window: the walk takes a slot for each file it finds, and the
	// collector gives it back when the file leaves the scan, in order.
	slots chan struct{}
	seq   uint64 // files found (the walk's)

	// The files that are done, at window[seq%len(window)], until all those
	// before them are (the collector's).
	window []*item

	tokens []hashing.Token      // the digests of the resource passed last (pass's)
	files  chan *item           // to the checking workers (with a cache)
	jobs   chan hashing.Job     // to the hashing pool
	hits   chan *item           // files the cache knows unchanged
	spool  *spill.ResourceSpool // the resources, in order (the collector's)
	last   string               // the path of the last resource out
	anyOut bool

	unread report.Unread // Dirs the walk's, Files the collector's
}

// An item is a file in flight in a scan.
type item struct {
	file    tree.File
	seq     uint64
	cached  *hashcache.Entry // the cache's entry of the file, while it may be of use
	stat    hashcache.Stat   // the file's, before it was read (with a cache)
	statted bool
	hit     bool           // found unchanged in the cache: not read
	res     hashing.Result // the pool's result, if it was read
}

// found takes a file the walk found into the window: it waits for a slot.
func (s *run) found(ctx context.Context, f tree.File) error {
	if s.Listed != nil {
		s.Listed(f.Rel)
	}
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		f.Dir.Release()
		return ctx.Err()
	}
	it := &item{file: f, seq: s.seq}
	s.seq++
	s.Stats.Found.Add(1)
	if s.Cache != nil {
		it.cached = s.Cache.candidate(f.Rel)
		select {
		case s.files <- it:
			return nil
		case <-ctx.Done():
			f.Dir.Release()
			return ctx.Err()
		}
	}
	select {
	case s.jobs <- it.job():
		return nil
	case <-ctx.Done():
		f.Dir.Release()
		return ctx.Err()
	}
}

// check runs the checking workers: each stats the files it takes and
// sends on to be read those the cache does not know unchanged. Statting
// in parallel matters when the inodes are not in memory: each stat may
// wait for the disk, as each read does.
func (s *run) check(ctx context.Context) error {
	g, ctx := errgroup.WithContext(ctx)
	for range s.workers {
		g.Go(func() error {
			for it := range s.files {
				if s.Cache.decide(s.Hashes, it) {
					it.hit = true
					it.file.Dir.Release()
					select {
					case s.hits <- it:
						continue
					case <-ctx.Done():
						return ctx.Err()
					}
				}
				select {
				case s.jobs <- it.job():
				case <-ctx.Done():
					it.file.Dir.Release()
					return ctx.Err()
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// job is the hashing job of the file of it, which takes over its hold of
// its directory.
func (it *item) job() hashing.Job {
	f := it.file
	return hashing.Job{Name: f.Rel, Dir: f.Dir, Path: f.Name, Sniff: mediatype.ByName(f.Rel) == "", Seq: it.seq, Tag: it}
}

// collect takes the files as they are read or found in the cache, and
// passes them on in the order of the walk.
func (s *run) collect(results <-chan hashing.Result) error {
	var next uint64 // the seq at the head of the window
	hits, res := s.hits, results
	for hits != nil || res != nil {
		var it *item
		select {
		case h, ok := <-hits:
			if !ok {
				hits = nil
				continue
			}
			it = h
		case r, ok := <-res:
			if !ok {
				res = nil
				continue
			}
			if it, _ = r.Tag.(*item); it == nil {
				it = &item{file: tree.File{Rel: r.Name}, seq: r.Seq}
			}
			r.Tag = nil
			it.res = r
		}
		s.window[it.seq%uint64(len(s.window))] = it
		for {
			it := s.window[next%uint64(len(s.window))]
			if it == nil || it.seq != next {
				break
			}
			s.window[next%uint64(len(s.window))] = nil
			next++
			if err := s.pass(it); err != nil {
				return err
			}
			<-s.slots
		}
	}
	return nil
}

// pass makes the resource of a file that leaves the scan, in order, and
// its entry of the hash cache; a file that could not be read is a
// problem.
func (s *run) pass(it *item) error {
	rel := it.file.Rel
	// The walk's order is that of the paths, unless the tree changed
	// under it (a followed link that became a file): the Resource List
	// and the joins that follow need that order.
	if s.anyOut && rel <= s.last {
		return fmt.Errorf("%s: found after %s while the source was walked: the tree changed during the build; publish again once it is stable", display.Name(rel), display.Name(s.last))
	}
	s.last, s.anyOut = rel, true
	s.Stats.Hashed.Add(1)
	if it.hit {
		s.Stats.Cached.Add(1)
		s.Cache.hit(it)
		loc, err := s.Base.Resolve(rel)
		if err != nil {
			s.Problems.Add(report.Problem{Path: rel, Err: err})
			return nil
		}
		sum, _ := it.cached.Sum(nil, s.Hashes)
		return s.spool.Add(&spill.Resource{
			Path:     rel,
			Loc:      loc,
			Length:   it.stat.Size,
			Modified: time.Unix(0, it.stat.Mtime).UTC(),
			Hash:     s.Hashes.Tokens(s.tokens[:0], sum), // Add encodes them before the next pass
			Type:     it.cachedType(),
		})
	}
	res := &it.res
	s.Stats.Bytes.Add(res.Info.Size)
	if res.Err != nil {
		s.Problems.Add(report.Problem{Path: rel, Err: display.ReadError(res.Err)})
		s.unread.Files = append(s.unread.Files, rel)
		return nil
	}
	path, loc, err := fileStrings(s.Base, rel)
	if err != nil {
		s.Problems.Add(report.Problem{Path: rel, Err: err})
		return nil
	}
	typ := mediatype.ByName(rel)
	if typ == "" {
		typ = mediatype.Sniff(res.Head)
	}
	if s.Cache != nil {
		s.Cache.read(s.Hashes, it, res, typ)
	}
	return s.spool.Add(&spill.Resource{
		Path:     path,
		Loc:      loc,
		Length:   res.Info.Size,
		Modified: res.Info.ModTime.UTC(),
		Hash:     s.Hashes.Tokens(s.tokens[:0], res.Sum),
		Type:     typ,
	})
}

// fileStrings returns the Path and Loc of the Resource of the file
// published as rel, carved out of one allocation: the Path is the tail of
// the Loc when the path needs no percent-encoding (the common case).
// Strings are immutable, so sharing their bytes changes nothing for their
// users; it saves one of the two allocations per file.
func fileStrings(base uri.Base, rel string) (path, loc string, err error) {
	bs := base.String()
	var sb strings.Builder
	sb.Grow(len(bs) + uri.EscapedPathLen(rel)) // the exact size: one allocation
	sb.WriteString(bs)
	var buf [512]byte
	sb.Write(uri.AppendEscapedPath(buf[:0], rel)) // without allocating for paths of common length
	n := sb.Len()
	if n > uri.MaxLocLength {
		return "", "", uri.ErrLocTooLong
	}
	loc = sb.String()
	path = rel
	if n-len(bs) == len(rel) { // nothing was escaped: the tail of loc is rel
		path = loc[len(bs):]
	}
	return path, loc, nil
}
