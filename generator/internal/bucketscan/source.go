package bucketscan

import (
	"context"
	"io"
	"math"
	"strings"
	"time"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/bucket"
	"github.com/rsgen/rsgen/internal/tree"
	"github.com/rsgen/rsgen/zipdump"
)

// A Source is a bucket as the source of a scan (treescan.Source): the
// bucket of the objects and, for a bucket published from its S3
// Inventory, the inventory that lists them.
type Source struct {
	Bucket    *bucket.Bucket
	Inventory *bucket.Inventory // nil: the bucket is listed

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

// Open opens the source at url: a bucket, s3://BUCKET/PREFIX/, or an
// inventory of one, s3-inventory://BUCKET/KEY/manifest.json.
func Open(ctx context.Context, url string) (*Source, error) {
	if strings.HasPrefix(url, bucket.InventoryScheme) {
		inv, err := bucket.OpenInventory(ctx, url)
		if err != nil {
			return nil, err
		}
		return &Source{Bucket: inv.Bucket, Inventory: inv}, nil
	}
	b, err := bucket.Open(ctx, url)
	if err != nil {
		return nil, err
	}
	return &Source{Bucket: b}, nil
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
