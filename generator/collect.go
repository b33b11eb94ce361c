package generator

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rsgen/rsgen/generator/internal/report"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/display"
	"github.com/rsgen/rsgen/internal/hashcache"
	"github.com/rsgen/rsgen/internal/mediatype"
	"github.com/rsgen/rsgen/internal/tree"
)

// Stats counts a build's progress (package report). Its fields are
// updated while the build runs and may be read from other goroutines at
// any time.
type Stats = report.Stats

// Phase is a step of a build, in the order a build takes them; steps it
// has no work for are skipped.
type Phase = report.Phase

// The steps of a build.
const (
	PhaseStarting  = report.PhaseStarting  // checking the configuration, opening the source
	PhasePrevious  = report.PhasePrevious  // reading the previous build (Config.Changes.Previous)
	PhaseScanning  = report.PhaseScanning  // walking the source and hashing its files, or reading the records of an export
	PhasePackaging = report.PhasePackaging // writing the packages of the Resource Dump (of a tree or an archive)
	PhaseWriting   = report.PhaseWriting   // writing the lists and the other documents
	PhaseChecking  = report.PhaseChecking  // validating what was written, before it is published
)

// scanTree walks the source, hashes every published file with a pool of
// workers and returns the resources in the order of their paths.
//
// The walk gives the files in that order (tree.Walker), and they leave
// the scan in it: each takes a slot of a window of scanWindow files in
// flight as the walk finds it, and gives it back when it leaves, after
// all the files before it. A file that takes long to read holds back at
// most a window of others; memory is that of a window, whatever the size
// of the tree. With a hash cache, the walk reads the cache as a cursor in
// the same order, and checking workers stat each file and decide whether
// it must be read at all (scanCache.decide).
func (b *build) scanTree(ctx context.Context) (*spill.ResourceSpool, error) {
	cfg := b.cfg
	found, err := b.spill.Resources()
	if err != nil {
		return nil, err
	}
	parent := ctx // the errgroup's is cancelled once it is done
	g, ctx := errgroup.WithContext(ctx)
	workers := cfg.Jobs
	if workers <= 0 {
		workers = hashing.DefaultWorkers()
	}
	s := &treeScan{
		b:      b,
		cache:  b.across.cache,
		spool:  found,
		window: make([]*scanItem, scanWindow),
		slots:  make(chan struct{}, scanWindow),
		jobs:   make(chan hashing.Job, workers),
		hits:   make(chan *scanItem, workers),
	}
	if s.cache != nil {
		s.files = make(chan *scanItem, workers)
	}
	spill, err := b.spill.Path()
	if err != nil {
		return nil, err
	}
	w := &tree.Walker{
		Root:     b.root,
		Filter:   &cfg.Filter,
		Follow:   cfg.FollowSymlinks,
		Skip:     b.owned,
		SpillDir: spill,
		Problem: func(rel string, dir bool, err error) {
			b.problems.Add(Problem{Path: rel, Dir: dir, Err: err})
		},
		Unread:      func(rel string) { s.unreadDirs = append(s.unreadDirs, rel) },
		Notice:      b.notice,
		Emit:        func(f tree.File) error { return s.found(ctx, f) },
		ReadDirHook: testHookReadDir,
	}
	g.Go(func() error {
		if s.cache != nil {
			defer close(s.files)
		} else {
			defer close(s.jobs)
		}
		err := w.Walk(ctx)
		b.stats.WalkDone.Store(true)
		return err
	})
	if s.cache != nil {
		g.Go(func() error {
			defer close(s.jobs)
			defer close(s.hits)
			return s.check(ctx, workers)
		})
	} else {
		close(s.hits)
	}
	results := make(chan hashing.Result, workers)
	pool := &hashing.Pool{Set: cfg.Hashes, Workers: workers}
	g.Go(func() error {
		defer close(results)
		return pool.Run(ctx, s.jobs, results)
	})
	g.Go(func() error { return s.collect(results) })
	err = g.Wait()
	// What was found but not read when the scan stopped early.
	if s.files != nil {
		for it := range s.files {
			it.file.Dir.Release()
		}
	}
	for j := range s.jobs {
		j.Dir.Release()
	}
	if s.cache != nil {
		s.cache.close(b)
	}
	if err != nil {
		found.Close()
		return nil, err
	}
	return b.keepUnread(parent, found, s.unreadDirs, s.unreadFiles)
}

// testHookReadDir, if set, is called with each directory the walk lists;
// its error replaces the listing, as if the directory could not be read.
var testHookReadDir func(rel string) error

// scanWindow is how many files may be in flight in a scan, between the
// walk and the collector: enough that the workers never wait for the
// file at the head of the window to be read while others are ready.
var scanWindow = 4096 // a variable for the tests

