package generator

import (
	"context"
	"fmt"
	"time"

	"github.com/rsgen/rsgen/generator/internal/changelists"
	"github.com/rsgen/rsgen/generator/internal/dumps"
	"github.com/rsgen/rsgen/internal/text/units"
)

// publishChanges publishes the Change Lists, then the Change Dump if
// asked for, then the Change List Archive if asked for. The first build,
// without a previous one, publishes none: there is nothing to compare
// with.
func (b *build) publishChanges(ctx context.Context) error {
	if b.history.prev == nil {
		return nil
	}
	ch := &changelists.Lists{Docs: b.docs, Keep: time.Duration(b.cfg.Changes.Keep), ArchiveKeep: time.Duration(b.cfg.Changes.Archive.Keep), Limits: b.cfg.Limits.list(), At: b.at,
		Prev: b.history.prev, Changes: b.history.changes, Report: b.history.report, Notice: b.notice}
	from, err := ch.Publish(ctx)
	if err != nil {
		return err
	}
	if b.cfg.Changes.Dump {
		cd := &dumps.ChangeDump{Packaging: b.packaging(), Changes: b.history.changes, Prev: b.history.prev, Copier: b.history.copier,
			Keep: time.Duration(b.cfg.Changes.Keep), ArchiveKeep: time.Duration(b.cfg.Changes.Archive.Keep), Report: b.history.report}
		if err := cd.Write(ctx, from); err != nil {
			return err
		}
	} else if a := b.history.prev.ChangeDumpArchive; a != nil && len(a.Lists) > 0 { // dropped with the Change Dump (checkDumps)
		b.notice(fmt.Sprintf("the Change Dump Archive of the previous build (%s) is no longer published, with the Change Dump", units.Count(len(a.Lists), "Change Dump")))
	}
	return ch.WriteArchive(ctx)
}
