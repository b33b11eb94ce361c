package generator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/rsgen/rsgen/generator/internal/archives"
	"github.com/rsgen/rsgen/generator/internal/archivescan"
	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/dumps"
	"github.com/rsgen/rsgen/generator/internal/hostfiles"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/inputs/tree"
	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/stage"
)

// Report is the outcome of a successful build.
type Report struct {
	Files     int
	Bytes     int64
	Documents int
	Problems  []report.Problem // files not published; the exit status is then 3
	Elapsed   time.Duration
	Cached    int                  // files found unchanged in the hash cache, not read
	Changes   *report.ChangeReport // nil without a previous build
	Export    *report.Export       // for a record export: Files counts the records listed
}

// build is the state of the build of one set.
type build struct {
	cfg      *Config
	root     string // Source, absolute with links resolved
	outRel   string // Out relative to root, slash-separated; "\x00" if outside it
	cacheRel string // the hash cache relative to root, slash-separated, or "" if outside it
	stage    *stage.Stage
	spill    spill.Area
	fail     context.CancelCauseFunc // ends the build with an error, from any goroutine
	stats    *report.Stats
	problems report.Problems
	notice   func(string)
	unserved sync.Map // rsgen's document names found in the source and left out (owned), noticed after the scan
	docs     *docs.Writer
	at       time.Time
	done     time.Time // when the build completed, once its lists are written
	history  history
	archive  *archivescan.Archive // Source, when it is an archive
	export   *report.Export       // what a record export held

	resources *spill.ResourceSpool // those published; nil for a record export
	cached    int64                // files found unchanged in the hash cache
}

// Build publishes the Resource List of cfg.Source and the documents that
// lead to it into cfg.Out; the output changes only if Build succeeds. It
// is a BuildSite of one unnamed set, whose documents are in resourcesync/
// itself: Out defaults to a tree's Source and DocsURL to BaseURL.
func Build(ctx context.Context, cfg Config) (_ *Report, err error) {
	defer func() { err = classify(interrupted(ctx, err)) }()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Set != "" {
		return nil, &FieldError{Field: "Set", Value: cfg.Set, Err: errInvalid, Detail: "a resource set is built with the others of its site, by BuildSite"}
	}
	site := Site{Out: cmp.Or(cfg.Out, cfg.Source), DocsURL: cfg.DocsURL, Describedby: cfg.Describedby, Sets: []Config{cfg},
		Hosts: cfg.Hosts, Templates: cfg.Templates, DryRun: cfg.DryRun, Stats: cfg.Stats, Notice: cfg.Notice}
	if site.DocsURL.IsZero() {
		site.DocsURL = cfg.BaseURL
	}
	rep, err := site.build(ctx)
	if err != nil {
		return nil, err
	}
	return rep.Sets[0], nil
}

