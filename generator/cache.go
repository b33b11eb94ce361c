package generator

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/hashcache"
	"github.com/rsgen/rsgen/internal/mediatype"
)

// scanCache is the hash cache during one build. Both of its files are
// streams in the order of the walk, which is the order of their paths:
// the cache the last build saved is read as a cursor (old), one entry
// ahead of the walk, and the one to save is written as the scan's results
// come (next), into a temporary file that replaces the cache once the
// build has published. Its memory does not depend on the size of the tree.
type scanCache struct {
	path  string
	start time.Time         // when the scan began: only entries settled before it are saved
	old   *hashcache.Reader // nil if there is none or it cannot be used
	next  *hashcache.Writer // nil if it cannot be written
}

// openCache opens the hash cache of Config.Cache. A cache that cannot be
// read is reported and treated as empty, one that cannot be written is
// reported and not saved: it is only a cache.
func (b *build) openCache() *scanCache {
	c := &scanCache{path: b.cfg.Cache, start: b.cfg.now()}
	old, err := hashcache.Open(c.path, b.root)
	switch {
	case err == nil:
		c.old = old
	case errors.Is(err, fs.ErrNotExist):
	default:
		b.notice(fmt.Sprintf("the hash cache %s is %v: ignored, every file is read", c.path, unwrapPath(err)))
	}
	if c.next, err = hashcache.Create(c.path, b.root); err != nil {
		b.notice(fmt.Sprintf("the hash cache %s cannot be written (%v): it is not saved", c.path, unwrapPath(err)))
	}
	return c
}

// candidate returns a copy of the cache's entry of the file at rel, if it
// has one. It is called by the walk, with paths in ascending order.
func (c *scanCache) candidate(rel string) *hashcache.Entry {
	if c.old == nil {
		return nil
	}
	e, ok := c.old.Find(rel)
	if !ok {
		return nil
	}
	return e.Clone()
}

// statOf is the stat the cache compares, of a file as Lstat found it.
func statOf(info hashing.FileInfo) hashcache.Stat {
	st := hashcache.Stat{Size: info.Size, Mtime: info.ModTime.UnixNano(), Ino: info.Ino, Dev: info.Dev}
	if !info.Ctime.IsZero() {
		st.Ctime = info.Ctime.UnixNano()
	}
	return st
}

// decide stats the file of it and says whether the cache knows it
// unchanged, with every digest the build publishes and a media type: it
// then becomes a resource without being read. It runs on the checking
// workers.
func (c *scanCache) decide(set hashing.Set, it *scanItem) bool {
	info, err := it.file.Dir.Lstat(it.file.Name)
	if err != nil || info.Mode != 0 {
		it.cached = nil
		return false // reported when the file is read
	}
	it.stat, it.statted = statOf(info), true
	if it.cached == nil || it.cached.Stat != it.stat {
		it.cached = nil
		return false
	}
	if _, complete := it.cached.Sum(nil, set); !complete || it.cachedType() == "" {
		return false // kept for the digests of other algorithms: the file is the same
	}
	return true
}

// cachedType is the media type of a file found in the cache.
func (it *scanItem) cachedType() string {
	if t := mediatype.ByName(it.file.Rel); t != "" {
		return t
	}
	return it.cached.Type
}

// hit saves the entry of a file found unchanged.
func (c *scanCache) hit(it *scanItem) {
	c.put(it.file.Rel, it.cached)
}

// read saves the entry of a file the scan read, if its stat did not change
// while it was read (and its times are settled: see hashcache.Writer.Put).
func (c *scanCache) read(set hashing.Set, it *scanItem, res *hashing.Result, typ string) {
	st := it.stat
	if !it.statted || res.Info.Size != st.Size || res.Info.ModTime.UnixNano() != st.Mtime {
		return
	}
	e := &hashcache.Entry{Stat: st}
	if it.cached != nil {
		e = it.cached // the same file: keep the digests of other algorithms
	}
	if res.Sniff {
		e.Type = typ
	}
	e.SetSum(set, res.Sum)
	c.put(it.file.Rel, e)
}

func (c *scanCache) put(rel string, e *hashcache.Entry) {
	if c.next != nil {
		c.next.Put(rel, e, c.start) // an error is sticky: Commit reports it
	}
}

// close ends the cursor on the old cache; it reports an error that ended
// it early, after which every file was read.
func (c *scanCache) close(b *build) {
	if c.old == nil {
		return
	}
	if err := c.old.Err(); err != nil {
		b.notice(fmt.Sprintf("the hash cache %s could not be read to its end (%v): the files after that were read", c.path, err))
	}
	c.old.Close()
	c.old = nil
}

// abort drops the cache being written: the build failed.
func (c *scanCache) abort() {
	if c != nil && c.next != nil {
		c.next.Abort()
	}
}

// saveCache puts the cache written by the scan in place of the old one,
// after the build has published. Failing to is reported, not an error:
// the build is done.
func (b *build) saveCache() {
	c := b.across.cache
	if c == nil || c.next == nil {
		return
	}
	if err := c.next.Commit(); err != nil {
		b.notice(fmt.Sprintf("the hash cache %s could not be saved: %v", b.cfg.Cache, unwrapPath(err)))
	}
}
