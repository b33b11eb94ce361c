package generator

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/hashcache"
	"github.com/rsgen/rsgen/internal/mediatype"
)

// scanCache is the hash cache during one build: what was loaded from
// --cache, the files found unchanged in it, and the cache the build saves
// once it has published.
type scanCache struct {
	old   *hashcache.Cache
	start time.Time // when the scan began: only entries settled before it are saved

	// Written by the checking workers under mu, read after the scan. A
	// warm build finds nearly every file unchanged: hits are kept in
	// slices, which cost less than maps.
	mu       sync.Mutex
	hits     []Resource
	hitEntry []*hashcache.Entry // the entry of hits[i]
	// misses are the files sent to be read that have not come back from
	// the hashing pool: the collector takes each out as its result comes
	// (read), so the map holds the files in flight, not every file read.
	misses map[string]miss

	// Written by the collecting goroutine only, read after the scan: the
	// entries of the files read, to save.
	readEntries []cacheItem

	next *hashcache.Cache // filled by finish
}

// A cacheItem is an entry of the cache to save, and its path.
type cacheItem struct {
	path  string
	entry *hashcache.Entry
}

// A miss is a file the cache does not know unchanged.
type miss struct {
	stat    hashcache.Stat   // before reading
	partial *hashcache.Entry // its entry, if it has the right stat but lacks a digest
}

// loadCache loads the hash cache named by --cache. A cache that cannot be
// used is reported and replaced by an empty one: it is only a cache.
func (b *build) loadCache() *scanCache {
	c := &scanCache{
		start:  b.cfg.now(),
		misses: map[string]miss{},
	}
	old, err := hashcache.Load(b.cfg.Cache, b.root)
	switch {
	case err == nil:
		c.old = old
	case errors.Is(err, fs.ErrNotExist):
		c.old = hashcache.New(b.root)
	default:
		b.notice(fmt.Sprintf("--cache %s is %v: ignored, every file is read", b.cfg.Cache, unwrapPath(err)))
		c.old = hashcache.New(b.root)
	}
	return c
}

// check stats the files the walker finds, with as many workers as read
// files, and sends on jobs those the cache does not know unchanged: a file
// whose stat is as cached, and whose entry has every digest the build
// publishes, becomes a resource without being read. Statting in parallel
// matters when the inodes are not in memory: each stat may wait for the
// disk, as each read does.
func (c *scanCache) check(ctx context.Context, b *build, files <-chan scanFile, jobs chan<- hashing.Job) error {
	g, ctx := errgroup.WithContext(ctx)
	n := b.cfg.Jobs
	if n <= 0 {
		n = hashing.DefaultWorkers()
	}
	for range n {
		g.Go(func() error {
			for f := range files {
				if c.hit(b, f) {
					f.dir.Release()
					continue
				}
				select {
				case jobs <- f.job():
				case <-ctx.Done():
					f.dir.Release()
					return ctx.Err()
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// hit looks f up in the cache and records what it finds. It runs on the
// checking workers.
func (c *scanCache) hit(b *build, f scanFile) bool {
	info, err := f.dir.Lstat(f.name)
	if err != nil || info.Mode != 0 {
		return false // reported when the file is read
	}
	st := hashcache.Stat{Size: info.Size, Mtime: info.ModTime.UnixNano(), Ino: info.Ino, Dev: info.Dev}
	if !info.Ctime.IsZero() {
		st.Ctime = info.Ctime.UnixNano()
	}
	e, ok := c.old.Lookup(f.rel, st)
	if ok {
		typ := mediatype.ByName(f.rel)
		if typ == "" {
			typ = e.Type
		}
		sum, complete := e.Sum(nil, b.cfg.Hashes)
		loc, err := b.cfg.BaseURL.Resolve(f.rel)
		if complete && typ != "" && err == nil {
			r := Resource{
				Path:     f.rel,
				Loc:      loc,
				Length:   st.Size,
				Modified: time.Unix(0, st.Mtime).UTC(),
				Hash:     b.cfg.Hashes.Format(sum),
				Type:     typ,
			}
			c.mu.Lock()
			c.hits = append(c.hits, r)
			c.hitEntry = append(c.hitEntry, e)
			c.mu.Unlock()
			b.stats.Hashed.Add(1)
			b.stats.Cached.Add(1)
			return true
		}
	}
	m := miss{stat: st}
	if ok {
		m.partial = e
	}
	c.mu.Lock()
	c.misses[f.rel] = m
	c.mu.Unlock()
	return false
}

// read records a file the scan read, and makes its entry of the cache to
// save if its stat did not change while it was read and its times are
// settled. It runs on the collecting goroutine.
func (c *scanCache) read(b *build, res hashing.Result, typ string) {
	c.mu.Lock()
	m, ok := c.misses[res.Name]
	delete(c.misses, res.Name)
	c.mu.Unlock()
	st := m.stat
	if !ok || res.Info.Size != st.Size || res.Info.ModTime.UnixNano() != st.Mtime || !st.SettledBefore(c.start) {
		return
	}
	e := &hashcache.Entry{Stat: st}
	if m.partial != nil {
		*e = *m.partial // keep the digests of other algorithms: the file is the same
	}
	if res.Sniff {
		e.Type = typ
	}
	e.SetSum(b.cfg.Hashes, res.Sum)
	c.readEntries = append(c.readEntries, cacheItem{res.Name, e})
}

// failed forgets a file that could not be read: it gets no entry.
func (c *scanCache) failed(rel string) {
	c.mu.Lock()
	delete(c.misses, rel)
	c.mu.Unlock()
}

// finish makes the cache to save: the entries of files found unchanged,
// and those of the files read (read). Files that were not published (a
// problem) have no entry.
func (c *scanCache) finish(b *build) {
	items := c.readEntries
	for i := range c.hits {
		items = append(items, cacheItem{c.hits[i].Path, c.hitEntry[i]})
	}
	slices.SortFunc(items, func(x, y cacheItem) int { return strings.Compare(x.path, y.path) })
	c.next = hashcache.New(b.root)
	for _, it := range items {
		c.next.Put(it.path, it.entry) // in order: appended
	}
	c.hits, c.hitEntry, c.readEntries, c.misses = nil, nil, nil, nil
}

// digest returns the digest by a of the file at rel, if the cache to save
// has one: the file was found unchanged, or read with a stat that matched.
func (c *scanCache) digest(rel string, a hashing.Algorithm) ([]byte, bool) {
	if e, ok := c.next.Get(rel); ok {
		return e.Digest(a)
	}
	return nil, false
}

// addDigest records a digest computed after the scan (for the previous
// build's algorithm) in the entry to save, if there is one.
func (c *scanCache) addDigest(rel string, a hashing.Algorithm, sum []byte) {
	if e, ok := c.next.Get(rel); ok {
		cp := *e
		cp.SetDigest(a, sum)
		c.next.Put(rel, &cp)
	}
}

// saveCache writes the cache after a build has published. Failing to
// save it is reported, not an error: the build is done.
func (b *build) saveCache() {
	c := b.across.cache
	if c == nil || c.next == nil {
		return
	}
	if err := c.next.Save(b.cfg.Cache); err != nil {
		b.notice(fmt.Sprintf("--cache %s could not be saved: %v", b.cfg.Cache, unwrapPath(err)))
	}
}
