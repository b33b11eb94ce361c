package generator

import (
	"time"

	"github.com/rsgen/rsgen/generator/internal/dumps"
	"github.com/rsgen/rsgen/internal/inputs/bucket"
	"github.com/rsgen/rsgen/internal/text/units"
	"github.com/rsgen/rsgen/zipdump"
)

// Dump configures the Resource Dump (section 11) of a build.
type Dump struct {
	Enabled     bool                `toml:"resource-dump"`
	MaxBytes    units.Size          `toml:"dump-max-bytes"` // a package is closed before it passes this size; zipdump.DefaultMaxBytes if 0
	Compression zipdump.Compression `toml:"dump-compression"`
}

// packaging is how the dumps of b write their packages (package dumps),
// of the files of its source. It is made once the previous build is read,
// which may move b.at (afterPrevious).
func (b *build) packaging() dumps.Packaging {
	var clock func() time.Time
	if !b.cfg.FixedTime {
		clock = b.cfg.now
	}
	return dumps.Packaging{Docs: b.docs, Hashes: b.cfg.Hashes, Compression: b.cfg.Dump.Compression, Jobs: b.cfg.Jobs,
		MaxBytes: int64(b.cfg.Dump.MaxBytes), Limits: b.cfg.Limits.list(), At: b.at, Clock: clock, Completed: b.completed,
		Files: sourceFiles(b.cfg, b.root, b.archive), Of: sourceNoun(b.cfg.Source), Problems: &b.problems, Notice: b.notice, WrapFile: b.cfg.dumpFile}
}

// sourceNoun is what the files of source are of, in messages.
func sourceNoun(source string) string {
	if bucket.IsURL(source) {
		return "bucket"
	}
	return "" // a tree's, or an archive's as they always said
}

// dump is the Resource Dump of b (package dumps).
func (b *build) dump() *dumps.ResourceDump {
	return &dumps.ResourceDump{
		Packaging: b.packaging(),
		Stats:     b.stats, Spill: &b.spill,
		Prev: b.history.prev, Every: time.Duration(b.cfg.Changes.Archive.ResourceDumps), Keep: time.Duration(b.cfg.Changes.Archive.Keep), Copier: b.history.copier,
	}
}
