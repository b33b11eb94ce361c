package generator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rsgen/rsgen/generator/internal/bucketscan"
	"github.com/rsgen/rsgen/generator/internal/changelists"
	"github.com/rsgen/rsgen/generator/internal/detect"
	"github.com/rsgen/rsgen/generator/internal/dumps"
	"github.com/rsgen/rsgen/generator/internal/packages"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/internal/treescan"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/text/display"
	"github.com/rsgen/rsgen/internal/text/units"
)

// Changes configures what a build carries across builds: the Change Lists
// and Change Dump against the previous build, read back from where it was
// published.
type Changes struct {
	Previous string         `toml:"previous"`     // the previous build's output directory or URL; "" publishes no Change List
	Keep     units.Duration `toml:"changes-keep"` // Change Lists (and Change Dump packages) ending before the snapshot time minus Keep are dropped
	Dump     bool           `toml:"change-dump"`  // a Change Dump beside the Change Lists
	previous.HTTPOptions
	// FirstBuildOK makes a Previous where nothing is published yet (no
	// Source Description, HTTP 404 or 410) a first build rather than a
	// failure, so that CI can run the same command line from the start.
	FirstBuildOK bool `toml:"first-build-ok"`
	// NewHistory lets a previous build published at another DocsURL start
	// a new change history (a first build) instead of failing with
	// KindOtherSite.
	NewHistory bool `toml:"new-history"`
	Archive
	// Drop names, by capability, what the previous build published that
	// this one may stop publishing instead of failing with KindDropped:
	// "resourcedump", "changedump", "resourcelist-archive",
	// "resourcedump-archive", and "changelist-archive" (every archive).
	Drop []string `toml:"-"`
}

// Archive configures the ResourceSync Archives of a build.
type Archive struct {
	// Keep, if more than 0, publishes a Change List Archive (section 5 of
	// ResourceSync Archives): each build's changes are also written as
	// closed Change Lists under resourcesync/archive/, kept until they end
	// before the snapshot time minus Keep, which is not less than
	// Changes.Keep.
	Keep units.Duration `toml:"archive-keep"`
	// ResourceLists, with Keep, archives the Resource List (section 3)
	// when the newest archived one is at least this old.
	ResourceLists units.Duration `toml:"archive-resource-lists"`
	// ResourceDumps, with Keep and Dump.Enabled, archives the Resource
	// Dump and its packages alike (section 4).
	ResourceDumps units.Duration `toml:"archive-resource-dumps"`
}

func (ch *Changes) drops(capability string) bool { return slices.Contains(ch.Drop, capability) }

// history is the state of a build that depends on earlier builds.
type history struct {
	prev    *previous.Site
	copier  *packages.Copier // publishes its packages again
	changes *spill.ChangeSet // chronological; nil without a previous build
	report  *report.ChangeReport
	cache   *treescan.Cache // nil without Config.Cache
	join    *detect.Join    // the join with the previous build's resources; nil without one
}

// prepareHistory reads the previous build and loads the hash cache, before
// anything is scanned.
func (b *build) prepareHistory(ctx context.Context) error {
	switch {
	case b.cfg.Cache != "" && bucketscan.IsSource(b.cfg.Source): // opened by scanBucket
	case b.cfg.Cache != "" && b.archive != nil:
		b.notice("the hash cache is for a directory tree: an archive is read whole every time")
	case b.cfg.Cache != "":
		b.history.cache = treescan.OpenCache(b.cfg.Cache, b.root, b.cfg.now(), b.notice, b.root, b.cfg.Out)
	}
	src := b.cfg.Changes.Previous
	if src == "" {
		return nil
	}
	var at time.Time // without a fixed time, afterPrevious moves b.at past the previous build's
	if b.cfg.FixedTime {
		at = b.at
	}
	site, err := previous.Read(ctx, src, previous.Options{At: at, DocsURL: b.cfg.DocsURL.String(), Set: b.cfg.Set, HTTP: b.cfg.Changes.HTTPOptions,
		Notice: func(msg string) { b.notice("the previous build: " + msg) }})
	if err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if b.cfg.Changes.FirstBuildOK && errors.Is(err, previous.ErrNothingPublished) {
			b.notice(fmt.Sprintf("the previous build: %v: publishing a first build, with no Change List yet", err))
			return nil
		}
		return fmt.Errorf("%w: %w", errPrevious, err)
	}
	if site.DocsBase != b.cfg.DocsURL.String() {
		if !b.cfg.Changes.NewHistory {
			e := failed(KindOtherSite, "%w: the previous build was published at %s, this build at %s: its change history is not this site's", errPrevious, site.DocsBase, b.cfg.DocsURL)
			e.URL = b.cfg.DocsURL.String()
			return e
		}
		b.notice(fmt.Sprintf("the previous build was published at %s, this build at %s: starting a new change history, with no Change List yet",
			site.DocsBase, b.cfg.DocsURL))
		return nil
	}
	if b.cfg.Changes.NewHistory {
		b.notice("the previous build was published at the same URLs as this build: its change history continues")
	}
	if !b.cfg.FixedTime {
		if err := b.afterPrevious(site.At); err != nil {
			return err
		}
	}
	b.history.prev = site
	b.history.copier = &packages.Copier{Docs: b.docs, Prev: site, NoLinks: b.cfg.noLinks}
	b.history.report = &report.ChangeReport{Since: site.At}
	return b.checkDumps()
}

// publishChanges publishes the Change Lists, the Change Dump and the
// Change List Archive, as asked for, once there is a previous build.
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
