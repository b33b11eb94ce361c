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
// directory (sections 8 and 9): one Source Description lists the
// Capability List of each set, whose documents, change history and
// archives are under resourcesync/<set>/. BuildSite publishes all or none.
type Site struct {
	Out         string  // the output directory
	DocsURL     BaseURL // where Out is served
	Describedby string  // optional URL describing the Source, linked from the Source Description

	// Sets are the sets, each named by its Set, in the order the Source
	// Description lists them; Out and DocsURL are the Site's. Every set of
	// a tree or an archive reads the same previous build, or none.
	Sets []Config

	// RemoveSets names the sets the previous build published that this
	// one may stop publishing ("." is the one set of a build without
	// sets); any other missing fails the build with a KindSetRemoved.
	RemoveSets []string

	Hosts     []string // as Config.Hosts, for the whole site
	Templates fs.FS    // as Config.Templates, for the whole site

	DryRun bool // as Config.DryRun, for every set

	Stats  *report.Stats    // progress counters; may be nil
	Notice func(msg string) // non-fatal notices, of the site and of each set ("set <name>: …"); may be nil
}

// oneSet names the one set of a build without sets in Site.RemoveSets
// and Error.Sets.
const oneSet = "."

// A SiteReport is the outcome of a successful BuildSite.
type SiteReport struct {
	Sets      []*Report // of each set, in the order of Site.Sets
	Added     []string  // the sets the previous build did not publish
	Removed   []string  // the sets the previous build published, which are no longer published
	Documents int       // of every set, and the Source Description
	Elapsed   time.Duration
}

func setLabel(name string) string {
	if name == oneSet {
		return "the one set of a build without sets (resourcesync/capabilitylist.xml)"
	}
	return fmt.Sprintf("the set %q", name)
}

// Validate checks s as BuildSite does before it starts: the Site's fields,
// each set's (as Config.Validate, the field named "Sets[i].Field"), and
// how the sets combine. It returns nil or the *FieldErrors joined.
func (s Site) Validate() error {
	var v validation
	v.check(
		rule{s.Out == "", "Out", nil, errRequired, "", "the directory to write the documents of every set into"},
		rule{s.DocsURL.IsZero(), "DocsURL", nil, errRequired, "", "the URL where the output directory is served"},
		rule{s.Describedby != "" && !httpURL(s.Describedby), "Describedby", s.Describedby, errInvalid, "", notHTTPURL},
	)
	v.first(
		rule{len(s.Sets) == 0, "Sets", nil, errRequired, "", "at least one set"},
		rule{len(s.Sets) > rsxml.MaxEntries, "Sets", len(s.Sets), errOutOfRange, "",
			fmt.Sprintf("give at most %d sets, the entries one Source Description may have", rsxml.MaxEntries)},
	)
	var bases []string
	for _, c := range s.Sets {
		bases = append(bases, c.BaseURL.String())
	}
	validateHosts(v.add, s.Hosts, s.DocsURL, bases...)
	names := s.validateSets(&v)
	for _, r := range s.RemoveSets {
		_, ok := names[r]
		v.first(
			rule{r != oneSet && !previous.ValidSetName(r), "RemoveSets", r, errInvalid, "",
				fmt.Sprintf("not the name of a set, nor %q (the one set of a build without sets)", oneSet)},
			rule{ok, "RemoveSets", r, errConflict, "Sets", "the set is published by this build"},
		)
	}
	return errors.Join(v...)
}

// validateSets checks each set of s and how they combine; it returns the
// index of each set by name.
func (s *Site) validateSets(v *validation) map[string]int {
	names, caches := map[string]int{}, map[string]int{}
	topics := map[string]string{} // explicit topic → the field that gives it
	stdin, history := -1, s.historyOf()
	for i, c := range s.Sets {
		field := func(f string) string { return setField(i, f) }
		j, dup := names[c.Set]
		k, dupCache := caches[c.Cache]
		v.first(
			rule{c.Set == "", field("Set"), nil, errRequired, "", "the name of the set, which its documents' URLs take"},
			rule{dup, field("Set"), c.Set, errSame, setField(j, "Set"), "each set needs a name of its own"},
		)
		if c.Set != "" && !dup {
			names[c.Set] = i
		}
		h := max(history, 0)
		v.check(
			rule{c.Out != "" && c.Out != s.Out, field("Out"), c.Out, errConflict, "Out", "every set is written into the Site's output directory"},
			rule{!c.DocsURL.IsZero() && c.DocsURL != s.DocsURL, field("DocsURL"), c.DocsURL.String(), errConflict, "DocsURL", "every set is served where the Site is"},
			rule{len(c.Hosts) > 0, field("Hosts"), nil, errConflict, "Hosts", "the files for static hosts are written for the whole site"},
			rule{c.Templates != nil, field("Templates"), nil, errConflict, "Templates", "the templates are the whole site's"},
			rule{c.Cache != "" && dupCache, field("Cache"), c.Cache, errSame, setField(k, "Cache"), "each set needs a hash cache of its own"},
		)
		if c.Cache != "" {
			caches[c.Cache] = i
		}
		if c.Notification.Hub != "" {
			cc := c
			cc.DocsURL = s.DocsURL
			change, framework := cc.topics() // given, or the defaults under the set's documents
			for _, tf := range []struct{ field, topic string }{{"Notification.ChangeTopic", change}, {"Notification.FrameworkTopic", framework}} {
				other, dup := topics[tf.topic]
				v.check(rule{dup && other != field(tf.field), field(tf.field), tf.topic, errSame, other, "each channel of each set needs a topic of its own"})
				topics[tf.topic] = field(tf.field)
			}
		}
		v.check(
			rule{c.Export == "-" && stdin >= 0, field("Export"), c.Export, errSame, setField(stdin, "Export"), "standard input can be read once"},
			rule{c.Export == "" && history >= 0 && history != i &&
				(c.Changes.Previous != s.Sets[h].Changes.Previous || c.Changes.HTTPOptions != s.Sets[h].Changes.HTTPOptions),
				field("Changes.Previous"), c.Changes.Previous, errConflict, setField(history, "Changes.Previous"), "every set reads the same previous build, the site's"},
		)
		if c.Export == "-" {
			stdin = i
		}
		c.Out, c.DocsURL = s.Out, s.DocsURL
		for _, e := range FieldErrors(c.Validate()) {
			e.Field = field(e.Field)
			if e.With != "" && e.With != "Sets" {
				e.With = field(e.With)
			}
			v.add(e)
		}
	}
	return names
}

