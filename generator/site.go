package generator

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"github.com/rsgen/rsgen/generator/internal/hostfiles"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/inputs/tree"
	"github.com/rsgen/rsgen/internal/published/previous"
)

// A Site is several resource sets published together into one output
// directory (ResourceSync 1.1, sections 8 and 9): one Source Description
// lists the Capability List of each set, and each set has its documents,
// its change history and its archives under resourcesync/<set>/.
// BuildSite publishes all of them or none.
type Site struct {
	Out         string  // the output directory
	DocsURL     BaseURL // where Out is served
	Describedby string  // optional URL describing the Source, linked from the Source Description

	// Sets are the builds of the sets, each named by its Set, in the order
	// the Source Description lists them. Out and DocsURL are the Site's:
	// left empty, they are set to it. Every set of a tree or an archive
	// reads the same previous build (Changes.Previous, Changes.HTTPOptions), or
	// none; a record export has a Change List of its own.
	Sets []Config

	// RemoveSets names the sets the previous build published that this
	// one may stop publishing, with their change history ("." is the one
	// set of a build without sets). Any other set the previous build
	// published and Sets lacks fails the build with a KindSetRemoved.
	RemoveSets []string

	// Hosts are the static hosts to write configuration for, as
	// Config.Hosts, for every set; Templates replace the built-in
	// templates of those files and of each set's pages.
	Hosts     []string
	Templates fs.FS

	DryRun bool // as Config.DryRun, for every set

	Stats  *report.Stats    // progress counters; may be nil
	Notice func(msg string) // non-fatal notices, of the site and of each set ("set <name>: …"); may be nil
}

// oneSet names, in Site.RemoveSets and Error.Sets, the one set of a
// build without sets, whose documents are in resourcesync/ itself.
const oneSet = "."

// A SiteReport is the outcome of a successful BuildSite.
type SiteReport struct {
	Sets      []*Report // of each set, in the order of Site.Sets
	Added     []string  // the sets the previous build did not publish
	Removed   []string  // the sets the previous build published, which are no longer published
	Documents int       // of every set, and the Source Description
	Elapsed   time.Duration
}

// setLabel names the set name for people.
func setLabel(name string) string {
	if name == oneSet {
		return "the one set of a build without sets (resourcesync/capabilitylist.xml)"
	}
	return fmt.Sprintf("the set %q", name)
}

// Validate checks s as BuildSite does before it starts: the Site's fields,
// each set's (as Config.Validate, with the field named "Sets[i].Field"),
// and how the sets combine. It returns nil or the *FieldErrors joined.
func (s Site) Validate() error {
	var errs []error
	add := func(e *FieldError) { errs = append(errs, e) }
	s.validateFields(add)
	names := s.validateSets(add)
	for _, r := range s.RemoveSets {
		switch _, ok := names[r]; {
		case r != oneSet && !previous.ValidSetName(r):
			add(&FieldError{Field: "RemoveSets", Value: r, Err: errInvalid, Detail: fmt.Sprintf("not the name of a set, nor %q (the one set of a build without sets)", oneSet)})
		case ok:
			add(&FieldError{Field: "RemoveSets", Value: r, Err: errConflict, With: "Sets", Detail: "the set is published by this build"})
		}
	}
	return errors.Join(errs...)
}

// validateFields checks the fields of s but its sets.
func (s *Site) validateFields(add func(*FieldError)) {
	if s.Out == "" {
		add(&FieldError{Field: "Out", Err: errRequired, Detail: "the directory to write the documents of every set into"})
	}
	if s.DocsURL.IsZero() {
		add(&FieldError{Field: "DocsURL", Err: errRequired, Detail: "the URL where the output directory is served"})
	}
	if d := s.Describedby; d != "" && !httpURL(d) {
		add(&FieldError{Field: "Describedby", Value: d, Err: errInvalid, Detail: "not an absolute http(s) URL"})
	}
	switch {
	case len(s.Sets) == 0:
		add(&FieldError{Field: "Sets", Err: errRequired, Detail: "at least one set"})
	case len(s.Sets) > rsxml.MaxEntries:
		add(&FieldError{Field: "Sets", Value: len(s.Sets), Err: errOutOfRange,
			Detail: fmt.Sprintf("give at most %d sets, the entries one Source Description may have", rsxml.MaxEntries)})
	}
	var bases []string
	for _, c := range s.Sets {
		bases = append(bases, c.BaseURL.String())
	}
	validateHosts(add, s.Hosts, s.DocsURL, bases...)
}