// interrupted is the error of a build under ctx that failed with err: once
// ctx is cancelled, its cause, never a fault of what it was reading when
// it stopped.
func interrupted(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

// publish builds the sets of site into one stage and publishes it, or
// with DryRun only checks it; out is the output directory, absolute, with
// links resolved.
func (site *Site) publish(ctx context.Context, builds []*build, out string) error {
	stats, notice := site.Stats, site.Notice
	stg, err := stage.New(site.Out, site.DryRun)
	if err != nil {
		return marked(err, KindOutput)
	}
	for _, n := range stg.Notices() {
		notice(n)
	}
	for _, b := range builds {
		b.attach(stg)
		defer func() { b.history.cache.Abort() }() // a no-op once committed; b.history.cache may be set by the scan
	}
	parts := make([]*hostfiles.Part, len(builds))
	err = func() error {
		for i, b := range builds {
			if b.cfg.Set != "" {
				stats.NextSet(b.cfg.Set) // the progress counts each set's files
			}
			before := stats.Cached.Load()
			if parts[i], err = b.execute(ctx, site, out); err != nil {
				return setError(b.cfg.Set, err)
			}
			b.cached = stats.Cached.Load() - before // the counter is the site's
		}
		if !site.unnamed() {
			if err := site.writeSourceDescription(builds); err != nil {
				return err
			}
		}
		hs := &hostfiles.Site{Out: site.Out, DocsURL: site.DocsURL.base, Describedby: site.Describedby, Hosts: site.Hosts,
			Templates: site.Templates, At: latest(builds), Notice: notice}
		if err := hs.Write(stg, parts); err != nil {
			return err
		}
		return checkStage(ctx, stg, builds, stats, notice)
	}()
	if err != nil {
		stg.Discard()
		return err
	}
	// The snapshot time may have moved since the stage was made (afterPrevious).
	stg.SetSnapshot(latest(builds))
	if site.DryRun {
		err = stg.Check()
		stg.Discard()
	} else if err = stg.Publish(); err != nil {
		stg.Discard()
	}
	if err != nil {
		return failed(KindOutput, "publishing into %s: %w", site.Out, err)
	}
	for _, b := range builds {
		if !site.DryRun {
			b.history.cache.Commit()
		}
	}
	return nil
}

// attach has b write its documents into stg, in the directory of its set.
func (b *build) attach(stg *stage.Stage) {
	b.stage, b.spill.Stage = stg, stg
	stg.CreateHook, b.spill.AfterAdd = b.cfg.createHook, b.cfg.spooled
	b.docs = &docs.Writer{Stage: stg, Base: b.cfg.DocsURL.String(), Dir: setDir(b.cfg.Set), Limits: b.cfg.Limits.list()}
}

// execute runs b and stages its pages, under a context that b.fail and a
// first problem with FailFast end, and removes b's spill files. The
// build's own reasons to stop early beat the cancellation they caused.
func (b *build) execute(ctx context.Context, site *Site, out string) (*hostfiles.Part, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	b.fail = cancel
	if b.cfg.FailFast {
		b.problems.FailFast = func(err error) {
			cancel(failed(KindFailFast, "stopped at the first file that could not be published: %w", err))
		}
	}
	resources, err := b.run(ctx)
	var part *hostfiles.Part
	if err == nil {
		part, err = site.part(b, resources, out)
	}
	if err == nil {
		err = context.Cause(ctx) // a cancelled context beats a result that may be partial
	}
	if rerr := b.spill.Remove(); err == nil && rerr != nil { // before the check, and Publish, which would publish it
		err = fmt.Errorf("removing the spill files: %w", rerr)
	}
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && (kindOf(cause) == KindFailFast || errors.Is(cause, errPrevious) || errors.Is(cause, spill.ErrSpool)) {
			return nil, cause
		}
		return nil, err
	}
	b.resources = resources
	return part, nil
}

func (b *build) report(start time.Time) *Report {
	rep := &Report{Documents: b.docs.N, Problems: b.problems.Sorted(), Elapsed: time.Since(start),
		Cached: int(b.cached), Changes: b.history.report}
	if b.resources != nil {
		rep.Files, rep.Bytes = b.resources.Len(), b.resources.Bytes
	}
	if b.export != nil {
		rep.Files, rep.Bytes, rep.Export = b.export.Listed, b.export.Bytes, b.export
	}
	return rep
}