func setField(i int, f string) string { return fmt.Sprintf("Sets[%d].%s", i, f) }

// historyOf returns the index of the first set that is not a record
// export, whose previous build is the site's, or -1.
func (s *Site) historyOf() int {
	for i := range s.Sets {
		if s.Sets[i].Export == "" {
			return i
		}
	}
	return -1
}

// FieldErrors returns the *FieldErrors in err, as Validate joins them.
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

// BuildSite publishes the sets of site into site.Out together: staged and
// checked together, moved into place only when every set succeeded. A set
// new since the previous build starts its history (as with
// Changes.FirstBuildOK); one gone is refused unless RemoveSets names it.
func BuildSite(ctx context.Context, site Site) (_ *SiteReport, err error) {
	defer func() { err = classify(interrupted(ctx, err)) }()
	if err := site.Validate(); err != nil {
		return nil, err
	}
	return site.build(ctx)
}

// unnamed reports whether site is that of Build: one unnamed set, whose
// documents are in resourcesync/ itself, whose notices name no set, and
// whose hosts' files and pages are its own.
func (site *Site) unnamed() bool { return len(site.Sets) == 1 && site.Sets[0].Set == "" }

func (site *Site) build(ctx context.Context) (*SiteReport, error) {
	start := time.Now()
	if site.Notice == nil {
		site.Notice = func(string) {}
	}
	if site.Stats == nil {
		site.Stats = new(report.Stats)
	}
	if err := hosting.CheckConflicts(site.Out, site.Hosts); err != nil {
		return nil, err
	}
	cfgs := site.configs()
	rep := &SiteReport{}
	if err := site.history(ctx, cfgs, rep); err != nil {
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
	if err := site.publish(ctx, builds, resolveExisting(out)); err != nil {
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

// part stages the pages of b and gathers its part of the site's files; out
// is the output directory, absolute. The one set of Build has its Source
// Description written first: its landing page shows its size.
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
	var counts *hosting.ChangeCounts
	if r := b.history.report; r != nil {
		counts = &hosting.ChangeCounts{Created: r.Created, Updated: r.Updated, Deleted: r.Deleted}
	}
	p, err := hs.Part(counts)
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
	// Served where its place in the output says, or its files would be
	// uploaded under keys their URLs do not have.
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

// configs are the Configs of the sets given the site's output, URL,
// counters, templates, notices (naming the set) and snapshot time.
func (site *Site) configs() []Config {
	cfgs := slices.Clone(site.Sets)
	now := time.Now()
	for i := range cfgs {
		c := &cfgs[i]
		c.Out, c.DocsURL, c.Stats, c.Templates, c.Notice = site.Out, site.DocsURL, site.Stats, site.Templates, site.Notice
		if name := c.Set; !site.unnamed() {
			c.Notice = func(msg string) { site.Notice("set " + name + ": " + msg) }
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

func latest(builds []*build) time.Time {
	return slices.MaxFunc(builds, func(a, b *build) int { return a.at.Compare(b.at) }).at
}

// history compares the sets with those the previous build published: it
// refuses to drop one RemoveSets does not name, has each new set start
// its history, and reports both in rep. The one set of Build reads the
// previous build as its own (prepareHistory).
func (site *Site) history(ctx context.Context, cfgs []Config, rep *SiteReport) error {
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
		site.Notice(fmt.Sprintf("%s is no longer published, nor its change history", setLabel(r)))
	}
	for i := range cfgs {
		if c := &cfgs[i]; have[c.Set] {
			rep.Added = append(rep.Added, c.Set)
			// a first build of its own (Validate checked the Config as given)
			c.Changes.Previous, c.Changes.FirstBuildOK, c.Changes.NewHistory, c.MaxDelete = "", false, false, nil
			site.Notice(fmt.Sprintf("%s is new: publishing its first build, its change history starts", setLabel(c.Set)))
		}
	}
	return nil
}
