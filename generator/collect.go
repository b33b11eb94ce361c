package generator

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sync/errgroup"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/mediatype"
	"github.com/rsgen/rsgen/internal/previous"
)

// Stats counts a build's progress. Its fields are updated while the build
// runs and may be read from other goroutines at any time.
type Stats struct {
	Phase    atomic.Int32 // the step the build is at: a Phase
	Found    atomic.Int64 // files found by the walk so far
	Hashed   atomic.Int64 // files read and hashed (or failed), or found unchanged in the hash cache
	Cached   atomic.Int64 // files found unchanged in the hash cache, not read
	Bytes    atomic.Int64 // bytes read
	WalkDone atomic.Bool  // the walk has finished: Found is the total
	Packed   atomic.Int64 // files opened to be packaged into the Resource Dump
}

// Phase is a step of a build, in the order a build takes them; steps it
// has no work for are skipped.
type Phase int32

const (
	PhaseStarting  Phase = iota // checking the configuration, opening the source
	PhasePrevious               // reading the previous build (Config.Changes.Previous)
	PhaseScanning               // walking the source and hashing its files, or reading the records of an export
	PhasePackaging              // writing the packages of the Resource Dump (of a tree or an archive)
	PhaseWriting                // writing the lists and the other documents
	PhaseChecking               // validating what was written, before it is published
)

func (s *Stats) enter(p Phase) { s.Phase.Store(int32(p)) }

// problems collects per-file problems; it may be called from several goroutines.
type problems struct {
	mu       sync.Mutex
	list     []Problem
	failFast func(error) // cancels the build on the first problem, if set
}

func (p *problems) add(pr Problem) {
	p.mu.Lock()
	p.list = append(p.list, pr)
	p.mu.Unlock()
	if p.failFast != nil {
		p.failFast(pr)
	}
}

func (p *problems) sorted() []Problem {
	p.mu.Lock()
	defer p.mu.Unlock()
	slices.SortStableFunc(p.list, func(a, b Problem) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return a.Line - b.Line
	})
	return p.list
}

