package generator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rsgen/rsgen/generator/internal/archives"
	"github.com/rsgen/rsgen/generator/internal/archivescan"
	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/dumps"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/confined"
	"github.com/rsgen/rsgen/internal/display"
	"github.com/rsgen/rsgen/internal/listwriter"
	"github.com/rsgen/rsgen/internal/rsxml"
	"github.com/rsgen/rsgen/internal/stage"
	"github.com/rsgen/rsgen/internal/tree"
	"github.com/rsgen/rsgen/zipdump"
)

// Config is what a build needs. The CLI fills it from flags; the zero
// values of the optional fields are the documented defaults. The toml tag
// of a field is its key in rsgen's configuration file and the name of its
// flag of rsgen build.
type Config struct {
	// Set names the resource set, when the build is one of several that
	// BuildSite publishes together: its documents are under
	// resourcesync/<Set>/. "" for the one set of Build.
	Set string

	Source  string  // directory to publish, or a .tar, .tar.gz, .tgz or .zip archive of one
	Out     string  `toml:"out"`      // output directory; Source if empty (required for an archive or an export)
	BaseURL BaseURL `toml:"base-url"` // where Source is served; relative locs of an export are joined to it
	DocsURL BaseURL `toml:"docs-url"` // where Out is served; BaseURL if zero

	// A record export is published instead of Source (package exports).
	Export         string        `toml:"export"`           // the export file; "-" for standard input
	ExportFormat   string        `toml:"export-format"`    // "jsonl" or "csv"; from the name of Export if empty
	ChangesWindow  time.Duration `toml:"changes-window"`   // trailing window of its Change List; DefaultChangesWindow if zero, none if negative
	SkipBadRecords bool          `toml:"skip-bad-records"` // publish without the bad records (exit status 3) rather than fail

	Hashes         hashing.Set `toml:"hash"` // DefaultSet if nil
	Filter         Filter
	FollowSymlinks bool `toml:"follow-symlinks"`
	Jobs           int  `toml:"jobs"` // hashing workers; hashing.DefaultWorkers() if zero
	Limits         Limits

	// At is the time of the snapshot; FixedTime says it was given (the
	// command line's --at or SOURCE_DATE_EPOCH), and then completed equals
	// it too, so that the same tree gives the same bytes.
	At        time.Time `toml:"at"`
	FixedTime bool

	Dump DumpConfig // the Resource Dump, if Dump.Enabled (section 11)

	Describedby string `toml:"describedby"` // optional URL describing the collection (section 8)
	FailFast    bool   `toml:"fail-fast"`   // a per-file problem fails the build

	// Notification channels advertised in the Capability List (notify.go).
	Notification Notification

	Changes Changes // Change Lists and Change Dump against the previous build (history.go)

	// Guards (guards.go): a source with nothing to publish fails with
	// an Error of KindEmptySource unless AllowEmpty; a build that deletes more of the
	// previous build's resources than MaxDelete (DefaultDeleteLimit if
	// nil) fails with KindMassDelete.
	AllowEmpty bool         `toml:"allow-empty"`
	MaxDelete  *DeleteLimit `toml:"max-delete"`
	Cache      string       `toml:"cache"` // hash cache file; "" for none

	Hosts     []string `toml:"host"` // static hosts to write configuration for (hosting.Hosts)
	Templates fs.FS    // templates of the host files and pages; the embedded ones if nil

	// DryRun does everything but publish: the documents are staged and
	// checked, the Report says what would be published, and the stage is
	// removed; the output directory is left as it was, and the hash cache
	// too.
	DryRun bool
	// Changed, if set, is called with each change the build publishes in
	// its Change Lists (none without a previous build), in their order,
	// once the documents are written: its kind (created, updated or
	// deleted) and the resource's URL.
	Changed func(change, loc string)

	Stats  *report.Stats    // progress counters; may be nil
	Notice func(msg string) // non-fatal notices (symbolic links not followed…); may be nil
	now    func() time.Time // the clock; time.Now if nil
	stdin  io.Reader        // the export "-"; os.Stdin if nil
	chunk  int              // memory of each sorter of an export; extsort.DefaultChunkBytes/2 if zero

	seams // for tests; none is set outside them
}

