package bucketscan

import (
	"context"
	"errors"
	"io"
	"path"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/bucket"
	"github.com/rsgen/rsgen/internal/mediatype"
	"github.com/rsgen/rsgen/internal/tree"
	"github.com/rsgen/rsgen/internal/uri"
)

// A Scan is one scan of a bucket.
type Scan struct {
	Source Source
	Filter *tree.Filter          // what is published, of the keys under the prefix
	Skip   func(rel string) bool // keys never published (rsgen's own documents); nil: none
	Hashes hashing.Set
	Base   uri.Base // the URL of the prefix
	Reads  int      // objects resolved at once; 0 or less: DefaultReads
	Cache  *Cache   // the digests of the last build, or nil

	Spill    *spill.Area
	Problems *report.Problems
	Stats    *report.Stats // Found, Hashed, Cached, Bytes, WalkDone
}

// DefaultReads is the number of objects resolved at once: a request to an
// object store takes tens of milliseconds whatever its size, so that 32
// in flight keep a store busy where a disk's 8 would wait on it.
const DefaultReads = 32

// window is the most objects in flight between the listing and the spool.
const window = 4096

// An item is an object in flight.
type item struct {
	obj  bucket.Object
	done chan struct{} // closed once resolved

	sum  []byte // the digests, in the order of Scan.Hashes
	typ  string
	hit  bool // from the cache
	read bool // from the bytes
	err  error
}

