package generator

import (
	"context"
	"fmt"

	"github.com/rsgen/rsgen/generator/internal/bucketscan"
	"github.com/rsgen/rsgen/generator/internal/detect"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/internal/treescan"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/text/display"
	"github.com/rsgen/rsgen/internal/text/units"
)

// startJoin starts spooling the previous build's entries beside the scan,
// for the join with them; a failure cancels the build.
func (b *build) startJoin(ctx context.Context) error {
	prev := b.history.prev
	entries, err := detect.SpoolPrevious(ctx, prev, b.cfg.BaseURL.base, &b.spill, b.fail)
	if err != nil {
		return err
	}
	j := &detect.Join{Previous: entries, Since: prev.At, At: b.at, Hashes: b.cfg.Hashes, Jobs: b.cfg.Jobs,
		Spill: &b.spill, Problems: &b.problems, Report: b.history.report, Notice: b.notice}
	if b.archive == nil && !bucketscan.IsSource(b.cfg.Source) {
		j.ReadAgain = treescan.Tree{Root: b.root, Follow: b.cfg.FollowSymlinks}.Job
	}
	b.history.join = j
	return nil
}

// detectChanges joins the scanned resources with the previous build's and
// returns them with the lastmods the join gives them.
func (b *build) detectChanges(ctx context.Context, resources *spill.ResourceSpool) (*spill.ResourceSpool, error) {
	j := b.history.join
	if j == nil {
		return resources, nil
	}
	out, changes, err := j.Run(ctx, resources)
	if err != nil {
		return nil, err
	}
	b.history.changes = changes
	if changes.Len() > 0 && !j.Since.Before(b.at) {
		return nil, failed(KindSnapshotTime, "%w: the previous build's snapshot time %s is this build's too, yet %s changed: a Change List needs a later snapshot time",
			errPrevious, rsxml.FormatTime(j.Since), units.Count(changes.Len(), "resource"))
	}
	return out, b.checkDeletes(out.Len()) // before the dumps are packed; again once they are (run)
}

// keepUnread keeps the previous build's entries of what the scan could
// not read (reported as problems already). A Resource Dump must package
// every resource, and these cannot be read: with one, the build fails.
func (b *build) keepUnread(ctx context.Context, found *spill.ResourceSpool, unread report.Unread) (*spill.ResourceSpool, error) {
	if b.history.join == nil {
		return found, nil
	}
	out, kept, err := b.history.join.KeepUnread(ctx, found, unread)
	if err != nil || kept.N == 0 {
		return out, err
	}
	if b.cfg.Dump.Enabled {
		out.Close()
		return nil, fmt.Errorf("%s published by the previous build could not be read (%s, …): the Resource Dump cannot package them, and leaving them out would announce them as deleted; publish again once they can be read",
			units.Count(kept.N, "resource"), display.Name(kept.First))
	}
	b.notice(fmt.Sprintf("%s that could not be read %s of the previous build, unchanged", units.Count(kept.N, "resource"), units.Plural(kept.N, "keeps its entry", "keep their entries")))
	return out, nil
}