// seams let a test reach into a build, each through its own Config, so
// that tests may run in parallel.
type seams struct {
	listed      func(rel string)                // called with each file the walk will publish, before it is read
	createHook  func(name string) error         // called before each staged file is created; its error fails the creation
	readDir     func(rel string) error          // called with each directory the walk lists; its error replaces the listing
	beforeDump  func()                          // runs once the tree is hashed, before anything is packaged
	dumpFile    func(zipdump.File) zipdump.File // wraps each file the dump writes
	beforeCheck func(*stage.Stage)              // called with the stage before it is checked: output made invalid, as by a bug
	scanWindow  int                             // treescan.Scan.Window
	bigDir      int                             // treescan.Walk.BigDir
	sortMemory  int                             // spill.Area.SortMemory
	spooled     func() error                    // spill.Area.AfterAdd: its error is the spool's (a full disk)
	noLinks     bool                            // packages.Copier.NoLinks: carried packages copied, as from another file system
}

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

// build is the state of one run of Build.
type build struct {
	cfg      *Config
	root     string // Source, absolute with links resolved
	outRel   string // Out relative to root, slash-separated, or "" if outside it
	cacheRel string // the hash cache relative to root, slash-separated, or "" if outside it
	stage    *stage.Stage
	spill    spill.Area              // the spill files, in the stage
	fail     context.CancelCauseFunc // ends the build with an error, from any goroutine
	stats    *report.Stats
	problems report.Problems
	notice   func(string)
	unserved sync.Map     // DocsDir, stage.WellKnownFile of the source that owned left out for their URL (noticed after the scan)
	docs     *docs.Writer // the documents written, into the stage
	at       time.Time
	done     time.Time            // when the build completed (completed), once its lists are written
	history  history              // the previous build, the changes since, the hash cache
	archive  *archivescan.Archive // Source, when it is an archive
	export   *report.Export       // what a record export held, when one is published
}

// Build publishes the Resource List of cfg.Source and the documents that
// lead to it into cfg.Out. The output changes only if Build succeeds: all
// documents are staged first and moved into place together.
func Build(ctx context.Context, cfg Config) (*Report, error) {
	rep, err := buildOne(ctx, cfg)
	return rep, classify(interrupted(ctx, err))
}

