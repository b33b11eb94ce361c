package generator

import (
	"context"
	"strings"

	"github.com/rsgen/rsgen/generator/internal/bucketscan"
	"github.com/rsgen/rsgen/generator/internal/dumps"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/internal/stage"
)

// A bucket as the source (s3://BUCKET/PREFIX/ or the S3 Inventory of one,
// package bucketscan): the glue of the build to it, kept apart until the
// scans share one pipeline.

// scanBucket lists the objects of the source and resolves their digests,
// and keeps the previous build's entries of those it could not read.
func (b *build) scanBucket(ctx context.Context) (*spill.ResourceSpool, error) {
	src, err := bucketscan.Open(ctx, b.cfg.Source)
	if err != nil {
		return nil, marked(err, KindSource) // err names the source
	}
	filter := b.cfg.Filter.tree()
	src.Bucket.Prune = func(folder string) bool {
		name := strings.TrimSuffix(folder, "/")
		return filter.PruneDir(name, name)
	}
	if b.cfg.Cache != "" {
		b.history.bucketCache = bucketscan.OpenCache(b.cfg.Cache, src.Bucket.URL(), b.notice)
	}
	sc := &bucketscan.Scan{
		Source:   src,
		Filter:   filter,
		Skip:     b.bucketDocument,
		Hashes:   b.cfg.Hashes,
		Base:     b.cfg.BaseURL.base,
		Cache:    b.history.bucketCache,
		Spill:    &b.spill,
		Problems: &b.problems,
		Stats:    b.stats,
	}
	found, unread, err := sc.Run(ctx)
	b.noticeUnserved()
	if err != nil {
		return nil, err
	}
	return b.keepUnread(ctx, found, unread)
}

// bucketDocument reports whether the object at rel under the prefix has
// the URL of one of rsgen's documents (resourcesync/…, the Source
// Description), which it leaves out, told as for a tree (noticeUnserved):
// the deploy script puts the documents there.
func (b *build) bucketDocument(rel string) bool {
	if !b.servedDocument(rel) {
		return false
	}
	if rel == stage.WellKnownFile {
		b.unserved.Store(rel, true)
	} else {
		b.unserved.Store(docsDir, true)
	}
	return true
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