func newBuild(cfg *Config) (*build, error) {
	root, arch, err := sourceOf(cfg)
	if err != nil {
		return nil, marked(err, KindSource)
	}
	if cfg.Hashes == nil {
		cfg.Hashes = hashing.DefaultSet
	}
	cfg.Limits.MaxEntries = cmp.Or(cfg.Limits.MaxEntries, rsxml.MaxEntries)
	cfg.Limits.MaxBytes = cmp.Or(cfg.Limits.MaxBytes, rsxml.MaxBytes)
	if cfg.now == nil {
		cfg.now = time.Now
	}
	if cfg.At.IsZero() {
		cfg.At = cfg.now()
	}
	b := &build{cfg: cfg, root: root, archive: arch, stats: cfg.Stats, notice: cfg.Notice, at: cfg.At.UTC().Truncate(time.Second)}
	if b.stats == nil {
		b.stats = new(report.Stats)
	}
	if b.notice == nil {
		b.notice = func(string) {}
	}
	out, err := filepath.Abs(cfg.Out)
	if err != nil {
		return nil, err
	}
	out = resolveExisting(out)
	if docs := filepath.Join(out, docsDir); tree.Within(docs, root) {
		return nil, failed(KindOutput, "the source %s is inside %s, which rsgen replaces with its documents: choose another output directory", cfg.Source, docs)
	}
	if root != "" && tree.Within(root, out) {
		rel, _ := filepath.Rel(root, out)
		b.outRel = filepath.ToSlash(rel)
		if b.outRel == "." {
			b.outRel = ""
		}
	} else {
		b.outRel = "\x00" // never a prefix of a path
	}
	if cfg.Cache != "" && root != "" {
		if abs, err := filepath.Abs(cfg.Cache); err == nil {
			if abs = resolveExisting(abs); abs != root && tree.Within(root, abs) {
				rel, _ := filepath.Rel(root, abs)
				b.cacheRel = filepath.ToSlash(rel)
			}
		}
	}
	return b, nil
}

// run writes the documents of b's set into the stage, up to its
// Capability List.
func (b *build) run(ctx context.Context) (*spill.ResourceSpool, error) {
	if b.cfg.Export != "" {
		b.stats.Enter(report.PhaseReading)
		return nil, b.runExport(ctx) // its lists, then the same documents and files as below
	}
	if b.cfg.Changes.Previous != "" {
		b.stats.Enter(report.PhasePrevious)
	}
	if err := b.prepareHistory(ctx); err != nil {
		return nil, err
	}
	if b.history.prev != nil {
		if err := b.startJoin(ctx); err != nil {
			return nil, err
		}
	}
	b.stats.Enter(report.PhaseScanning)
	resources, err := b.scan(ctx)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	if err := b.checkEmpty(resources.Len()); err != nil {
		return nil, err
	}
	if resources, err = b.detectChanges(ctx, resources); err != nil {
		return nil, err
	}
	b.done = b.completed()
	dump := b.dump()
	var packed *dumps.Packed
	if b.cfg.Dump.Enabled { // before the Resource List: see ResourceDump.Pack
		if b.cfg.beforeDump != nil {
			b.cfg.beforeDump()
		}
		var dropped []string
		if resources, dropped, packed, err = dump.Pack(ctx, resources); err != nil {
			return nil, err
		}
		if j := b.history.join; j != nil { // the changes as the lists will have them
			if b.history.changes, err = j.Reconcile(b.history.changes, dropped); err != nil {
				return nil, err
			}
		}
	}
	b.stats.Enter(report.PhaseWriting)
	if err := b.checkEmpty(resources.Len()); err != nil { // the dump left out every file
		return nil, err
	}
	if err := b.writeResourceList(ctx, resources, b.done); err != nil {
		return nil, err
	}
	if err := dump.Write(ctx, packed); err != nil {
		return nil, err
	}
	if err := b.publishChanges(ctx); err != nil {
		return nil, err
	}
	if err := b.checkDeletes(resources.Len()); err != nil { // the changes as published
		return nil, err
	}
	if err := b.writeCapabilityList(); err != nil {
		return nil, err
	}
	if b.cfg.Changed != nil && b.history.changes != nil {
		if err := b.history.changes.Each(func(c *spill.Change) error { b.cfg.Changed(c.Change, c.Loc); return nil }); err != nil {
			return nil, err
		}
	}
	return resources, nil
}

// completed is the time the build completed: its snapshot time if that
// was given, else the clock, but never before the snapshot time
// (afterPrevious may have moved it past the clock).
func (b *build) completed() time.Time {
	if b.cfg.FixedTime {
		return b.at
	}
	if now := b.cfg.now().UTC().Truncate(time.Second); now.After(b.at) {
		return now
	}
	return b.at
}

func (b *build) checkEmpty(files int) error {
	if files > 0 || b.cfg.AllowEmpty {
		return nil
	}
	what := "the source " + b.cfg.Source
	if b.archive != nil {
		what = "the archive " + b.cfg.Source
	}
	what += " holds no file to publish"
	if n := b.problems.Len(); n > 0 {
		what += fmt.Sprintf(" (%d could not be read)", n)
	}
	return b.emptySource(what)
}