// interrupted is the error of a build under ctx that failed with err:
// once ctx is cancelled, its cause, whatever err says. A build stopped
// from outside is reported as stopped, never as a fault of what it was
// reading or writing when it stopped (a previous build whose read was cut
// short, a file): no classification of err can make it another kind.
func interrupted(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

// buildOne is Build, but for what an interruption makes of its error.
func buildOne(ctx context.Context, cfg Config) (*Report, error) {
	start := time.Now()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Set != "" {
		return nil, &FieldError{Field: "Set", Value: cfg.Set, Err: errInvalid, Detail: "a resource set is built with the others of its site, by BuildSite"}
	}
	b, err := newBuild(&cfg)
	if err != nil {
		return nil, err
	}
	if err := checkHostFiles(&cfg); err != nil {
		return nil, err
	}
	builds := []*build{b}
	resources, _, err := publishSets(ctx, cfg.Out, cfg.DryRun, builds, b.stats, b.notice,
		func(_ int, b *build, resources *spill.ResourceSpool) error {
			if err := writeSourceDescription(b.stage, b.docs.SourceDescriptionURL(), cfg.Describedby, builds); err != nil {
				return err
			}
			return b.hostFiles(resources).Write(cfg.Out)
		}, nil)
	if err != nil {
		return nil, err
	}
	return b.report(resources[0], start), nil
}

// publishSets builds the sets of builds into one stage of out and
// publishes it, or with dryRun only checks it: each set's run and then
// set, the work of each set that needs its resources; then site, the
// work of the whole stage (nil for none); then the check. It returns the
// resources of each set and the files each found in its hash cache.
func publishSets(ctx context.Context, out string, dryRun bool, builds []*build, stats *report.Stats, notice func(string),
	set func(i int, b *build, resources *spill.ResourceSpool) error, site func(stg *stage.Stage) error) ([]*spill.ResourceSpool, []int64, error) {
	stg, err := stage.New(out, dryRun)
	if err != nil {
		return nil, nil, marked(err, KindOutput)
	}
	for _, n := range stg.Notices() {
		notice(n)
	}
	for _, b := range builds {
		b.attach(stg)
		defer func() { b.history.cache.Abort() }() // the new cache (opened by the scan, for a bucket), if the build fails before it is saved
	}
	resources := make([]*spill.ResourceSpool, len(builds))
	cached := make([]int64, len(builds)) // each set's files found in its hash cache: the counter is the site's
	err = func() error {
		for i, b := range builds {
			if b.cfg.Set != "" {
				stats.NextSet(b.cfg.Set) // the progress counts each set's files
			}
			before := stats.Cached.Load()
			r, err := b.execute(ctx, func(ctx context.Context) (*spill.ResourceSpool, error) {
				r, err := b.run(ctx)
				if err == nil {
					err = set(i, b, r)
				}
				return r, err
			})
			if err != nil && b.cfg.Set != "" {
				return setError(b.cfg.Set, err)
			}
			if err != nil {
				return err
			}
			resources[i], cached[i] = r, stats.Cached.Load()-before
		}
		if site != nil {
			if err := site(stg); err != nil {
				return err
			}
		}
		return checkStage(ctx, stg, builds, stats, notice)
	}()
	if err != nil {
		stg.Discard()
		return nil, nil, err
	}
	// The snapshot time may have moved since the stage was made: a second
	// after the previous build's (afterPrevious).
	stg.SetSnapshot(latest(builds))
	if dryRun {
		err = stg.Check()
		stg.Discard()
	} else if err = stg.Publish(); err != nil {
		stg.Discard()
	}
	if err != nil {
		return nil, nil, failed(KindOutput, "publishing into %s: %w", out, err)
	}
	for _, b := range builds {
		if !dryRun {
			b.history.cache.Commit()
		}
	}
	return resources, cached, nil
}

// attach has b write its documents into stg, in the directory of its set.
func (b *build) attach(stg *stage.Stage) {
	b.stage = stg
	b.stage.CreateHook = b.cfg.createHook
	b.spill.Stage = stg
	b.spill.SortMemory, b.spill.AfterAdd = b.cfg.sortMemory, b.cfg.spooled
	b.docs = &docs.Writer{Stage: stg, Base: b.cfg.DocsURL.String(), Dir: setDir(b.cfg.Set), Limits: listwriter.Limits(b.cfg.Limits)}
}

// execute runs steps, the work of b in its stage, under a context that
// b.fail and a first problem with FailFast end, and removes b's spill
// files. The build's own reasons to stop early (the first problem with
// FailFast, a previous build that cannot be read while the tree is
// scanned) beat the cancellation they caused.
func (b *build) execute(ctx context.Context, steps func(context.Context) (*spill.ResourceSpool, error)) (*spill.ResourceSpool, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	b.fail = cancel
	if b.cfg.FailFast {
		b.problems.FailFast = func(err error) {
			cancel(failed(KindFailFast, "stopped at the first file that could not be published: %w", err))
		}
	}
	resources, err := steps(ctx)
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
	return resources, nil
}

// report is the Report of b, which published resources (nil for a record
// export).
func (b *build) report(resources *spill.ResourceSpool, start time.Time) *Report {
	rep := &Report{Documents: b.docs.N, Problems: b.problems.Sorted(), Elapsed: time.Since(start),
		Cached: int(b.stats.Cached.Load()), Changes: b.history.report}
	if resources != nil {
		rep.Files, rep.Bytes = resources.Len(), resources.Bytes
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
	if cfg.Out == "" { // a directory tree, published in place (Validate)
		cfg.Out = cfg.Source
	}
	if cfg.DocsURL.IsZero() {
		cfg.DocsURL = cfg.BaseURL
	}
	if cfg.Hashes == nil {
		cfg.Hashes = hashing.DefaultSet
	}
	if cfg.Limits.MaxEntries == 0 {
		cfg.Limits.MaxEntries = rsxml.MaxEntries
	}
	if cfg.Limits.MaxBytes == 0 {
		cfg.Limits.MaxBytes = rsxml.MaxBytes
	}
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

// resolveExisting resolves the symbolic links of the longest part of path
// that exists: an output directory not yet created may still be inside a
// source reached through a link.
func resolveExisting(path string) string {
	var rest []string
	for p := path; ; p = filepath.Dir(p) {
		if resolved, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{resolved}, rest...)...)
		}
		if filepath.Dir(p) == p {
			return path
		}
		rest = append([]string{filepath.Base(p)}, rest...)
	}
}

