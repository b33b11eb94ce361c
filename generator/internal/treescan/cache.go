package treescan

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/display"
	"github.com/rsgen/rsgen/internal/hashcache"
	"github.com/rsgen/rsgen/internal/mediatype"
)

// A Cache is the hash cache during one build. Both of its files are
// streams in the order of the walk, which is the order of their paths:
// the cache the last build saved is read as a cursor (old), one entry
// ahead of the walk, and the one to save is written as the scan's results
// come (next), into a temporary file that replaces the cache once the
// build has published. Its memory does not depend on the size of the tree.
type Cache struct {
	path   string
	notice func(string)
	start  time.Time         // when the scan began: only entries settled before it are saved
	old    *hashcache.Reader // nil if there is none or it cannot be used
	next   *hashcache.Writer // nil if it cannot be written
}

// OpenCache opens the hash cache at path of the tree at root, for a scan
// that begins at start. A cache that cannot be read is told to notice and
// treated as empty, one that cannot be written is told and not saved: it
// is only a cache.
func OpenCache(path, root string, start time.Time, notice func(string)) *Cache {
	c := &Cache{path: path, start: start, notice: notice}
	old, err := hashcache.Open(path, root)
	switch {
	case err == nil:
		c.old = old
	case errors.Is(err, fs.ErrNotExist):
	default:
		c.notice(fmt.Sprintf("the hash cache %s is %v: ignored, every file is read", c.path, display.WithoutPath(err)))
	}
	if c.next, err = hashcache.Create(c.path, root); err != nil {
		c.notice(fmt.Sprintf("the hash cache %s cannot be written (%v): it is not saved", c.path, display.WithoutPath(err)))
	}
	return c
}

// candidate returns a copy of the cache's entry of the file at rel, if it
// has one. It is called by the walk, with paths in ascending order.
func (c *Cache) candidate(rel string) *hashcache.Entry {
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
func (c *Cache) decide(set hashing.Set, it *item) bool {
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
func (it *item) cachedType() string {
	if t := mediatype.ByName(it.file.Rel); t != "" {
		return t
	}
	return it.cached.Type
}

// hit saves the entry of a file found unchanged.
func (c *Cache) hit(it *item) {
	c.put(it.file.Rel, it.cached)
}

// read saves the entry of a file the scan read, if its stat did not change
// while it was read (and its times are settled: see hashcache.Writer.Put).
func (c *Cache) read(set hashing.Set, it *item, res *hashing.Result, typ string) {
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

func (c *Cache) put(rel string, e *hashcache.Entry) {
	if c.next != nil {
		c.next.Put(rel, e, c.start) // an error is sticky: Commit reports it
	}
}

// close ends the cursor on the old cache; it reports an error that ended
// it early, after which every file was read.
func (c *Cache) close() {
	if c.old == nil {
		return
	}
	if err := c.old.Err(); err != nil {
		c.notice(fmt.Sprintf("the hash cache %s could not be read to its end (%v): the files after that were read", c.path, err))
	}
	c.old.Close()
	c.old = nil
}

// Abort drops the cache being written: the build failed. c may be nil.
func (c *Cache) Abort() {
	if c != nil && c.next != nil {
		c.next.Abort()
	}
}

// Commit puts the cache written by the scan in place of the old one,
// after the build has published. Failing to is told, not an error: the
// build is done. c may be nil.
func (c *Cache) Commit() {
	if c == nil || c.next == nil {
		return
	}
	if err := c.next.Commit(); err != nil {
		c.notice(fmt.Sprintf("the hash cache %s could not be saved: %v", c.path, display.WithoutPath(err)))
	}
}
