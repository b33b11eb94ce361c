package generator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rsgen/rsgen/generator/internal/bucketscan"
	"github.com/rsgen/rsgen/generator/internal/detect"
	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/packages"
	"github.com/rsgen/rsgen/generator/internal/report"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/internal/treescan"
	"github.com/rsgen/rsgen/internal/bucket"
	"github.com/rsgen/rsgen/internal/previous"
)

// defaultChangesKeep is how long Change Lists are kept by default: 30
// days, the window publishers commonly offer.
const defaultChangesKeep = 30 * 24 * time.Hour

// Changes configures what a build carries across builds: the Change Lists
// and Change Dump made by comparing with the previous build, which is read
// back from where it was published.
type Changes struct {
	// Previous is the output directory of the previous build, or the URL
	// where it is served; "" publishes no Change List.
	Previous string `toml:"previous"`
	// Keep is how long Change Lists (and Change Dump packages) are kept:
	// those that end before the snapshot time minus Keep are dropped.
	Keep time.Duration `toml:"changes-keep"`
	// Dump publishes a Change Dump beside the Change Lists.
	Dump bool `toml:"change-dump"`
	// HTTP tunes how Previous is fetched when it is a URL.
	HTTP previous.HTTPOptions
	// FirstBuildOK makes a Previous where nothing is published yet (no
	// Source Description: no such directory or file, HTTP 404 or 410) a
	// first build rather than a failure, so that CI can run the same
	// command line from the first deploy on.
	FirstBuildOK bool `toml:"first-build-ok"`
	// NewHistory lets a previous build published for other URLs (its
	// documents at another DocsURL) start a new change history: this
	// build is then published as a first build, with no Change List, and
	// nothing of the previous one is carried forward. Without it such a
	// build fails with an *OtherSiteError.
	NewHistory bool `toml:"new-history"`
	// ArchiveKeep, if more than 0, publishes a Change List Archive
	// (ResourceSync Archives, section 5) beside the Change Lists: each
	// build's changes are also written as closed Change Lists under
	// resourcesync/archive/, carried forward from Previous until they end
	// before the snapshot time minus ArchiveKeep. It may not be less than
	// Keep: the archive keeps what the Change Lists drop.
	ArchiveKeep time.Duration `toml:"archive-keep"`
	// ArchiveResourceLists, with ArchiveKeep, publishes a Resource List
	// Archive too (ResourceSync Archives, section 3): the Resource List is
	// also written under resourcesync/archive/ when the newest one
	// archived was taken at least ArchiveResourceLists before (every build
	// if it is that short), and kept for ArchiveKeep. 0 publishes none.
	ArchiveResourceLists time.Duration `toml:"archive-resource-lists"`
	// ArchiveResourceDumps, with ArchiveKeep and Dump.Enabled, publishes a
	// Resource Dump Archive (ResourceSync Archives, section 4): the
	// Resource Dump is also published under resourcesync/archive/, its
	// packages with it, when the newest one archived was taken at least
	// ArchiveResourceDumps before, and kept for ArchiveKeep. 0 publishes
	// none. Each archived dump keeps a whole copy of the collection.
	ArchiveResourceDumps time.Duration `toml:"archive-resource-dumps"`
	// DropResourceDumpArchive lets a build no longer publish the Resource
	// Dump Archive the previous build published (ArchiveResourceDumps 0).
	DropResourceDumpArchive bool
	// DropResourceListArchive lets a build no longer publish the Resource
	// List Archive the previous build published (ArchiveResourceLists 0),
	// while it keeps its other archives; DropArchive drops them all.
	DropResourceListArchive bool
	// DropArchive lets a build no longer publish the Change List Archive
	// the previous build published (ArchiveKeep 0); without it such a
	// build fails with an *ArchiveDroppedError.
	DropArchive bool
	// DropResourceDump and DropChangeDump let a build no longer publish
	// the Resource Dump or Change Dump that the previous build published;
	// without them it fails with a *DumpDroppedError.
	DropResourceDump, DropChangeDump bool
}

// A ChangeReport says what changed since the previous build, and what
// was published of it (package report).
type ChangeReport = report.ChangeReport

// history is the state of a build that depends on earlier builds: the
// previous build, the changes since, and the hash cache.
type history struct {
	prev    *previous.Site
	copier  *packages.Copier // publishes its packages again
	changes *spill.ChangeSet // chronological; nil without a previous build
	report  *ChangeReport
	cache   *treescan.Cache // nil without Config.Cache
	// bucketCache is the hash cache of a bucket as the source: nil
	// without Config.Cache.
	bucketCache *bucketscan.Cache
	join        *detect.Join // the join with the previous build's resources; nil without one
}

// A Change is one entry of a Change List (section 12.1): what happened to
// a resource, and when.
type Change = spill.Change

// ErrPrevious wraps every failure to read the previous build; its message
// says what went wrong (unreachable, not ResourceSync, later than this
// build, published again meanwhile, too slow to fetch).
var ErrPrevious = docs.ErrPrevious

// A PreviousArchiveError is an ErrPrevious of a document of an archive of
// the previous build, which cannot be published again: a build that drops
// that archive (its Drop field) can go on with the rest of the history.
type PreviousArchiveError = docs.ArchiveError

// prepareHistory reads the previous build and loads the hash cache, before
// anything is scanned: a previous build that cannot be used fails the
// build at once.
func (b *build) prepareHistory(ctx context.Context) error {
	switch {
	case b.cfg.Cache != "" && bucket.IsURL(b.cfg.Source): // opened by scanBucket
	case b.cfg.Cache != "" && b.archive != nil:
		b.notice("the hash cache is for a directory tree: an archive is read whole every time")
	case b.cfg.Cache != "":
		b.history.cache = treescan.OpenCache(b.cfg.Cache, b.root, b.cfg.now(), b.notice)
	}
	src := b.cfg.Changes.Previous
	if src == "" {
		return nil
	}
	var at time.Time // without a fixed time, afterPrevious moves b.at past the previous build's
	if b.cfg.FixedTime {
		at = b.at
	}
	site, err := previous.Read(ctx, src, previous.Options{
		Stream:  true, // the entries are read by detectChanges, as they are joined
		At:      at,
		DocsURL: b.cfg.DocsURL.String(),
		Set:     b.cfg.Set,
		HTTP:    b.cfg.Changes.HTTP,
		Notice:  func(msg string) { b.notice("the previous build: " + msg) },
	})
	if err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if b.cfg.Changes.FirstBuildOK && errors.Is(err, previous.ErrNothingPublished) {
			b.notice(fmt.Sprintf("the previous build: %v: publishing a first build, with no Change List yet", err))
			return nil
		}
		return fmt.Errorf("%w: %w", ErrPrevious, err)
	}
	if site.DocsBase != b.cfg.DocsURL.String() {
		if !b.cfg.Changes.NewHistory {
			return fmt.Errorf("%w: %w", ErrPrevious, &OtherSiteError{Previous: site.DocsBase, This: b.cfg.DocsURL.String()})
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
	b.history.report = &ChangeReport{Since: site.At}
	return b.checkDumps()
}