func (b *build) writeResourceList(ctx context.Context, resources *spill.ResourceSpool, completed time.Time) error {
	la := &archives.ResourceLists{Docs: b.docs, Prev: b.history.prev, Every: time.Duration(b.cfg.Changes.Archive.ResourceLists), Keep: time.Duration(b.cfg.Changes.Archive.Keep), At: b.at, Notice: b.notice}
	archive, err := la.Plan()
	if err != nil {
		return err
	}
	it, err := resources.Iter()
	if err != nil {
		return err
	}
	opt := b.docs.ResourceListOptions(b.at, completed)
	opt.Doc.Links = append(opt.Doc.Links, archive.Link()...)
	err = b.docs.WriteResourceList(opt, resources.Len(), it.Fill)
	if err = errors.Join(err, it.Err()); err != nil || archive == nil {
		return err
	}
	if archive.Fresh {
		if it, err = resources.Iter(); err != nil { // read again, for the archived copy
			return err
		}
	}
	err = la.Write(ctx, archive, b.docs.ResourceListOptions(b.at, completed), resources.Len(), it.Fill)
	return errors.Join(err, it.Err())
}

// writeCapabilityList writes the Capability List (section 9).
func (b *build) writeCapabilityList() error {
	doc := rsxml.Doc{
		MD:    rsxml.MD{Capability: rsxml.CapCapabilityList},
		Links: []rsxml.Link{{Rel: "up", Href: b.docs.SourceDescriptionURL()}},
	}
	if b.cfg.Describedby != "" {
		doc.Links = append(doc.Links, rsxml.Link{Rel: "describedby", Href: b.cfg.Describedby})
	}
	// In the order of the spec's examples: the core capabilities, then
	// their archives (ResourceSync Archives, example 2.1).
	rank := func(e rsxml.Entry) int { return slices.Index(capabilityOrder, e.MD.Capability) }
	caps := slices.Clone(b.docs.Caps)
	slices.SortStableFunc(caps, func(x, y rsxml.Entry) int { return cmp.Compare(rank(x), rank(y)) })
	caps = append(caps, b.notificationEntries()...)
	return b.docs.Write("capabilitylist.xml", doc, 0, len(caps), func(i int, e *rsxml.Entry) { *e = caps[i] })
}

var capabilityOrder = []string{rsxml.CapResourceList, rsxml.CapResourceDump, rsxml.CapChangeList, rsxml.CapChangeDump,
	rsxml.CapResourceListArchive, rsxml.CapResourceDumpArchive, rsxml.CapChangeListArchive, rsxml.CapChangeDumpArchive}

// writeSourceDescription writes the Source Description (section 8) with
// the Capability List of each of sets; it counts among the first's
// documents.
func (site *Site) writeSourceDescription(sets []*build) error {
	doc := rsxml.Doc{MD: rsxml.MD{Capability: rsxml.CapDescription}}
	if site.Describedby != "" {
		doc.Links = []rsxml.Link{{Rel: "describedby", Href: site.Describedby}}
	}
	f, err := sets[0].stage.Create(stage.WellKnownFile)
	if err != nil {
		return fmt.Errorf("writing the Source Description: %w", err)
	}
	w := rsxml.NewWriter(f, doc)
	for _, b := range sets {
		e := rsxml.Entry{Loc: b.docs.CapabilityListURL(), MD: rsxml.MD{Capability: rsxml.CapCapabilityList}}
		if b.cfg.Describedby != "" && b.cfg.Set != "" { // a set's; that of a build without sets links the document
			e.Links = []rsxml.Link{{Rel: "describedby", Href: b.cfg.Describedby}}
		}
		if err := w.Add(&e); err != nil {
			break
		}
	}
	if err := confined.CloseAfter(f, w.Close()); err != nil {
		return fmt.Errorf("writing the Source Description: %w", err)
	}
	sets[0].docs.N++
	return nil
}