// validateSets checks each set of s, as Config.Validate does (the field
// named "Sets[i].Field"), and how they combine; it returns the index of
// each set by name.
func (s *Site) validateSets(add func(*FieldError)) map[string]int {
	names := map[string]int{}
	caches := map[string]int{}
	topics := map[string]string{} // explicit topic → the field that gives it
	stdin := -1
	history := s.historyOf()
	for i, c := range s.Sets {
		field := func(f string) string { return fmt.Sprintf("Sets[%d].%s", i, f) }
		switch j, dup := names[c.Set]; {
		case c.Set == "":
			add(&FieldError{Field: field("Set"), Err: errRequired, Detail: "the name of the set, which its documents' URLs take"})
		case dup:
			add(&FieldError{Field: field("Set"), Value: c.Set, Err: errSame, With: fmt.Sprintf("Sets[%d].Set", j), Detail: "each set needs a name of its own"})
		default:
			names[c.Set] = i
		}
		if c.Out != "" && c.Out != s.Out {
			add(&FieldError{Field: field("Out"), Value: c.Out, Err: errConflict, With: "Out", Detail: "every set is written into the Site's output directory"})
		}
		if !c.DocsURL.IsZero() && c.DocsURL != s.DocsURL {
			add(&FieldError{Field: field("DocsURL"), Value: c.DocsURL.String(), Err: errConflict, With: "DocsURL", Detail: "every set is served where the Site is"})
		}
		if len(c.Hosts) > 0 {
			add(&FieldError{Field: field("Hosts"), Err: errConflict, With: "Hosts", Detail: "the files for static hosts are written for the whole site"})
		}
		if c.Templates != nil {
			add(&FieldError{Field: field("Templates"), Err: errConflict, With: "Templates", Detail: "the templates are the whole site's"})
		}
		if c.Cache != "" {
			if j, dup := caches[c.Cache]; dup {
				add(&FieldError{Field: field("Cache"), Value: c.Cache, Err: errSame, With: fmt.Sprintf("Sets[%d].Cache", j), Detail: "each set needs a hash cache of its own"})
			}
			caches[c.Cache] = i
		}
		if c.Notification.Hub != "" {
			cc := c
			cc.DocsURL = s.DocsURL
			change, framework := cc.topics() // given, or the defaults under the set's documents
			for _, tf := range []struct{ field, topic string }{{"Notification.ChangeTopic", change}, {"Notification.FrameworkTopic", framework}} {
				if other, dup := topics[tf.topic]; dup && other != field(tf.field) {
					add(&FieldError{Field: field(tf.field), Value: tf.topic, Err: errSame, With: other, Detail: "each channel of each set needs a topic of its own"})
				}
				topics[tf.topic] = field(tf.field)
			}
		}
		if c.Export == "-" {
			if stdin >= 0 {
				add(&FieldError{Field: field("Export"), Value: c.Export, Err: errSame, With: fmt.Sprintf("Sets[%d].Export", stdin), Detail: "standard input can be read once"})
			}
			stdin = i
		}
		if j := history; c.Export == "" && j >= 0 && j != i && (c.Changes.Previous != s.Sets[j].Changes.Previous || c.Changes.HTTPOptions != s.Sets[j].Changes.HTTPOptions) {
			add(&FieldError{Field: field("Changes.Previous"), Value: c.Changes.Previous, Err: errConflict, With: fmt.Sprintf("Sets[%d].Changes.Previous", j),
				Detail: "every set reads the same previous build, the site's"})
		}
		c.Out, c.DocsURL = s.Out, s.DocsURL
		if err := c.Validate(); err != nil {
			for _, e := range FieldErrors(err) {
				e.Field = field(e.Field)
				if e.With != "" && e.With != "Sets" {
					e.With = field(e.With)
				}
				add(e)
			}
		}
	}
	return names
}

