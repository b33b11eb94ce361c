package generator

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/rsgen/rsgen/generator/internal/bucketscan"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/internal/treescan"
	"github.com/rsgen/rsgen/internal/inputs/bucket"
	"github.com/rsgen/rsgen/internal/inputs/inventory"
	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/stage"
)

// scanBucket lists the objects of a bucket (s3://BUCKET/PREFIX/ or its S3
// Inventory) and resolves their digests through the scan of a tree, and
// keeps the previous build's entries of those it could not read.
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
		b.history.cache = treescan.OpenCache(b.cfg.Cache, src.Bucket.URL(), bucketscan.Settled, b.notice, b.cfg.Out)
	}
	src.Filter, src.Skip, src.Hashes, src.Spill = filter, b.bucketDocument, b.cfg.Hashes, &b.spill
	sc := b.hashScan(src)
	if b.cfg.Digests != "" {
		dir, err := b.spill.Path()
		if err != nil {
			return nil, err
		}
		if src.Digests, err = inventory.OpenReport(ctx, b.cfg.Digests, dir); err != nil {
			return nil, err
		}
		defer src.Digests.Close()
	}
	var job *inventory.Job
	var manifest *confined.Replacement // the manifest of a Compute checksum job, in place once the scan is done
	if path := b.cfg.DigestsJob; path != "" {
		if manifest, err = confined.Replace(path, filepath.Base(path)+".tmp-*"); err != nil {
			return nil, fmt.Errorf("the manifest of the Compute checksum job: %w", err)
		}
		defer manifest.Abort() // does nothing once committed
		job = inventory.NewJob(manifest.File, src.Bucket.Name)
		src.Lacking = func(o *bucket.Object) error { return job.Add(o.Key, "") }
	}
	found, unread, err := sc.Run(ctx)
	b.noticeUnserved()
	if err == nil && job != nil && job.N > 0 { // the objects lacking a digest were not read: the build fails
		found.Close()
		path := b.cfg.DigestsJob
		if err = job.Flush(); err == nil {
			err = manifest.Commit()
		}
		if err != nil {
			return nil, fmt.Errorf("writing the manifest of the Compute checksum job %s: %w", path, err)
		}
		return nil, fmt.Errorf("%d objects have no digest that the store keeps or the report gives: %s is the manifest of the S3 Batch Operations Compute checksum job that computes them (docs/BUCKETS.md); submit it, then build again with the manifest.json of its completion report as the digests; nothing is published", job.N, path)
	}
	if err != nil {
		return nil, err
	}
	return b.keepUnread(ctx, found, unread)
}

// bucketDocument reports whether the object at rel has the URL of one of
// rsgen's documents, which it leaves out, told as for a tree.
func (b *build) bucketDocument(rel string) bool {
	if !b.servedDocument(rel) {
		return false
	}
	switch {
	case rel == stage.WellKnownFile:
		b.unserved.Store(rel, true)
	case path.Base(rel) == "capabilitylist.xml":
		// rsgen's own documents, deployed into the bucket (docs/BUCKETS.md): unsaid
		b.unserved.Store(deployedDocs, true)
	default:
		b.unserved.Store(docsDir, true)
	}
	return true
}

// deployedDocs marks, in build.unserved, a bucket whose resourcesync/
// holds the documents of a build deployed there, which need no notice.
const deployedDocs = "deployed"
