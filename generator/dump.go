package generator

import (
	"context"
	"fmt"
	"time"

	"github.com/rsgen/rsgen/generator/internal/bucketscan"
	"github.com/rsgen/rsgen/generator/internal/dumps"
	"github.com/rsgen/rsgen/generator/internal/treescan"
	"github.com/rsgen/rsgen/internal/inputs/bucket"
	"github.com/rsgen/rsgen/internal/text/display"
	"github.com/rsgen/rsgen/internal/text/units"
	"github.com/rsgen/rsgen/zipdump"
)

// Dump configures the Resource Dump (section 11) of a build.
type Dump struct {
	Enabled     bool                `toml:"resource-dump"`
	MaxBytes    units.Size          `toml:"dump-max-bytes"` // a package is closed before it passes this size; zipdump.DefaultMaxBytes if 0
	Compression zipdump.Compression `toml:"dump-compression"`
}

// packaging is how the dumps of b write their packages. It is made once
// the previous build is read, which may move b.at (afterPrevious).
func (b *build) packaging() dumps.Packaging {
	var clock func() time.Time
	if !b.cfg.FixedTime {
		clock = b.cfg.now
	}
	p := dumps.Packaging{Docs: b.docs, Hashes: b.cfg.Hashes, Compression: b.cfg.Dump.Compression, Jobs: b.cfg.Jobs,
		MaxBytes: int64(b.cfg.Dump.MaxBytes), Limits: b.cfg.Limits.list(), At: b.at, Clock: clock, Completed: b.completed,
		Problems: &b.problems, Notice: b.notice, WrapFile: b.cfg.dumpFile}
	source := b.cfg.Source
	if bucket.IsURL(source) {
		p.Of = "bucket" // a tree's, an archive's and an inventory's are unnamed, as they always were
	}
	switch {
	case bucketscan.IsSource(source):
		p.Files = func() (dumps.Files, error) {
			src, err := bucketscan.Open(context.Background(), source) // a dump is not stopped half-way through an object
			if err != nil {
				return nil, err
			}
			return src.Files(context.Background()), nil
		}
	case b.archive != nil:
		p.Files = func() (dumps.Files, error) {
			m, err := b.archive.OpenMembers()
			if err != nil {
				return nil, err // not a nil *Members
			}
			return m, nil
		}
	default:
		p.Files = func() (dumps.Files, error) {
			f, err := treescan.Tree{Root: b.root, Follow: b.cfg.FollowSymlinks}.Open()
			if err != nil {
				return nil, fmt.Errorf("source %s: %w", source, display.WithoutPath(err))
			}
			return f, nil
		}
	}
	return p
}

func (b *build) dump() *dumps.ResourceDump {
	return &dumps.ResourceDump{
		Packaging: b.packaging(),
		Stats:     b.stats, Spill: &b.spill,
		Prev: b.history.prev, Every: time.Duration(b.cfg.Changes.Archive.ResourceDumps), Keep: time.Duration(b.cfg.Changes.Archive.Keep), Copier: b.history.copier,
	}
}
