package generator

import (
	"context"
	"fmt"
	"time"

	"github.com/rsgen/rsgen/generator/internal/dumps"
	"github.com/rsgen/rsgen/generator/internal/exports"
)

// runExport publishes a record export (package exports): its Resource
// List, Resource Dump and Change List, then the Capability List.
func (b *build) runExport(ctx context.Context) error {
	opt := exports.Options{
		Export: b.cfg.Export, Format: b.cfg.ExportFormat, Stdin: b.cfg.stdin, Window: time.Duration(b.cfg.ChangesWindow),
		SkipBadRecords: b.cfg.SkipBadRecords, FailFast: b.cfg.FailFast,
		Jobs: b.cfg.Jobs, Hashes: b.cfg.Hashes, Base: b.cfg.BaseURL.base, At: b.at,
		SortDir: b.stage.Path(".sort"), Chunk: b.cfg.chunk,
		Docs: b.docs, Stats: b.stats, Problems: &b.problems,
		BeforeDump: b.cfg.beforeDump,
	}
	dump := b.dump()
	if b.cfg.Dump.Enabled {
		d := dump.Options()
		opt.Dump = &d
	}
	src, err := exports.Open(opt)
	if err != nil {
		return err
	}
	defer src.Close()
	b.export = src.Report()
	if err := src.Read(ctx); err != nil {
		return err
	}
	if !b.cfg.AllowEmpty {
		// An export that failed upstream (a dump piped into rsgen) looks
		// like this; publishing it would empty the Resource List.
		switch rep := b.export; {
		case rep.Records == 0:
			return b.emptySource("the record export " + rep.Name + " holds no records")
		case rep.Records == rep.Bad && b.cfg.SkipBadRecords:
			return b.emptySource(fmt.Sprintf("every record of the record export %s is bad (%d, skipped)", rep.Name, rep.Bad))
		}
	}
	b.done = b.completed()
	if err := src.Check(); err != nil {
		return err
	}
	res, err := src.PackDump(ctx) // before the lists: it may leave records out
	if err != nil {
		return err
	}
	var packed *dumps.Packed
	if res != nil {
		packed = dump.Written(res)
	}
	if err := src.WriteResourceList(b.done); err != nil {
		return err
	}
	if err := dump.Write(ctx, packed); err != nil {
		return err
	}
	if err := src.WriteChangeList(); err != nil {
		return err
	}
	return b.writeCapabilityList()
}
