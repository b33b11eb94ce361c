package bucketscan

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/internal/treescan"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/inputs/bucket"
	"github.com/rsgen/rsgen/internal/inputs/inventory"
	"github.com/rsgen/rsgen/internal/inputs/tree"
	"github.com/rsgen/rsgen/internal/storage/hashcache"
	"github.com/rsgen/rsgen/zipdump"
)

// A Source is a bucket as the source of a scan (treescan.Source): the
// bucket of the objects and, for a bucket published from its S3
// Inventory, the inventory that lists them.
type Source struct {
	Bucket    *bucket.Bucket
	Inventory *inventory.Inventory // nil: the bucket is listed
	// Digests are those of a Compute checksum report, taken where they
	// are still an object's; nil: none.
	Digests *inventory.Digests
	// Lacking, if set, is given each object whose digests only its bytes
	// would give, in the order of the keys, instead of reading it: the
	// manifest of a Compute checksum job. The object is not published.
	Lacking func(*bucket.Object) error

	Filter *tree.Filter          // what is published, of the keys under the prefix
	Skip   func(rel string) bool // keys never published (rsgen's own documents); nil: none
	Hashes hashing.Set
	Spill  *spill.Area // where an inventory's rows are sorted

	ctx context.Context // the scan's, for the reads (List's)
}

// Settled is the time a bucket's hash cache is opened for
// (treescan.OpenCache): an object's entry is saved however recently it
// was written, since its ETag and time identify its bytes, where a file's
// times may not yet show a write made right after it was read.
var Settled = time.Unix(0, math.MaxInt64)

// IsSource reports whether source names a bucket (s3://BUCKET/PREFIX/)
// or an inventory of one (s3-inventory://…/manifest.json, or a local
// manifest.json).
func IsSource(source string) bool { return bucket.IsURL(source) || inventory.IsSource(source) }

// Open opens the source at url: a bucket, s3://BUCKET/PREFIX/, or an
// inventory of one, s3-inventory://BUCKET/KEY/manifest.json or the path
// of a manifest.json, and the whole bucket it inventories.
func Open(ctx context.Context, url string) (*Source, error) {
	if inventory.IsSource(url) {
		inv, err := inventory.Open(ctx, url)
		if err != nil {
			return nil, err
		}
		b, err := bucket.Open(ctx, bucket.Scheme+inv.Bucket+"/")
		if err != nil {
			return nil, err
		}
		return &Source{Bucket: b, Inventory: inv}, nil
	}
	b, err := bucket.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	return &Source{Bucket: b}, nil
}

// DefaultReads is the number of objects resolved at once: a request to an
// object store takes tens of milliseconds whatever its size, so that 32
// in flight keep a store busy where a disk's 8 would wait on it.
const DefaultReads = 32

// Reads keeps DefaultReads requests in flight, or more with more workers;
// they wait in the network poller.
func (s *Source) Reads(workers int) (int, bool) { return max(workers, DefaultReads), false }

// List lists the objects of the source in the order of their keys: the
// bucket's listing, or the inventory's rows sorted in the spill area. A
// key that cannot be a resource is refused; a filtered one skipped.
func (s *Source) List(ctx context.Context, emit func(*treescan.Entry) error) error {
	s.ctx = ctx
	idx := &inventory.Source{Inventory: s.Inventory, Digests: s.Digests, Prefix: s.Bucket.Prefix}
	each := func(o *bucket.Object) error {
		if err := keyProblem(o.Rel); err != nil {
			return emit(&treescan.Entry{Path: o.Rel, Err: err})
		}
		if !s.Filter.PublishesPath(o.Rel) || s.Skip != nil && s.Skip(o.Rel) {
			return nil
		}
		e := &entry{obj: object{Object: *o}}
		e.Path, e.Key, e.Handle = o.Rel, key(o), &e.obj
		if s.Inventory != nil || s.Digests != nil { // digests that need no request
			st, err := idx.Known(o)
			if err != nil {
				return err
			}
			e.obj.known, _ = storedSum(s.Hashes, st)
		}
		if e.obj.known == nil && s.Lacking != nil && !mayStore(o, s.Hashes) {
			return s.Lacking(o) // a Compute checksum job is to give its digests
		}
		return emit(&e.Entry)
	}
	if s.Inventory != nil {
		dir, err := s.Spill.Path()
		if err != nil {
			return err
		}
		idx.Tmp = dir
		return idx.List(ctx, each)
	}
	return s.Bucket.List(ctx, each)
}

// An entry is an object in flight in the scan: its Handle is the object,
// in one allocation.
type entry struct {
	treescan.Entry
	obj object
}

// An object is one of the listing, and the digests of the build that the
// inventory or the report gives of it (nil if not every one).
type object struct {
	bucket.Object
	known []byte
}

// key is what the hash cache compares of an object: its size, time, and a
// digest of its ETag (an object written again has a new time, whatever
// its ETag: a multipart ETag is not a digest of its bytes).
func key(o *bucket.Object) hashcache.Stat {
	d := sha256.Sum256([]byte(o.ETag))
	return hashcache.Stat{Size: o.Size, Mtime: o.Modified.UnixNano(),
		Ino: binary.BigEndian.Uint64(d[:8]), Dev: binary.BigEndian.Uint64(d[8:16])}
}

// Stat has nothing to do: the listing gave the Key.
func (*Source) Stat(*treescan.Entry) bool { return true }

// Drop has nothing to release.
func (*Source) Drop(*treescan.Entry) {}

// Job resolves the digests of an object: from the store where it may keep
// those of every algorithm of the build (one HEAD), else from its bytes
// (one GET).
func (s *Source) Job(e *treescan.Entry) hashing.Job {
	ko := e.Handle.(*object)
	o := &ko.Object
	j := hashing.Job{Open: func() (io.ReadCloser, error) { return s.Bucket.Open(s.ctx, o) }}
	switch {
	case ko.known != nil: // the inventory's or the report's: no request
		j.Stored = func() ([]byte, bool, error) { return ko.known, true, nil }
	case mayStore(o, s.Hashes):
		j.Stored = func() ([]byte, bool, error) {
			st, err := s.Bucket.Stored(s.ctx, o)
			if err != nil {
				return nil, false, err
			}
			sum, ok := storedSum(s.Hashes, st)
			e.Type = st.Type
			return sum, ok, nil
		}
	}
	return j
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

// mayStore reports whether the listing says the store may keep the
// digests of every algorithm of set for o.
func mayStore(o *bucket.Object, set hashing.Set) bool {
	single := !strings.Contains(o.ETag, "-") // a multipart upload's SHA-256 or SHA-1 is a composite one
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

// Files opens the objects of s by their path under the prefix, for a
// Resource Dump to package (dumps.Files); zipdump checks each against
// the length and digests the scan listed.
func (s *Source) Files(ctx context.Context) Files { return Files{ctx, s.Bucket} }

// Files are the objects of a Source, opened by name.
type Files struct {
	ctx context.Context
	b   *bucket.Bucket
}

// Open streams the object of it.
func (f Files) Open(it *zipdump.Item) (io.ReadCloser, error) {
	return f.b.Open(f.ctx, &bucket.Object{Key: f.b.Prefix + it.Name, Rel: it.Name, Size: it.Size})
}

// Close does nothing: an object's read is closed by its reader.
func (Files) Close() {}