// treeScan is the state of scanTree.
type treeScan struct {
	b     *build
	cache *scanCache // nil without a hash cache

	// The window: the walk takes a slot for each file it finds, and the
	// collector gives it back when the file leaves the scan, in order.
	slots chan struct{}
	seq   uint64 // files found (the walk's)

	// The files that are done, at window[seq%len(window)], until all those
	// before them are (the collector's).
	window []*scanItem

	files  chan *scanItem       // to the checking workers (with a cache)
	jobs   chan hashing.Job     // to the hashing pool
	hits   chan *scanItem       // files the cache knows unchanged
	spool  *spill.ResourceSpool // the resources, in order (the collector's)
	last   string               // the path of the last resource out
	anyOut bool

	unreadDirs  []string // the walk's
	unreadFiles []string // the collector's
}

// A scanItem is a file in flight in a scan.
type scanItem struct {
	file    tree.File
	seq     uint64
	cached  *hashcache.Entry // the cache's entry of the file, while it may be of use
	stat    hashcache.Stat   // the file's, before it was read (with a cache)
	statted bool
	hit     bool           // found unchanged in the cache: not read
	res     hashing.Result // the pool's result, if it was read
}

// found takes a file the walk found into the window: it waits for a slot.
func (s *treeScan) found(ctx context.Context, f tree.File) error {
	b := s.b
	if b.cfg.listed != nil {
		b.cfg.listed(f.Rel)
	}
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		f.Dir.Release()
		return ctx.Err()
	}
	it := &scanItem{file: f, seq: s.seq}
	s.seq++
	b.stats.Found.Add(1)
	if s.cache != nil {
		it.cached = s.cache.candidate(f.Rel)
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
func (s *treeScan) check(ctx context.Context, workers int) error {
	g, ctx := errgroup.WithContext(ctx)
	set := s.b.cfg.Hashes
	for range workers {
		g.Go(func() error {
			for it := range s.files {
				if s.cache.decide(set, it) {
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
func (it *scanItem) job() hashing.Job {
	j := fileJob(it.file)
	j.Seq, j.Tag = it.seq, it
	return j
}

// collect takes the files as they are read or found in the cache, and
// passes them on in the order of the walk.
func (s *treeScan) collect(results <-chan hashing.Result) error {
	var next uint64 // the seq at the head of the window
	hits, res := s.hits, results
	for hits != nil || res != nil {
		var it *scanItem
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
			if it, _ = r.Tag.(*scanItem); it == nil {
				it = &scanItem{file: tree.File{Rel: r.Name}, seq: r.Seq}
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

// keepUnread adds to the resources found by the scan the previous build's
// entries of what could not be read this time: the files under a directory
// that could not be read (dirs, published paths; "" for the root) and the
// files that could not be read or hashed. The scan did not find them, but
// they are not gone: each is kept as it was published, unchanged, rather
// than announced as deleted, which would make Destinations delete their
// copies. The problems are reported already, so the build exits with the
// partial status. A Resource Dump must package every resource of the
// Resource List, and these cannot be read: with one, such a build fails.
func (b *build) keepUnread(ctx context.Context, found *spill.ResourceSpool, dirs, files []string) (*spill.ResourceSpool, error) {
	prev := b.across.prev
	if prev == nil || len(dirs)+len(files) == 0 {
		return found, nil
	}
	out, kept, err := b.mergeUnread(ctx, found, dirs, files)
	if err != nil {
		found.Close()
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	if kept.n == 0 {
		out.Close()
		return found, nil
	}
	found.Close()
	if b.cfg.Dump.Enabled {
		out.Close()
		return nil, fmt.Errorf("%d resources published by the previous build could not be read (%s, …): the Resource Dump cannot package them, and leaving them out would announce them as deleted; publish again once they can be read",
			kept.n, printable(kept.first))
	}
	b.notice(fmt.Sprintf("%d resources that could not be read keep their entries of the previous build, unchanged", kept.n))
	return out, nil
}

// keptCount counts the resources keepUnread kept, and names the first.
type keptCount struct {
	n     int
	first string
}

// mergeUnread streams the previous build's entries (see joinPrevious)
// beside the resources the scan found, and spools them all with the
// previous entries of the files that could not be read or lie under a
// directory that could not be, which the scan did not find.
func (b *build) mergeUnread(ctx context.Context, found *spill.ResourceSpool, dirs, files []string) (out *spill.ResourceSpool, kept keptCount, err error) {
	it, err := b.across.prevEntries.iter(ctx)
	if err != nil {
		return nil, kept, err
	}
	scan, err := found.Iter()
	if err != nil {
		return nil, kept, err
	}
	if out, err = b.spill.Resources(); err != nil {
		return nil, kept, err
	}
	defer func() {
		if err != nil {
			out.Close()
		}
	}()
	unreadFile := make(map[string]bool, len(files))
	for _, f := range files {
		unreadFile[f] = true
	}
	under := func(rel string) bool {
		return slices.ContainsFunc(dirs, func(d string) bool { return d == "" || strings.HasPrefix(rel, d+"/") })
	}
	more := scan.Next()
	// pass spools the resources the scan found before rel, and reports
	// whether it found rel.
	pass := func(rel string, all bool) (bool, error) {
		for more && (all || scan.Cur.Path <= rel) {
			if !all && scan.Cur.Path == rel {
				return true, nil
			}
			if err := out.Add(&scan.Cur); err != nil {
				return false, err
			}
			more = scan.Next()
		}
		return false, nil
	}
	for it.next() {
		if it.foreign {
			break // keyless entries come last: none is a file
		}
		rel := it.key
		if !unreadFile[rel] && !under(rel) {
			continue
		}
		if isFound, err := pass(rel, false); err != nil || isFound {
			if err != nil {
				return nil, kept, err
			}
			continue
		}
		p := &it.res
		hash := make([]string, len(p.Hash))
		for k, t := range p.Hash {
			hash[k] = t.Alg + ":" + t.Digest
		}
		r := Resource{Path: rel, Loc: p.Loc, Length: p.Length, Modified: p.Lastmod, Hash: strings.Join(hash, " "), Type: p.Type, Kept: true}
		if err := out.Add(&r); err != nil {
			return nil, kept, err
		}
		if kept.n++; kept.n == 1 {
			kept.first = rel
		}
	}
	if err := it.err(); err != nil {
		return nil, kept, err
	}
	if _, err := pass("", true); err != nil {
		return nil, kept, err
	}
	if err := scan.Err(); err != nil {
		return nil, kept, err
	}
	return out, kept, nil
}

// fileJob is the hashing job of f, which takes over f's hold of its
// directory.
func fileJob(f tree.File) hashing.Job {
	return hashing.Job{Name: f.Rel, Dir: f.Dir, Path: f.Name, Sniff: mediatype.ByName(f.Rel) == ""}
}

// describeReadError turns the error of reading one file into words a
// person can act on (display.ReadError).
func describeReadError(err error) error { return display.ReadError(err) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// pass makes the resource of a file that leaves the scan, in order, and
// its entry of the hash cache; a file that could not be read is a
// problem.
func (s *treeScan) pass(it *scanItem) error {
	b := s.b
	rel := it.file.Rel
	// The walk's order is that of the paths, unless the tree changed
	// under it (a followed link that became a file): the Resource List
	// and the joins that follow need that order.
	if s.anyOut && rel <= s.last {
		return fmt.Errorf("%s: found after %s while the source was walked: the tree changed during the build; publish again once it is stable", printable(rel), printable(s.last))
	}
	s.last, s.anyOut = rel, true
	b.stats.Hashed.Add(1)
	if it.hit {
		b.stats.Cached.Add(1)
		s.cache.hit(it)
		loc, err := b.cfg.BaseURL.Resolve(rel)
		if err != nil {
			b.problems.Add(Problem{Path: rel, Err: err})
			return nil
		}
		sum, _ := it.cached.Sum(nil, b.cfg.Hashes)
		return s.spool.Add(&Resource{
			Path:     rel,
			Loc:      loc,
			Length:   it.stat.Size,
			Modified: time.Unix(0, it.stat.Mtime).UTC(),
			Hash:     b.cfg.Hashes.Format(sum),
			Type:     it.cachedType(),
		})
	}
	res := &it.res
	b.stats.Bytes.Add(res.Info.Size)
	if res.Err != nil {
		b.problems.Add(Problem{Path: rel, Err: describeReadError(res.Err)})
		s.unreadFiles = append(s.unreadFiles, rel)
		return nil
	}
	path, loc, hash, err := fileStrings(b.cfg.BaseURL, rel, b.cfg.Hashes, res.Sum)
	if err != nil {
		b.problems.Add(Problem{Path: rel, Err: err})
		return nil
	}
	typ := mediatype.ByName(rel)
	if typ == "" {
		typ = mediatype.Sniff(res.Head)
	}
	if s.cache != nil {
		s.cache.read(b.cfg.Hashes, it, res, typ)
	}
	return s.spool.Add(&Resource{
		Path:     path,
		Loc:      loc,
		Length:   res.Info.Size,
		Modified: res.Info.ModTime.UTC(),
		Hash:     hash,
		Type:     typ,
	})
}