// sourceRoot checks that source is a readable directory and returns it
// absolute, with symbolic links resolved.
func sourceRoot(source string) (string, error) {
	if source == "" {
		return "", errors.New("no source directory given")
	}
	abs, err := filepath.Abs(source)
	if err != nil {
		return "", err
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("source %s: %w", source, noSuch("directory"))
	}
	if err != nil {
		return "", fmt.Errorf("source %s: %w", source, display.WithoutPath(err))
	}
	st, err := os.Stat(resolved)
	if err != nil {
		return "", fmt.Errorf("source %s: %w", source, display.WithoutPath(err))
	}
	if !st.IsDir() {
		return "", fmt.Errorf("source %s is not a directory (nor a .tar, .tar.gz, .tgz or .zip archive)", source)
	}
	f, err := os.Open(resolved)
	if err != nil {
		return "", fmt.Errorf("source %s cannot be read: %w", source, display.WithoutPath(err))
	}
	f.Close()
	return resolved, nil
}

// noSuch says that a path given does not exist ("no such directory"), as
// errors.Is(err, fs.ErrNotExist) tells.
type noSuch string

func (n noSuch) Error() string        { return "no such " + string(n) }
func (n noSuch) Is(target error) bool { return target == fs.ErrNotExist }

// owned reports whether real, a path under the source with symbolic links
// resolved, is rsgen's own output (when the output is inside the source)
// or inside it, or the hash cache, or has the URL of rsgen's documents:
// never content. It says nothing itself: the walk that counts ahead asks
// it too, from its own goroutine (noticeUnserved says it once).
func (b *build) owned(real string) bool {
	if b.cacheRel != "" && (real == b.cacheRel || strings.HasPrefix(real, b.cacheRel+".tmp-")) {
		return true // the hash cache, and the file it is saved through
	}
	if b.outRel == "\x00" {
		// The output is elsewhere; served where the resources are, its
		// documents take these URLs (as for an archive: see publishes).
		if b.cfg.DocsURL == b.cfg.BaseURL && (real == docsDir || real == stage.WellKnownFile) {
			b.unserved.Store(real, true)
			return true
		}
		return false
	}
	r := real
	if b.outRel != "" {
		var ok bool
		if r, ok = strings.CutPrefix(real, b.outRel+"/"); !ok {
			return false
		}
	}
	first, _, _ := strings.Cut(r, "/")
	return first == docsDir || strings.HasPrefix(first, stagePrefix) ||
		r == stage.WellKnownFile || strings.HasPrefix(r, stage.WellKnownFile+"/") || hosting.IsRootFile(r)
}

