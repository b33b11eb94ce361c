package generator

import (
	"context"
	"io"
	"strings"

	"github.com/rsgen/rsgen/generator/internal/bucketscan"
	"github.com/rsgen/rsgen/generator/internal/dumps"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/internal/bucket"
	"github.com/rsgen/rsgen/zipdump"
)

// A bucket as the source (s3://BUCKET/PREFIX/, package bucketscan): the
// glue of the build to it, kept apart until the scans share one pipeline.

// scanBucket lists the bucket of the source and resolves the digests of
// its objects, and keeps the previous build's entries of those it could
// not read.
func (b *build) scanBucket(ctx context.Context) (*spill.ResourceSpool, error) {
	bk, inv, err := openBucket(ctx, b.cfg.Source)
	if err != nil {
		return nil, mark(err, ErrSource) // err names the source
	}
	if b.cfg.Cache != "" {
		b.history.bucketCache = bucketscan.OpenCache(b.cfg.Cache, bk.URL(), b.notice)
	}
	sc := &bucketscan.Scan{
		Bucket:   bk,
		Filter:   &b.cfg.Filter,
		Skip:     b.servedDocument,
		Hashes:   b.cfg.Hashes,
		Base:     b.cfg.BaseURL,
		Cache:    b.history.bucketCache,
		Spill:    &b.spill,
		Problems: &b.problems,
		Stats:    b.stats,
	}
	if inv != nil {
		dir, err := b.spill.Path()
		if err != nil {
			return nil, err
		}
		sc.List = func(ctx context.Context, fn func(*bucket.Object) error) error { return inv.List(ctx, dir, fn) }
	}
	found, unread, err := sc.Run(ctx)
	if err != nil {
		return nil, err
	}
	return b.keepUnread(ctx, found, unread)
}

// bucketFiles opens the objects of the bucket of the source for the dumps
// to package; zipdump checks each against the length and digests the
// scan listed.
func bucketFiles(ctx context.Context, source string) dumps.Source {
	return func() (dumps.Files, error) {
		bk, _, err := openBucket(ctx, source)
		if err != nil {
			return nil, err
		}
		return objects{ctx, bk}, nil
	}
}

// openBucket opens the bucket of source, s3://BUCKET/PREFIX/, or the
// inventory s3-inventory://BUCKET/KEY/manifest.json and the bucket it
// inventories.
func openBucket(ctx context.Context, source string) (*bucket.Bucket, *bucket.Inventory, error) {
	if strings.HasPrefix(source, bucket.InventoryScheme) {
		inv, err := bucket.OpenInventory(ctx, source)
		if err != nil {
			return nil, nil, err
		}
		return inv.Bucket, inv, nil
	}
	bk, err := bucket.Open(ctx, source)
	return bk, nil, err
}

type objects struct {
	ctx context.Context
	bk  *bucket.Bucket
}

func (o objects) Open(it *zipdump.Item) (io.ReadCloser, error) {
	return o.bk.Open(o.ctx, &bucket.Object{Key: o.bk.Prefix + it.Name, Rel: it.Name, Size: it.Size})
}

func (objects) Close() {}