// scanTree walks the source, hashes every published file with a pool of
// workers and returns the resources sorted by path.
func (b *build) scanTree(ctx context.Context) ([]Resource, error) {
	cfg := b.cfg
	parent := ctx // the errgroup's is cancelled once it is done
	g, ctx := errgroup.WithContext(ctx)
	jobs := make(chan hashing.Job, 256)
	results := make(chan hashing.Result, 256)

	// With a hash cache, files go to workers that stat them and pass on
	// only those the cache does not know unchanged.
	cache := b.across.cache
	var unreadDirs, unreadFiles []string // what could not be read: see keepUnread
	var files chan scanFile
	if cache != nil {
		files = make(chan scanFile, 256)
	}
	w := &walker{
		root:    b.root,
		filter:  &cfg.Filter,
		follow:  cfg.FollowSymlinks,
		skip:    b.owned,
		problem: b.problems.add,
		unread:  func(rel string) { unreadDirs = append(unreadDirs, rel) },
		notice:  b.notice,
		emit: func(f scanFile) error {
			if cfg.listed != nil {
				cfg.listed(f.rel)
			}
			if files != nil {
				select {
				case files <- f:
					b.stats.Found.Add(1)
					return nil
				case <-ctx.Done():
					f.dir.Release()
					return ctx.Err()
				}
			}
			select {
			case jobs <- f.job():
				b.stats.Found.Add(1)
				return nil
			case <-ctx.Done():
				f.dir.Release()
				return ctx.Err()
			}
		},
	}
	g.Go(func() error {
		if files != nil {
			defer close(files)
		} else {
			defer close(jobs)
		}
		err := w.walk(ctx)
		b.stats.WalkDone.Store(true)
		return err
	})
	if cache != nil {
		g.Go(func() error {
			defer close(jobs)
			return cache.check(ctx, b, files, jobs)
		})
	}
	pool := &hashing.Pool{Set: cfg.Hashes, Workers: cfg.Jobs}
	g.Go(func() error {
		defer close(results)
		return pool.Run(ctx, jobs, results)
	})

	var out []Resource
	g.Go(func() error {
		for res := range results {
			b.stats.Hashed.Add(1)
			b.stats.Bytes.Add(res.Info.Size)
			if res.Err != nil {
				b.problems.add(Problem{Path: res.Name, Err: describeReadError(res.Err)})
				unreadFiles = append(unreadFiles, res.Name)
				if cache != nil {
					cache.failed(res.Name)
				}
				continue
			}
			path, loc, hash, err := fileStrings(cfg.BaseURL, res.Name, cfg.Hashes, res.Sum)
			if err != nil {
				b.problems.add(Problem{Path: res.Name, Err: err})
				if cache != nil {
					cache.failed(res.Name)
				}
				continue
			}
			typ := mediatype.ByName(res.Name)
			if typ == "" {
				typ = mediatype.Sniff(res.Head)
			}
			if cache != nil {
				cache.read(b, res, typ)
			}
			out = append(out, Resource{
				Path:     path,
				Loc:      loc,
				Length:   res.Info.Size,
				Modified: res.Info.ModTime.UTC(),
				Hash:     hash,
				Type:     typ,
			})
		}
		return nil
	})
	err := g.Wait()
	// What was found but not read when the scan stopped early.
	if files != nil {
		for f := range files {
			f.dir.Release()
		}
	}
	for j := range jobs {
		j.Dir.Release()
	}
	if err != nil {
		return nil, err
	}
	if cache != nil {
		out = append(cache.hits, out...) // on a warm cache nearly every file is a hit: copy the few others
		cache.finish(b)
	}
	slices.SortFunc(out, func(a, b Resource) int { return strings.Compare(a.Path, b.Path) })
	return b.keepUnread(parent, out, unreadDirs, unreadFiles)
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
func (b *build) keepUnread(ctx context.Context, out []Resource, dirs, files []string) ([]Resource, error) {
	prev := b.across.prev
	if prev == nil || len(dirs)+len(files) == 0 {
		return out, nil
	}
	kept, err := b.unreadEntries(ctx, out, dirs, files, false)
	if errors.Is(err, previous.ErrUnsorted) {
		kept, err = b.unreadEntries(ctx, out, dirs, files, true)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, fmt.Errorf("%w: %w", ErrPrevious, err)
	}
	if len(kept) == 0 {
		return out, nil
	}
	if b.cfg.Dump.Enabled {
		return nil, fmt.Errorf("%d resources published by the previous build could not be read (%s, …): the Resource Dump cannot package them, and leaving them out would announce them as deleted; publish again once they can be read",
			len(kept), printable(kept[0].Path))
	}
	b.across.unread = make(map[string]bool, len(kept))
	for i := range kept {
		b.across.unread[kept[i].Loc] = true
	}
	b.notice(fmt.Sprintf("%d resources that could not be read keep their entries of the previous build, unchanged", len(kept)))
	out = append(out, kept...)
	slices.SortFunc(out, func(a, b Resource) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// unreadEntries streams the previous build's entries (see joinPrevious)
// and returns, as resources, those of the files that could not be read or
// lie under a directory that could not be: the resources the scan found,
// out, sorted by path, are not among them.
func (b *build) unreadEntries(ctx context.Context, out []Resource, dirs, files []string, sort bool) ([]Resource, error) {
	spill, err := os.MkdirTemp(b.stage.Dir(), ".previous-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(spill) // before Publish, which would publish it
	it, err := b.across.prev.ResourceIter(ctx, previous.IterOptions{
		Key:      b.cfg.BaseURL.RelPath,
		SpillDir: spill,
		Memory:   previousSortMemory,
		Sort:     sort,
	})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	unreadFile := make(map[string]bool, len(files))
	for _, f := range files {
		unreadFile[f] = true
	}
	under := func(rel string) bool {
		return slices.ContainsFunc(dirs, func(d string) bool { return d == "" || strings.HasPrefix(rel, d+"/") })
	}
	var kept []Resource
	for it.Next() {
		if it.Foreign() {
			break // keyless entries come last: none is a file
		}
		rel := it.Key()
		if !unreadFile[rel] && !under(rel) {
			continue
		}
		if _, found := slices.BinarySearchFunc(out, rel, func(r Resource, rel string) int { return strings.Compare(r.Path, rel) }); found {
			continue
		}
		p := it.Resource()
		hash := make([]string, len(p.Hash))
		for k, t := range p.Hash {
			hash[k] = t.Alg + ":" + t.Digest
		}
		kept = append(kept, Resource{Path: rel, Loc: p.Loc, Length: p.Length, Modified: p.Lastmod, Hash: strings.Join(hash, " "), Type: p.Type})
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	return kept, nil
}

// job is the hashing job of f, which takes over f's hold of its directory.
func (f scanFile) job() hashing.Job {
	return hashing.Job{Name: f.rel, Dir: f.dir, Path: f.name, Sniff: mediatype.ByName(f.rel) == ""}
}

// describeReadError turns the error of reading one file into words a
// person can act on.
func describeReadError(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("vanished during the build (deleted or renamed after it was listed)")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("permission denied; make it readable or --exclude it")
	case errors.Is(err, hashing.ErrChanged):
		return fmt.Errorf("%w; publish again once the tree is stable", unwrapPath(err))
	case errors.Is(err, hashing.ErrNotRegular):
		return fmt.Errorf("replaced during the build: %w", unwrapPath(err))
	case errors.Is(err, syscall.ELOOP):
		// Files are opened without following a final symbolic link: one
		// that is there now was not when the walk listed a file.
		return errors.New("replaced during the build by a symbolic link, which is not followed")
	}
	return unwrapPath(err)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
