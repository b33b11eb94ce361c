package generator

import (
	"context"

	"github.com/rsgen/rsgen/generator/internal/dumps"
	"github.com/rsgen/rsgen/generator/internal/exports"
	"github.com/rsgen/rsgen/internal/rsxml"
	"github.com/rsgen/rsgen/zipdump"
)

// A record export is published by package exports: the build gives it
// its settings, its document writer and the writers of the lists every
// source shares, and reads its report.

// DefaultChangesWindow is the trailing window of a record export's Change List.
const DefaultChangesWindow = exports.DefaultChangesWindow

// ExportReport says what a build from a record export found.
type ExportReport = exports.Report

// BadRecordsError fails a build from an export with bad records, unless
// SkipBadRecords is set. Nothing is published.
type BadRecordsError = exports.BadRecordsError

// DumpNeedsFilesError fails a build from a record export with a Resource
// Dump in which some listed record has no local file. Nothing is
// published.
type DumpNeedsFilesError = exports.DumpNeedsFilesError

// runExport publishes a record export: its Resource List, its Resource
// Dump and its Change List, then the Capability List.
func (b *build) runExport(ctx context.Context) error {
	rd := b.dump()
	var dump *dumps.Packed
	opt := exports.Options{
		Export: b.cfg.Export, Format: b.cfg.ExportFormat, Stdin: b.cfg.stdin, Window: b.cfg.ChangesWindow,
		SkipBadRecords: b.cfg.SkipBadRecords, FailFast: b.cfg.FailFast,
		Jobs: b.cfg.Jobs, Hashes: b.cfg.Hashes, At: b.at,
		SortDir: b.stage.Path(".sort"), Chunk: b.cfg.chunk,
		Docs: b.docs, Stats: b.stats, Problems: &b.problems,
		BeforeDump: func() { testHookBeforeDump() },
		ResourceList: func(n int, fill func(int, *rsxml.Entry)) error {
			return b.writeResources(b.resourceListOptions(b.done), n, fill)
		},
		Packed:       func(res *zipdump.Result) { dump = rd.Written(res) },
		ResourceDump: func(ctx context.Context) error { return rd.Write(ctx, dump) },
	}
	if !b.cfg.BaseURL.IsZero() {
		opt.Resolve = b.cfg.BaseURL.Resolve
	}
	if b.cfg.Dump.Enabled {
		d := rd.Options()
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
	if b.export.Records == 0 && !b.cfg.AllowEmpty {
		// An export that failed upstream (a dump piped into rsgen) looks
		// like this; publishing it would empty the Resource List.
		return emptySource("the record export " + b.export.Name + " holds no records")
	}
	b.done = b.completed()
	if err := src.Write(ctx); err != nil {
		return err
	}
	return b.writeCapabilityList()
}
