package treescan

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/mediatype"
	"github.com/rsgen/rsgen/internal/storage/hashcache"
	"github.com/rsgen/rsgen/internal/text/display"
)

// A Cache is the hash cache during one build: the cache the last build
// saved is read as a cursor one entry ahead of the walk (old), the one to
// save written as the scan's results come (next), both in the order of
// the paths, and next replaces the cache once the build has published.
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
// is only a cache. No link inside the untrusted directories is written
// through (hashcache.Create).
func OpenCache(path, root string, start time.Time, notice func(string), untrusted ...string) *Cache {
	c := &Cache{path: path, start: start, notice: notice}
	old, err := hashcache.Open(path, root)
	switch {
	case err == nil:
		c.old = old
	case errors.Is(err, fs.ErrNotExist):
	default:
		c.notice(fmt.Sprintf("the hash cache %s is %v: ignored, every file is read", c.path, display.WithoutPath(err)))
	}
	if c.next, err = hashcache.Create(c.path, root, untrusted...); err != nil {
		c.notice(fmt.Sprintf("the hash cache %s cannot be written (%v): it is not saved", c.path, display.WithoutPath(err)))
	}
	return c
}

// candidate returns a copy of the cache's entry of the file at rel, if it
// has one; the listing asks in the order of the paths.
func (c *Cache) candidate(rel string) *hashcache.Entry {
	if c.old == nil {
		return nil
	}
	if e, ok := c.old.Find(rel); ok {
		return e.Clone()
	}
	return nil
}

// decide says whether the cache knows the file of e unchanged (its Key,
// from Source.Stat), with every digest the build publishes: it is then
// not read.
func (c *Cache) decide(set hashing.Set, e *Entry) bool {
	if !e.keyed || e.cached == nil || e.cached.Stat != e.Key {
		e.cached = nil
		return false
	}
	// Else kept for the digests of other algorithms: the file is the same.
	_, complete := e.cached.Sum(nil, set)
	return complete
}

func (e *Entry) cachedType() string {
	if t := mediatype.ByName(e.Path); t != "" {
		return t
	}
	return e.cached.Type
}

// read saves the entry of a file the scan read, if it has a Key; the
// caller checks that the file read is still the one its Key was taken of.
func (c *Cache) read(set hashing.Set, e *Entry, typ string) {
	if !e.keyed {
		return
	}
	ce := &hashcache.Entry{Stat: e.Key}
	if e.cached != nil {
		ce = e.cached // the same file: keep the digests of other algorithms
	}
	if e.res.sniffed {
		ce.Type = typ
	}
	ce.SetSum(set, e.res.sum)
	c.put(e.Path, ce)
}

func (c *Cache) put(rel string, e *hashcache.Entry) {
	if c.next != nil {
		c.next.Put(rel, e, c.start) // an error is sticky: Commit reports it
	}
}

// close ends the cursor on the old cache, telling an error that ended it
// early.
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
// after the build has published; failing to is told, not an error. c may
// be nil.
func (c *Cache) Commit() {
	if c == nil || c.next == nil {
		return
	}
	if err := c.next.Commit(); err != nil {
		c.notice(fmt.Sprintf("the hash cache %s could not be saved: %v", c.path, display.WithoutPath(err)))
	}
}