// run writes the documents of b's set into the stage, up to its
// Capability List, and sets b.done; the caller writes the Source
// Description and the files for hosts.
func (b *build) run(ctx context.Context) (*spill.ResourceSpool, error) {
	if b.cfg.Export != "" {
		b.stats.Enter(report.PhaseScanning)
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
// was given, else the clock, but never before the snapshot time, which
// may be past the clock (afterPrevious).
func (b *build) completed() time.Time {
	if b.cfg.FixedTime {
		return b.at
	}
	if now := b.cfg.now().UTC().Truncate(time.Second); now.After(b.at) {
		return now
	}
	return b.at
}

// checkEmpty fails with KindEmptySource if a directory or archive gives
// no file to publish, unless that is allowed.
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

// writeResourceList writes the Resource List of the resources.
func (b *build) writeResourceList(ctx context.Context, resources *spill.ResourceSpool, completed time.Time) error {
	la := &archives.ResourceLists{Docs: b.docs, Prev: b.history.prev, Every: b.cfg.Changes.Archive.ResourceLists, Keep: b.cfg.Changes.Archive.Keep, At: b.at, Notice: b.notice}
	archive, err := la.Plan()
	if err != nil {
		return err
	}
	it, err := resources.Iter()
	if err != nil {
		return err
	}
	opt := b.docs.ResourceListOptions(b.at, completed)
	opt.Doc.Links = append(opt.Doc.Links, la.Link(archive)...)
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

// writeCapabilityList writes the Capability List (section 9): one entry per
// capability written by this build, linked up to the Source Description.
func (b *build) writeCapabilityList() error {
	doc := rsxml.Doc{
		MD:    rsxml.MD{Capability: rsxml.CapCapabilityList},
		Links: []rsxml.Link{{Rel: "up", Href: b.docs.SourceDescriptionURL()}},
	}
	if b.cfg.Describedby != "" {
		doc.Links = append(doc.Links, rsxml.Link{Rel: "describedby", Href: b.cfg.Describedby})
	}
	// In the order of the specification's examples: the core capabilities,
	// then their archives (ResourceSync Archives, example 2.1).
	caps := slices.Clone(b.docs.Caps)
	slices.SortStableFunc(caps, func(x, y rsxml.Entry) int {
		return cmp.Compare(capabilityRank(x.MD.Capability), capabilityRank(y.MD.Capability))
	})
	caps = append(caps, b.notificationEntries()...)
	return b.docs.Write("capabilitylist.xml", doc, 0, len(caps), func(i int, e *rsxml.Entry) { *e = caps[i] })
}

// capabilityOrder is the order of the capabilities in the Capability
// List; any other comes after them.
var capabilityOrder = []string{rsxml.CapResourceList, rsxml.CapResourceDump, rsxml.CapChangeList, rsxml.CapChangeDump,
	rsxml.CapResourceListArchive, rsxml.CapResourceDumpArchive, rsxml.CapChangeListArchive, rsxml.CapChangeDumpArchive}

// capabilityRank is the place of a capability in the Capability List.
func capabilityRank(capability string) int {
	if i := slices.Index(capabilityOrder, capability); i >= 0 {
		return i
	}
	return len(capabilityOrder)
}

// writeSourceDescription writes the Source Description (section 8) to
// /.well-known/resourcesync in stg, linked to describedby if it is not "",
// with the Capability List of each set, in the order given; it is counted
// among the documents of the first.
func writeSourceDescription(stg *stage.Stage, url, describedby string, sets []*build) error {
	doc := rsxml.Doc{MD: rsxml.MD{Capability: rsxml.CapDescription}}
	if describedby != "" {
		doc.Links = []rsxml.Link{{Rel: "describedby", Href: describedby}}
	}
	f, err := stg.Create(stage.WellKnownFile)
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
