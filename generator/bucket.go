package generator

import (
	"context"

	"github.com/rsgen/rsgen/generator/internal/bucketscan"
	"github.com/rsgen/rsgen/generator/internal/dumps"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/internal/treescan"
)

// A bucket as the source (s3://BUCKET/PREFIX/ or the S3 Inventory of one,
// package bucketscan): the glue of the build to it, through the scan of
// package treescan as a tree's.

// scanBucket lists the objects of the source and resolves their digests,
// and keeps the previous build's entries of those it could not read.
func (b *build) scanBucket(ctx context.Context) (*spill.ResourceSpool, error) {
	src, err := bucketscan.Open(ctx, b.cfg.Source)
	if err != nil {
		return nil, marked(err, KindSource) // err names the source
	}
	if b.cfg.Cache != "" {
		b.history.cache = treescan.OpenCache(b.cfg.Cache, src.Bucket.URL(), bucketscan.Settled, b.notice)
	}
	src.Filter, src.Skip, src.Hashes, src.Spill, src.Base = b.cfg.Filter.tree(), b.servedDocument, b.cfg.Hashes, &b.spill, b.cfg.BaseURL.base
	sc := &treescan.Scan{
		Source:   src,
		Jobs:     b.cfg.Jobs,
		Hashes:   b.cfg.Hashes,
		Base:     b.cfg.BaseURL.base,
		Cache:    b.history.cache,
		Spill:    &b.spill,
		Problems: &b.problems,
		Stats:    b.stats,
	}
	found, unread, err := sc.Run(ctx)
	if err != nil {
		return nil, err
	}
	return b.keepUnread(ctx, found, unread)
}

// bucketFiles opens the objects of the source for the dumps to package.
func bucketFiles(ctx context.Context, source string) dumps.Source {
	return func() (dumps.Files, error) {
		src, err := bucketscan.Open(ctx, source)
		if err != nil {
			return nil, err
		}
		return src.Files(ctx), nil
	}
}
