package generator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/internal/treescan"
)

// A build publishes one of three sources. A directory tree and an archive
// of one give a []Resource (scan); a record export streams through sorters
// on disk instead, since it may hold millions of records (runExport).

// sourceOf checks the source of cfg and returns the root of a directory
// tree, or an archive, or neither for a record export.
func sourceOf(cfg *Config) (root string, arch *archive, err error) {
	if cfg.Export != "" {
		if cfg.Source != "" {
			return "", nil, errors.New("give a source or a record export, not both")
		}
		return "", nil, nil
	}
	if kind := archiveKindOf(cfg.Source); kind != 0 {
		st, err := os.Stat(cfg.Source)
		if err == nil && st.Mode().IsRegular() {
			return "", &archive{path: cfg.Source, kind: kind}, nil
		}
		if err != nil {
			return "", nil, fmt.Errorf("source %s: %w", cfg.Source, unwrapPath(err))
		}
	}
	root, err = sourceRoot(cfg.Source)
	return root, nil, err
}

// archiveKind is the format of an archive source.
type archiveKind int

const (
	archiveTar archiveKind = iota + 1
	archiveTarGz
	archiveZip
)

// archiveKindOf returns the kind of archive the name of source says, or 0.
func archiveKindOf(source string) archiveKind {
	name := strings.ToLower(source)
	switch {
	case strings.HasSuffix(name, ".tar"):
		return archiveTar
	case strings.HasSuffix(name, ".tar.gz"), strings.HasSuffix(name, ".tgz"):
		return archiveTarGz
	case strings.HasSuffix(name, ".zip"):
		return archiveZip
	}
	return 0
}

// scan lists and hashes the files of a tree or an archive, sorted by path.
func (b *build) scan(ctx context.Context) (*spill.ResourceSpool, error) {
	if b.archive != nil {
		return b.scanArchive(ctx)
	}
	return b.scanTree(ctx)
}

// testHookReadDir, if set, is called with each directory the walk lists;
// its error replaces the listing, as if the directory could not be read.
var testHookReadDir func(rel string) error

// scanWindow is how many files may be in flight in a tree's scan
// (treescan.Scan.Window); a variable for the tests.
var scanWindow = treescan.DefaultWindow

// scanTree walks the source tree and hashes its files (package treescan),
// and keeps the previous build's entries of what it could not read.
func (b *build) scanTree(ctx context.Context) (*spill.ResourceSpool, error) {
	cfg := b.cfg
	sc := &treescan.Scan{
		Root:     b.root,
		Filter:   &cfg.Filter,
		Follow:   cfg.FollowSymlinks,
		Skip:     b.owned,
		Jobs:     cfg.Jobs,
		Hashes:   cfg.Hashes,
		Base:     cfg.BaseURL,
		Cache:    b.across.cache,
		Spill:    &b.spill,
		Problems: &b.problems,
		Stats:    b.stats,
		Notice:   b.notice,
		Window:   scanWindow,
		Listed:   cfg.listed,
		ReadDir:  testHookReadDir,
	}
	found, unread, err := sc.Run(ctx)
	if err != nil {
		return nil, err
	}
	return b.keepUnread(ctx, found, unread.Dirs, unread.Files)
}