// historyOf returns the index of the first set of a tree or an archive,
// whose previous build is the site's, or -1 if every set is a record
// export.
func (s *Site) historyOf() int {
	for i := range s.Sets {
		if s.Sets[i].Export == "" {
			return i
		}
	}
	return -1
}

// FieldErrors returns the *FieldErrors in err, as Validate joins them (and
// as an error that wraps one holds it), in order.
func FieldErrors(err error) []*FieldError {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []*FieldError
		for _, e := range j.Unwrap() {
			out = append(out, FieldErrors(e)...)
		}
		return out
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		return []*FieldError{fe}
	}
	return nil
}

// BuildSite publishes the sets of site into site.Out in one publish: every
// set's documents and the Source Description that lists them are staged
// and checked together, and moved into place only when every set
// succeeded. A set that the previous build did not publish starts its
// history with this build (as with Changes.FirstBuildOK); one that it
// published and site lacks is refused unless site.RemoveSets names it.
func BuildSite(ctx context.Context, site Site) (_ *SiteReport, err error) {
	defer func() { err = classify(interrupted(ctx, err)) }()
	if err := site.Validate(); err != nil {
		return nil, err
	}
	return site.build(ctx)
}

// unnamed reports whether site is that of Build: one unnamed set, whose
// documents are in resourcesync/ itself, with no site of sets around it:
// its notices name no set, it reads the previous build as a set of its
// own, and its hosts' files and pages are its own.
func (site *Site) unnamed() bool { return len(site.Sets) == 1 && site.Sets[0].Set == "" }

