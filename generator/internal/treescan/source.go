package treescan

import (
	"context"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/storage/hashcache"
)

// A Source is what a Scan reads: a directory tree (Walk), the objects of
// a bucket (package bucketscan), the members of an archive (package
// archivescan). List is called from one goroutine, the others from
// several at once.
type Source interface {
	// List gives each entry to emit in the byte order of the paths, until
	// emit fails. A name the source refuses, or a directory it cannot
	// read, is an Entry with Err set.
	List(ctx context.Context, emit func(*Entry) error) error
	// Stat fills in the Key of an entry where the listing could not (a
	// tree's stat, made by the checking workers in parallel); false if it
	// cannot, and the entry is then read.
	Stat(e *Entry) bool
	// Job is how the pool reads the entry.
	Job(e *Entry) hashing.Job
	// Drop releases what an entry that is not read holds.
	Drop(e *Entry)
	// Reads returns how many reads the pool keeps in flight for workers
	// hashing workers, and whether a read blocks a thread
	// (hashing.Pool.Reads, ReadsBlock).
	Reads(workers int) (n int, blocking bool)
}

// An Entry is one file of a source, in flight through a Scan.
type Entry struct {
	Path string // published path, slash-separated
	// Key is what the hash cache compares, filled by the listing or Stat;
	// its Size and Mtime are the resource's length and lastmod unless the
	// pool reads them from a file.
	Key hashcache.Stat
	Sum []byte // the digests, if the listing knows them (a tar's members): not read again
	// Modified, if set, is the lastmod, in place of Key.Mtime, which as
	// nanoseconds cannot hold a year before 1678 or after 2262.
	Modified time.Time
	Type     string // the media type the source keeps (an object's Content-Type)
	Handle   any    // the source's own: what Job reads

	// A name refused or a directory not read: a problem, of a directory
	// if Dir; with Unread, its previous entries are kept.
	Err         error
	Dir, Unread bool

	// The scan's.
	keyed  bool             // Key is set
	hit    bool             // found unchanged in the cache: not read
	seq    uint64           // its place in the listing
	cached *hashcache.Entry // the cache's entry of the path, while it may be of use
	res    result           // the pool's, if it was read
}

// result is what the pool found of an entry: only that of its
// hashing.Result, while it waits in the window.
type result struct {
	sum, head       []byte
	size            int64
	modified        time.Time // zero for a stream
	err             error
	stored, sniffed bool
}
