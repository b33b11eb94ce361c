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
	misses   map[string]miss

	// Written by the collecting goroutine only, read after the scan.
	readFiles map[string]readFile

	next *hashcache.Cache // filled by finish
}

// A miss is a file the cache does not know unchanged.
type miss struct {
	stat    hashcache.Stat   // before reading
	partial *hashcache.Entry // its entry, if it has the right stat but lacks a digest
}

// readFile is what the scan learned of a file it read.
type readFile struct {
	info  hashing.FileInfo
	sum   []byte
	typ   string
	sniff bool
}

// loadCache loads the hash cache named by --cache. A cache that cannot be
// used is reported and replaced by an empty one: it is only a cache.
func (b *build) loadCache() *scanCache {
	c := &scanCache{
		start:     b.cfg.now(),
		misses:    map[string]miss{},
		readFiles: map[string]readFile{},
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

// read records a file the scan read. It runs on the collecting goroutine.
func (c *scanCache) read(res hashing.Result, typ string) {
	c.readFiles[res.Name] = readFile{info: res.Info, sum: res.Sum, typ: typ, sniff: res.Sniff}
}

// finish makes the cache to save: the entries of files found unchanged,
// and new entries for files read whose stat did not change while they were
// read and whose times are settled. Files that were not published (a
// problem) have no entry.
func (c *scanCache) finish(b *build) {
	type item struct {
		path  string
		entry *hashcache.Entry
	}
	items := make([]item, 0, len(c.hits)+len(c.readFiles))
	for i := range c.hits {
		items = append(items, item{c.hits[i].Path, c.hitEntry[i]})
	}
	for rel, rf := range c.readFiles {
		m, ok := c.misses[rel]
		st := m.stat
		if !ok || rf.info.Size != st.Size || rf.info.ModTime.UnixNano() != st.Mtime || !st.SettledBefore(c.start) {
			continue
		}
		e := &hashcache.Entry{Stat: st}
		if m.partial != nil {
			*e = *m.partial // keep the digests of other algorithms: the file is the same
		}
		if rf.sniff {
			e.Type = rf.typ
		}
		e.SetSum(b.cfg.Hashes, rf.sum)
		items = append(items, item{rel, e})
	}
	slices.SortFunc(items, func(x, y item) int { return strings.Compare(x.path, y.path) })
	c.next = hashcache.New(b.root)
	for _, it := range items {
		c.next.Put(it.path, it.entry) // in order: appended
	}
	c.hits, c.hitEntry, c.readFiles, c.misses = nil, nil, nil, nil
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
