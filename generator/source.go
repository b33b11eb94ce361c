package generator

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rsgen/rsgen/generator/internal/archivescan"
	"github.com/rsgen/rsgen/generator/internal/bucketscan"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/internal/treescan"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/internal/text/display"
)

// sourceOf returns the root of cfg's directory tree (absolute, with
// symbolic links resolved) once it is found readable, or its archive, or
// neither for a record export or a bucket.
func sourceOf(cfg *Config) (root string, arch *archivescan.Archive, err error) {
	src := cfg.Source
	if cfg.Export != "" || bucketscan.IsSource(src) {
		return "", nil, nil
	}
	failed := func(err error) (string, *archivescan.Archive, error) {
		return "", nil, fmt.Errorf("source %s: %w", src, display.WithoutPath(err))
	}
	if kind := archivescan.KindOf(src); kind != 0 {
		switch st, err := os.Stat(src); {
		case err == nil && st.Mode().IsRegular():
			return "", &archivescan.Archive{Path: src, Kind: kind}, nil
		case errors.Is(err, fs.ErrNotExist):
			return failed(noSuch("file"))
		case err != nil:
			return failed(err)
		}
	}
	if root, err = filepath.Abs(src); err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return failed(noSuch("directory"))
	}
	if err != nil {
		return failed(err)
	}
	st, err := os.Stat(root)
	if err != nil {
		return failed(err)
	}
	if !st.IsDir() {
		return "", nil, fmt.Errorf("source %s is not a directory (nor a .tar, .tar.gz, .tgz or .zip archive)", src)
	}
	f, err := os.Open(root)
	if err != nil {
		return "", nil, fmt.Errorf("source %s cannot be read: %w", src, display.WithoutPath(err))
	}
	f.Close()
	return root, nil, nil
}

// resolveExisting resolves the symbolic links of the longest part of path
// that exists: an output directory not yet created may still be inside a
// source reached through a link.
func resolveExisting(path string) string {
	var rest []string
	for p := path; ; p = filepath.Dir(p) {
		if resolved, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{resolved}, rest...)...)
		}
		if filepath.Dir(p) == p {
			return path
		}
		rest = append([]string{filepath.Base(p)}, rest...)
	}
}

// noSuch is an fs.ErrNotExist that says "no such directory".
type noSuch string

func (n noSuch) Error() string        { return "no such " + string(n) }
func (n noSuch) Is(target error) bool { return target == fs.ErrNotExist }

// owned reports whether real, a path under the source with links
// resolved, is rsgen's own: its output, the hash cache, or a file with the
// URL of rsgen's documents. It may be called from several goroutines, and
// says nothing itself (noticeUnserved does, once).
func (b *build) owned(real string) bool {
	if b.cacheRel != "" && (real == b.cacheRel || strings.HasPrefix(real, b.cacheRel+".tmp-")) {
		return true // the hash cache, and the file it is saved through
	}
	if b.outRel == "\x00" {
		// The output is elsewhere; served where the resources are, its
		// documents take these URLs.
		if b.cfg.DocsURL == b.cfg.BaseURL && (real == docsDir || real == stage.WellKnownFile) {
			b.unserved.Store(real, true)
			return true
		}
		return false
	}
	r := real
	if b.outRel != "" {
		var ok bool
		if r, ok = strings.CutPrefix(real, b.outRel+"/"); !ok {
			return false
		}
	}
	first, _, _ := strings.Cut(r, "/")
	return first == docsDir || strings.HasPrefix(first, stagePrefix) ||
		r == stage.WellKnownFile || strings.HasPrefix(r, stage.WellKnownFile+"/") || hosting.IsRootFile(r)
}

func (b *build) scan(ctx context.Context) (*spill.ResourceSpool, error) {
	if b.archive != nil {
		return b.scanArchive(ctx)
	}
	if bucketscan.IsSource(b.cfg.Source) {
		return b.scanBucket(ctx)
	}
	return b.scanTree(ctx)
}

// scanArchive lists and hashes the members of the archive, and keeps the
// previous build's entries of those it could not read.
func (b *build) scanArchive(ctx context.Context) (*spill.ResourceSpool, error) {
	cfg := b.cfg
	sc := &archivescan.Scan{Archive: b.archive, Filter: cfg.Filter.tree(), Skip: b.servedDocument, Base: cfg.BaseURL.base,
		Hashes: cfg.Hashes, Jobs: cfg.Jobs, Index: cfg.Dump.Enabled, // a Resource Dump reads the members again
		Spill: &b.spill, Problems: &b.problems, Stats: b.stats, Notice: b.notice}
	found, unread, err := sc.Run(ctx)
	if err != nil {
		return nil, err
	}
	return b.keepUnread(ctx, found, unread)
}

// servedDocument reports whether a member of an archive or bucket has
// the URL of one of rsgen's documents: it is not published.
func (b *build) servedDocument(name string) bool {
	return b.cfg.DocsURL == b.cfg.BaseURL && (name == stage.WellKnownFile || name == docsDir || strings.HasPrefix(name, docsDir+"/"))
}

// scanTree walks the source tree and hashes its files, and keeps the
// previous build's entries of what it could not read.
func (b *build) scanTree(ctx context.Context) (*spill.ResourceSpool, error) {
	cfg := b.cfg
	sc := b.hashScan(&treescan.Walk{Root: b.root, Filter: cfg.Filter.tree(), Follow: cfg.FollowSymlinks, Skip: b.owned,
		Spill: &b.spill, Stats: b.stats, Notice: b.notice, BigDir: cfg.bigDir, Listed: cfg.listed, ReadDir: cfg.readDir})
	found, unread, err := sc.Run(ctx)
	b.noticeUnserved()
	if err != nil {
		return nil, err
	}
	return b.keepUnread(ctx, found, unread)
}

// hashScan is the scan that hashes the files of src, a tree's or a bucket's.
func (b *build) hashScan(src treescan.Source) *treescan.Scan {
	return &treescan.Scan{Source: src, Jobs: b.cfg.Jobs, Hashes: b.cfg.Hashes, Base: b.cfg.BaseURL.base, Cache: b.history.cache,
		Spill: &b.spill, Problems: &b.problems, Stats: b.stats, Window: b.cfg.scanWindow}
}

// noticeUnserved says which of rsgen's documents the scan left out (owned).
func (b *build) noticeUnserved() {
	if _, ok := b.unserved.Load(deployedDocs); ok {
		return // a bucket's resourcesync/ holds rsgen's deployed documents (bucketDocument)
	}
	for _, name := range []string{docsDir, stage.WellKnownFile} {
		if _, ok := b.unserved.Load(name); ok {
			b.notice(fmt.Sprintf("%s: not published: its URL is that of rsgen's documents, which the output directory holds", name))
		}
	}
}