// build publishes the sets of site, once checked.
func (site *Site) build(ctx context.Context) (*SiteReport, error) {
	start := time.Now()
	notice := site.Notice
	if notice == nil {
		notice = func(string) {}
	}
	stats := site.Stats
	if stats == nil {
		stats = new(report.Stats)
	}
	if err := hosting.CheckConflicts(site.Out, site.Hosts); err != nil {
		return nil, err
	}
	cfgs := site.configs(stats, notice)
	rep := &SiteReport{}
	if err := site.history(ctx, cfgs, rep, notice); err != nil {
		return nil, err
	}
	builds := make([]*build, len(cfgs))
	for i := range cfgs {
		var err error
		if builds[i], err = newBuild(&cfgs[i]); err != nil {
			return nil, setError(cfgs[i].Set, err)
		}
	}
	out, err := filepath.Abs(site.Out)
	if err != nil {
		return nil, marked(err, KindOutput)
	}
	if err := site.publish(ctx, builds, stats, notice, resolveExisting(out)); err != nil {
		return nil, err
	}
	for _, b := range builds {
		r := b.report(start)
		rep.Sets = append(rep.Sets, r)
		rep.Documents += r.Documents
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// part stages the pages of b, which published resources, and gathers its
// part of the site's files; out is the output directory, absolute, with
// links resolved. The one set of Build has its Source Description written
// first, whose size its landing page shows.
func (site *Site) part(b *build, resources *spill.ResourceSpool, out string) (*hostfiles.Part, error) {
	if site.unnamed() {
		if err := site.writeSourceDescription([]*build{b}); err != nil {
			return nil, err
		}
	}
	hs := &hostfiles.Set{
		Name: b.cfg.Set, Hosts: b.cfg.Hosts, Templates: b.cfg.Templates,
		BaseURL: b.cfg.BaseURL.base, DocsURL: b.cfg.DocsURL.base, Describedby: b.cfg.Describedby, Hashes: b.cfg.Hashes,
		At: b.at, Completed: b.done,
		Docs: b.docs, Stage: b.stage, Resources: resources, OutIsSource: b.outRel == "", FollowLinks: b.cfg.FollowSymlinks,
	}
	if b.export != nil { // a record export has no spool of resources: see package exports
		hs.Listed, hs.Bytes = b.export.Listed, b.export.Bytes
	}
	p, err := hs.Part(b.changeCounts())
	if err != nil || site.unnamed() || len(site.Hosts) == 0 {
		return p, err
	}
	if b.export != nil || b.cfg.Export != "" {
		p.Here = true // no file of its own to upload
		return p, nil
	}
	if b.root == "" || b.archive != nil || !tree.Within(out, b.root) { // an archive, or a tree elsewhere
		return p, nil
	}
	rel, _ := filepath.Rel(out, b.root)
	prefix := ""
	if rel = filepath.ToSlash(rel); rel != "." {
		prefix = rel + "/"
	}
	// Served where its place in the output directory says, or its files
	// would be uploaded under keys their URLs do not have.
	if b.cfg.BaseURL.String() != site.DocsURL.String()+uri.EscapePath(prefix) {
		return p, nil
	}
	p.Here = true
	if slices.Contains(site.Hosts, hosting.S3) {
		if p.Typed, err = hostfiles.TypedFiles(resources, prefix); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// configs are the Configs of the sets of site, each given what the
// site's are: its output, URL, counters, templates, notices (which name
// the set), and one snapshot time for every set that has none.
func (site *Site) configs(stats *report.Stats, notice func(string)) []Config {
	cfgs := slices.Clone(site.Sets)
	now := time.Now()
	for i := range cfgs {
		c := &cfgs[i]
		c.Out, c.DocsURL, c.Stats, c.Templates = site.Out, site.DocsURL, stats, site.Templates
		c.Notice = notice
		if name := c.Set; !site.unnamed() {
			c.Notice = func(msg string) { notice("set " + name + ": " + msg) }
		}
		if c.At.IsZero() { // one snapshot time for every set
			if c.now != nil {
				now = c.now()
			}
			c.At = now
		}
	}
	return cfgs
}

// latest is the latest snapshot time of builds: the site's.
func latest(builds []*build) time.Time {
	return slices.MaxFunc(builds, func(a, b *build) int { return a.at.Compare(b.at) }).at
}

// changeCounts are the changes b found since the previous build, nil
// without one.
func (b *build) changeCounts() *hosting.ChangeCounts {
	r := b.history.report
	if r == nil {
		return nil
	}
	return &hosting.ChangeCounts{Created: r.Created, Updated: r.Updated, Deleted: r.Deleted}
}

// history compares the sets of cfgs, those of site, with those the
// previous build (the site's: historyOf) published: it refuses to drop
// one that RemoveSets does not name, and has each new set start its
// history (Changes.FirstBuildOK). It reports both in rep. The one set of
// Build reads the previous build as its own (prepareHistory).
func (site *Site) history(ctx context.Context, cfgs []Config, rep *SiteReport, notice func(string)) error {
	history := site.historyOf()
	if site.unnamed() || history < 0 || cfgs[history].Changes.Previous == "" {
		return nil
	}
	ch := cfgs[history].Changes
	published, err := previous.Sets(ctx, ch.Previous, previous.Options{DocsURL: cfgs[history].DocsURL.String(), HTTP: ch.HTTPOptions})
	switch {
	case err != nil && ctx.Err() != nil:
		return context.Cause(ctx)
	case err != nil && ch.FirstBuildOK && errors.Is(err, previous.ErrNothingPublished):
		return nil // each set says so, as a first build
	case err != nil:
		return fmt.Errorf("%w: %w", errPrevious, err)
	}
	have := map[string]bool{}
	for i := range cfgs {
		have[cfgs[i].Set] = true
	}
	var refused []string
	for _, p := range published {
		if p == "" {
			p = oneSet
		}
		if have[p] {
			delete(have, p)
			continue
		}
		rep.Removed = append(rep.Removed, p)
		if !slices.Contains(site.RemoveSets, p) {
			refused = append(refused, p)
		}
	}
	if len(refused) > 0 {
		return setsRemoved(refused)
	}
	for _, r := range rep.Removed {
		notice(fmt.Sprintf("%s is no longer published, nor its change history", setLabel(r)))
	}
	for i := range cfgs {
		if c := &cfgs[i]; have[c.Set] {
			rep.Added = append(rep.Added, c.Set)
			// A first build of its own: nothing of it to read in the
			// previous build (Validate has checked the Config as given).
			c.Changes.Previous, c.Changes.FirstBuildOK, c.Changes.NewHistory, c.MaxDelete = "", false, false, nil
			notice(fmt.Sprintf("%s is new: publishing its first build, its change history starts", setLabel(c.Set)))
		}
	}
	return nil
}