// Run lists the bucket and returns the resources of its objects in the
// order of their keys, with the objects that could not be read. A
// listing that fails is an error: nothing is published of a listing cut
// short.
func (sc *Scan) Run(ctx context.Context) (*spill.ResourceSpool, report.Unread, error) {
	found, err := sc.Spill.Resources()
	if err != nil {
		return nil, report.Unread{}, err
	}
	reads := sc.Reads
	if reads <= 0 {
		reads = DefaultReads
	}
	g, ctx := errgroup.WithContext(ctx)
	order := make(chan *item, window)
	work := make(chan *item, reads)
	g.Go(func() error {
		defer close(order)
		defer close(work)
		err := sc.list(ctx, func(o *bucket.Object) error { return sc.found(ctx, o, order, work) })
		sc.Stats.WalkDone.Store(true)
		return err
	})
	for range reads {
		g.Go(func() error {
			h := hashing.NewHasher(sc.Hashes)
			for it := range work {
				sc.resolve(ctx, h, it)
				close(it.done)
			}
			return nil
		})
	}
	var unread report.Unread
	g.Go(func() error {
		var tokens []hashing.Token
		for it := range order {
			select {
			case <-it.done:
			case <-ctx.Done():
				return ctx.Err()
			}
			if err := sc.pass(it, found, &tokens, &unread); err != nil {
				return err
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		sc.Cache.Abort()
		found.Close()
		return nil, report.Unread{}, err
	}
	return found, unread, nil
}

// list lists the objects of the source in the order of their keys: the
// bucket's listing, or the inventory's rows sorted in the spill area.
func (sc *Scan) list(ctx context.Context, fn func(*bucket.Object) error) error {
	if inv := sc.Source.Inventory; inv != nil {
		dir, err := sc.Spill.Path()
		if err != nil {
			return err
		}
		return inv.List(ctx, dir, fn)
	}
	return sc.Source.Bucket.List(ctx, fn)
}

// found takes an object of the listing: a key that cannot be a resource is
// a problem, a filtered one is skipped, the others go in order to the
// collector and, unless the cache knows them, to the workers.
func (sc *Scan) found(ctx context.Context, o *bucket.Object, order, work chan<- *item) error {
	if err := keyProblem(o.Rel); err != nil {
		sc.Problems.Add(report.Problem{Path: o.Rel, Err: err})
		return nil
	}
	if !published(sc.Filter, o.Rel) || sc.Skip != nil && sc.Skip(o.Rel) {
		return nil
	}
	sc.Stats.Found.Add(1)
	it := &item{obj: *o, done: make(chan struct{})}
	if sum, typ, ok := sc.Cache.find(o, sc.Hashes); ok {
		it.sum, it.typ, it.hit = sum, typ, true
		close(it.done)
	}
	select {
	case order <- it:
	case <-ctx.Done():
		return ctx.Err()
	}
	if it.hit {
		return nil
	}
	select {
	case work <- it:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// published reports whether f publishes the object at rel, as a walk of
// a tree would: neither it nor a folder on its way is hidden or excluded.
func published(f *tree.Filter, rel string) bool {
	segs := strings.Split(rel, "/")
	for i := 1; i < len(segs); i++ {
		if f.PruneDir(segs[i-1], strings.Join(segs[:i], "/")) {
			return false
		}
	}
	return f.Publishes(path.Base(rel), rel)
}

// keyProblem says why a key under the prefix cannot be a resource, or
// returns nil.
func keyProblem(rel string) error {
	switch {
	case !utf8.ValidString(rel):
		return errors.New("the key is not valid UTF-8 and has no URL")
	case strings.ContainsFunc(rel, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return errors.New("the key has a control character; not published")
	}
	for seg := range strings.SplitSeq(rel, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return errors.New(`the key has an empty, "." or ".." segment, which a URL cannot keep; not published`)
		}
	}
	return nil
}

// resolve finds the digests of an object: from the store where it may
// keep those of every algorithm of the build (one HEAD), else from its
// bytes (one GET).
func (sc *Scan) resolve(ctx context.Context, h *hashing.Hasher, it *item) {
	o := &it.obj
	if mayStore(o, sc.Hashes) {
		st, err := sc.Source.Bucket.Stored(ctx, o)
		if err != nil {
			it.err = err
			return
		}
		if sum, ok := storedSum(sc.Hashes, st); ok {
			it.sum, it.typ = sum, st.Type
			return
		}
	}
	r, err := sc.Source.Bucket.Open(ctx, o)
	if err != nil {
		it.err = err
		return
	}
	defer r.Close()
	_, it.sum, it.err = h.Sum(nil, counted{r, &sc.Stats.Read})
	it.typ, it.read = mediatype.Sniff(h.Head()), true
}

// counted counts the bytes read from r into n as they come (Stats.Read,
// which the progress line and a stopped build's summary show).
type counted struct {
	r io.Reader
	n *atomic.Int64
}

func (c counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// mayStore reports whether the listing says the store may keep the
// digests of every algorithm of set for o. The SHA-256 or SHA-1 checksum
// of a multipart upload (its ETag ends in "-N") is a composite one, not
// the digest of the bytes: no HEAD is sent for it.
func mayStore(o *bucket.Object, set hashing.Set) bool {
	single := !strings.Contains(o.ETag, "-")
	for _, a := range set {
		switch {
		case a == hashing.SHA256 && o.SHA256 && single, a == hashing.SHA1 && o.SHA1 && single, a == hashing.MD5 && o.MayBeMD5():
		default:
			return false
		}
	}
	return true
}

// storedSum returns the digests of set from what the store keeps, if it
// keeps every one.
func storedSum(set hashing.Set, st bucket.Stored) ([]byte, bool) {
	var sum []byte
	for _, a := range set {
		var d []byte
		switch a {
		case hashing.SHA256:
			d = st.SHA256
		case hashing.SHA1:
			d = st.SHA1
		case hashing.MD5:
			d = st.MD5
		}
		if d == nil {
			return nil, false
		}
		sum = append(sum, d...)
	}
	return sum, true
}

// pass makes the resource of an object that leaves the scan, in order.
func (sc *Scan) pass(it *item, found *spill.ResourceSpool, tokens *[]hashing.Token, unread *report.Unread) error {
	o := &it.obj
	sc.Stats.Hashed.Add(1)
	if it.err != nil {
		sc.Problems.Add(report.Problem{Path: o.Rel, Err: it.err})
		unread.Files = append(unread.Files, o.Rel)
		return nil
	}
	switch {
	case it.hit:
		sc.Stats.Cached.Add(1)
	case it.read:
		sc.Stats.Bytes.Add(o.Size)
	}
	loc, err := sc.Base.Resolve(o.Rel)
	if err != nil {
		sc.Problems.Add(report.Problem{Path: o.Rel, Err: err})
		return nil
	}
	if t := mediatype.ByName(o.Rel); t != "" {
		it.typ = t
	}
	sc.Cache.put(o, sc.Hashes, it.sum, it.typ)
	*tokens = sc.Hashes.Tokens((*tokens)[:0], it.sum)
	return found.Add(&spill.Resource{
		Path:     o.Rel,
		Loc:      loc,
		Length:   o.Size,
		Modified: o.Modified,
		Hash:     *tokens, // Add encodes them before the next pass
		Type:     it.typ,
	})
}
