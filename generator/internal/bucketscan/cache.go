package bucketscan

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/bucket"
	"github.com/rsgen/rsgen/internal/confined"
	"github.com/rsgen/rsgen/internal/hashcache"
	"github.com/rsgen/rsgen/internal/regfile"
)

// A Cache is the digests of a bucket's objects between builds, in a file
// of one line per object in the order of the keys: the key, ETag, size
// and time that identify its bytes (quoted), its media type and its
// digests as token:hex. The last build's file is read as a cursor, one
// line ahead of the listing, and the next one is written as the objects
// leave the scan, into a temporary file renamed over the old once the
// build has published (Commit). Its memory does not depend on the size of
// the bucket; it is only a cache: one that cannot be read or written is
// told, and every object is resolved.
type Cache struct {
	path   string
	notice func(string)
	old    *bufio.Scanner // nil at its end, or if there is none
	oldf   *os.File
	cur    []string              // the fields of the old line at the cursor
	curKey string                // its key, unquoted
	next   *confined.Replacement // nil if it cannot be written
	w      *bufio.Writer
}

// cacheHeader starts a cache file; the bucket's URL follows.
const cacheHeader = "rsgen bucket cache 1 "

// OpenCache opens the cache at path of the bucket at url. A file there
// that is not a bucket's cache is left as it is: it may be anything.
func OpenCache(path, url string, notice func(string)) *Cache {
	c := &Cache{path: path, notice: notice}
	f, err := os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		notice(fmt.Sprintf("the hash cache %s cannot be read (%v): every object is resolved", path, err))
	default:
		c.oldf, c.old = f, bufio.NewScanner(f)
		c.old.Buffer(nil, 1<<20)
		c.old.Scan()
		head := c.old.Text()
		if !strings.HasPrefix(head, cacheHeader) {
			notice(fmt.Sprintf("the hash cache %s is not a bucket's hash cache: not used, not replaced; name a file of its own", path))
			c.closeOld()
			return c
		}
		if head != cacheHeader+url {
			notice(fmt.Sprintf("the hash cache %s is of another bucket or prefix: every object is resolved", path))
			c.closeOld()
		}
	}
	if c.next, err = hashcache.Temp(path); err != nil {
		notice(fmt.Sprintf("the hash cache %s cannot be written (%v): it is not saved", path, err))
		return c
	}
	c.w = bufio.NewWriter(c.next.File)
	c.w.WriteString(cacheHeader + url + "\n")
	return c
}

func (c *Cache) closeOld() {
	if c.oldf != nil {
		c.oldf.Close()
	}
	c.old, c.oldf, c.cur = nil, nil, nil
}

// find returns the digests of set and the media type of o if the last
// build had them for its bytes. It is called with keys in ascending order.
func (c *Cache) find(o *bucket.Object, set hashing.Set) (sum []byte, typ string, ok bool) {
	if c == nil {
		return nil, "", false
	}
	for c.old != nil && (c.cur == nil || c.curKey < o.Key) {
		if !c.old.Scan() {
			c.closeOld()
			break
		}
		var err error
		c.cur = strings.Split(c.old.Text(), "\t")
		if len(c.cur) >= 3 {
			c.curKey, err = strconv.Unquote(c.cur[0])
		}
		if len(c.cur) < 3 || err != nil {
			c.notice(fmt.Sprintf("the hash cache %s is damaged: the objects after that are resolved", c.path))
			c.closeOld()
		}
	}
	if c.cur == nil || c.curKey != o.Key || c.cur[1] != strconv.Quote(o.Version()) {
		return nil, "", false
	}
	digests := map[string]string{}
	for _, d := range c.cur[3:] {
		alg, hx, _ := strings.Cut(d, ":")
		digests[alg] = hx
	}
	for _, a := range set {
		d, err := hex.DecodeString(digests[a.String()])
		if err != nil || len(d) != a.Size() {
			return nil, "", false
		}
		sum = append(sum, d...)
	}
	typ, err := strconv.Unquote(c.cur[2])
	return sum, typ, err == nil
}

// put writes the entry of o, in the order of the keys.
func (c *Cache) put(o *bucket.Object, set hashing.Set, sum []byte, typ string) {
	if c == nil || c.w == nil {
		return
	}
	fmt.Fprintf(c.w, "%s\t%s\t%s", strconv.Quote(o.Key), strconv.Quote(o.Version()), strconv.Quote(typ))
	for _, a := range set {
		fmt.Fprintf(c.w, "\t%s:%x", a, sum[:a.Size()])
		sum = sum[a.Size():]
	}
	c.w.WriteByte('\n')
}

// Abort drops the cache being written: the build failed. c may be nil.
func (c *Cache) Abort() {
	if c == nil || c.next == nil {
		return
	}
	c.closeOld()
	c.next.Abort()
	c.next, c.w = nil, nil
}

// Commit puts the cache written in place of the old one, after the build
// has published. Failing to is told, not an error. c may be nil.
func (c *Cache) Commit() {
	if c == nil || c.next == nil {
		return
	}
	c.closeOld()
	err := c.w.Flush()
	if err == nil {
		err = c.next.Commit()
	} else {
		c.next.Abort()
	}
	if err != nil {
		c.notice(fmt.Sprintf("the hash cache %s could not be saved: %v", c.path, err))
	}
	c.next, c.w = nil, nil
}

// CheckCache fails as hashcache.Check does if path holds something other
// than a bucket's cache, which a build would replace: a tree's cache
// included (hashcache.ErrForeign).
func CheckCache(path string) error {
	if _, err := confined.Resolve(path); err != nil {
		return err
	}
	f, _, err := regfile.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	}
	defer f.Close()
	head := make([]byte, len(cacheHeader))
	if _, err := io.ReadFull(f, head); err != nil || string(head) != cacheHeader {
		return hashcache.ErrForeign
	}
	return nil
}
