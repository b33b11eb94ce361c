package generator

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/rsgen/rsgen/generator/internal/archivescan"
	"github.com/rsgen/rsgen/generator/internal/bucketscan"
	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/inputs/bucket"
	"github.com/rsgen/rsgen/internal/inputs/records"
	"github.com/rsgen/rsgen/internal/inputs/tree"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/hashcache"
	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/internal/text/units"
	"github.com/rsgen/rsgen/zipdump"
)

// Config is what a build needs; the zero values of the optional fields
// are the documented defaults. The toml tag of a field is its key in the
// configuration file and the name of its flag of rsgen build.
type Config struct {
	Set string `toml:"name"` // the resource set, under resourcesync/<Set>/ (BuildSite); "" for Build

	Source  string  `toml:"source"`   // directory to publish, or a .tar, .tar.gz, .tgz or .zip archive of one
	Out     string  `toml:"out"`      // output directory; Source if empty (required for an archive or an export)
	BaseURL BaseURL `toml:"base-url"` // where Source is served; relative locs of an export are joined to it
	DocsURL BaseURL `toml:"docs-url"` // where Out is served; BaseURL if zero

	Export         string         `toml:"export"`           // a record export, published instead of Source; "-" for standard input
	ExportFormat   string         `toml:"export-format"`    // "jsonl" or "csv"; from the name of Export if empty
	ChangesWindow  units.Duration `toml:"changes-window"`   // trailing window of its Change List; DefaultChangesWindow if zero, none if negative
	SkipBadRecords bool           `toml:"skip-bad-records"` // publish without the bad records (exit status 3) rather than fail

	Hashes hashing.Set `toml:"hash"` // DefaultSet if nil
	Filter
	FollowSymlinks bool `toml:"follow-symlinks"`
	Jobs           int  `toml:"jobs"` // hashing workers; hashing.DefaultWorkers() if zero
	Limits

	// At is the time of the snapshot; FixedTime says it was given, and
	// then completed equals it too: the same tree gives the same bytes.
	At        time.Time `toml:"at"`
	FixedTime bool      `toml:"-"`

	Dump // the Resource Dump, if Dump.Enabled (section 11)

	Describedby string `toml:"describedby"` // optional URL describing the collection (section 8)
	FailFast    bool   `toml:"fail-fast"`   // a per-file problem fails the build

	Notification

	Changes // Change Lists and Change Dump against the previous build (history.go)

	// Guards: an empty source fails with KindEmptySource unless
	// AllowEmpty; deleting more than MaxDelete (DefaultDeleteLimit if nil)
	// fails with KindMassDelete.
	AllowEmpty bool         `toml:"allow-empty"`
	MaxDelete  *DeleteLimit `toml:"max-delete"`
	Cache      string       `toml:"cache"` // hash cache file; "" for none
	// Digests, with a bucket as the source, is the manifest.json of the
	// completion report of an S3 Batch Operations Compute checksum job
	// (docs/BUCKETS.md). DigestsJob is a file to write the manifest of such
	// a job into, for the objects lacking a digest; the build then fails.
	Digests    string `toml:"digests"`
	DigestsJob string `toml:"digests-job"`

	Hosts     units.List `toml:"host"` // static hosts to write configuration for (hosting.Hosts)
	Templates fs.FS      `toml:"-"`    // templates of the host files and pages; the embedded ones if nil

	// DryRun stages and checks the documents, and removes the stage: the
	// output directory and the hash cache are left as they were.
	DryRun bool `toml:"-"`
	// Changed, if set, is called with each change the Change Lists
	// publish, in their order: its kind and the resource's URL.
	Changed func(change, loc string) `toml:"-"`

	Stats  *report.Stats    `toml:"-"` // progress counters; may be nil
	Notice func(msg string) `toml:"-"` // non-fatal notices (symbolic links not followed…); may be nil
	now    func() time.Time // the clock; time.Now if nil
	stdin  io.Reader        // the export "-"; os.Stdin if nil
	chunk  int              // memory of each sorter of an export; extsort.DefaultChunkBytes/2 if zero

	seams // for tests; none is set outside them
}

// seams let a test reach into a build through its own Config.
type seams struct {
	listed      func(rel string)                // called with each file the walk will publish, before it is read
	createHook  func(name string) error         // called before each staged file is created; its error fails the creation
	readDir     func(rel string) error          // called with each directory the walk lists; its error replaces the listing
	beforeDump  func()                          // runs once the tree is hashed, before anything is packaged
	dumpFile    func(zipdump.File) zipdump.File // wraps each file the dump writes
	beforeCheck func(*stage.Stage)              // called with the stage before it is checked: output made invalid, as by a bug
	scanWindow  int                             // treescan.Scan.Window
	bigDir      int                             // treescan.Walk.BigDir
	spooled     func() error                    // spill.Area.AfterAdd: its error is the spool's (a full disk)
	noLinks     bool                            // packages.Copier.NoLinks: carried packages copied, as from another file system
}

// The kinds of a *FieldError (FieldError.Err).
var (
	errRequired   = errors.New("is required")
	errOutOfRange = errors.New("is out of range")
	errInvalid    = errors.New("is not valid") // malformed: a URL, a pattern, a name
	errNeeds      = errors.New("needs")
	errConflict   = errors.New("does not apply with")
	errSame       = errors.New("is the same as")
	errShorter    = errors.New("is shorter than")
)

const (
	maxJobs     = 1024
	minMaxBytes = 4096         // a document must hold its header and at least one entry
	maxEpoch    = 253402300799 // 9999-12-31T23:59:59Z: a W3C Datetime has four digits of year
)

// A FieldError is what Config.Validate finds wrong with one field. A
// program that names fields its own way (a command line, by its flags)
// renders it with Describe.
type FieldError struct {
	Field  string // as Go spells it, with its struct: "Changes.Previous", "Limits.MaxEntries"
	Value  any    // the value refused; nil for a field that is missing
	Err    error  // what is wrong: "is required", "needs" (With), …
	With   string // the other field of a combination, or ""
	Detail string // what the field takes, or why; or ""
}

func (e *FieldError) Error() string { return e.Describe(nil) }

func (e *FieldError) Unwrap() error { return e.Err }

// Describe renders e with name(field) for the name of each field, or the
// field itself if name is nil: "Limits.MaxEntries 60000 is out of range:
// give a number from 1 to 50000".
func (e *FieldError) Describe(name func(field string) string) string {
	if name == nil {
		name = func(field string) string { return field }
	}
	s := name(e.Field)
	if e.Value != nil {
		s += " " + formatValue(e.Value)
	}
	s += " " + e.Err.Error()
	if e.With != "" {
		s += " " + name(e.With)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func formatValue(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	case time.Time:
		return v.UTC().Format(time.RFC3339)
	case time.Duration:
		return units.FormatDuration(v)
	}
	return fmt.Sprint(v)
}

// Validate checks c as Build does before it starts: the values of its
// fields and how they combine. It returns nil, or the *FieldError of each
// field that is wrong, joined. It reads nothing but the hash cache file's
// type; whether the source can be read is found out by Build.
func (c Config) Validate() error {
	var v validation
	v.check(rule{c.Set != "" && !previous.ValidSetName(c.Set), "Set", c.Set, errInvalid, "",
		"give 1 to 64 lowercase letters, digits, - and _, starting with a letter or a digit (not resourcesync)"})
	c.validateSource(&v)
	c.validateTree(&v)
	c.validateOutput(&v)
	c.validateChanges(&v)
	c.validateNotification(&v)
	return errors.Join(v...)
}

// A rule is one check of Validate: if bad, the FieldError of its other fields.
type rule struct {
	bad          bool
	field        string
	value        any
	err          error
	with, detail string
}

type validation []error

func (v *validation) add(e *FieldError) { *v = append(*v, e) }

func (v *validation) check(rules ...rule) {
	for _, r := range rules {
		v.first(r)
	}
}

// first adds the error of the first broken rule only: the others would
// say the same mistake again.
func (v *validation) first(rules ...rule) {
	for _, r := range rules {
		if r.bad {
			v.add(&FieldError{Field: r.field, Value: r.value, Err: r.err, With: r.with, Detail: r.detail})
			return
		}
	}
}

// Details said by more than one rule.
const (
	notHTTPURL       = "not an absolute http(s) URL"
	durationOr0      = "give a duration of 0 or more"
	exportOnly       = "it applies to a record export only"
	exportSelects    = "records are selected by their status in the export"
	exportChangeList = "a record export publishes a Change List of its own, from its records' times"
)

func (c *Config) validateSource(v *validation) {
	src, export, noOut := bucket.Redact(c.Source), c.Export != "", c.Export == "" && c.Out == ""
	v.first(
		rule{c.Source == "" && !export, "Source", nil, errRequired, "", "give a directory, or a .tar, .tar.gz, .tgz or .zip archive of one, or a record export"},
		rule{c.Source != "" && export, "Export", nil, errConflict, "Source", "give one of them"},
		rule{export && c.Out == "", "Export", nil, errNeeds, "Out", "the directory to write the documents into"},
		rule{!bucketscan.IsSource(c.Source) && bucketscan.IsSource(strings.ToLower(c.Source)), "Source", src, errInvalid, "",
			"write the scheme in lowercase (s3://, s3-inventory://) for a bucket, or begin the path of a directory with ./"},
		rule{noOut && bucketscan.IsSource(c.Source), "Source", src, errNeeds, "Out", "the documents are written into a directory, not into the bucket"},
		rule{noOut && archivescan.KindOf(c.Source) != 0, "Source", c.Source, errNeeds, "Out", "the documents cannot be written into an archive"},
	)
	for _, f := range []struct{ field, value string }{{"Digests", c.Digests}, {"DigestsJob", c.DigestsJob}} {
		v.check(rule{f.value != "" && !bucketscan.IsSource(c.Source), f.field, bucket.Redact(f.value), errInvalid, "",
			"the digests of a Compute checksum job are for a bucket as the source (s3://… or an S3 Inventory)"})
		if bucket.IsURL(f.value) { // the bucket of an s3://BUCKET/KEY, checked as a source's is
			name, _, _ := strings.Cut(strings.TrimPrefix(f.value, bucket.Scheme), "/")
			if _, _, err := bucket.ParseURL(bucket.Scheme + name + "/"); err != nil {
				v.add(&FieldError{Field: f.field, Value: bucket.Redact(f.value), Err: errInvalid, Detail: strings.TrimPrefix(err.Error(), bucket.Redact(bucket.Scheme+name+"/")+": ")})
			}
		}
	}
	docsURL, base := c.DocsURL.String(), c.BaseURL.String()
	v.check(rule{!c.DocsURL.IsZero() && !c.BaseURL.IsZero() && (strings.HasPrefix(base, docsURL+docsDir+"/") || strings.HasPrefix(base, docsURL+wellKnownDir+"/")),
		"BaseURL", base, errConflict, "DocsURL", "the resources would have the URLs of rsgen's documents, under " + docsURL + docsDir + "/"})
	v.first(
		rule{!export && c.BaseURL.IsZero(), "BaseURL", nil, errRequired, "", "the URL where the source is served"},
		rule{export && c.BaseURL.IsZero() && c.DocsURL.IsZero(), "DocsURL", nil, errRequired, "",
			"the URL where the documents are served; or a base URL, which relative locs are joined to and which it defaults to"},
	)
	_, badFormat := records.ParseFormat(c.ExportFormat)
	_, named := records.FormatOf(c.Export)
	v.check([]rule{
		{!export && c.ExportFormat != "", "ExportFormat", nil, errNeeds, "Export", exportOnly},
		{!export && c.ChangesWindow != 0, "ChangesWindow", nil, errNeeds, "Export", exportOnly},
		{!export && c.SkipBadRecords, "SkipBadRecords", nil, errNeeds, "Export", exportOnly},
		{export && len(c.Filter.Include) > 0, "Filter.Include", nil, errConflict, "Export", exportSelects},
		{export && len(c.Filter.Exclude) > 0, "Filter.Exclude", nil, errConflict, "Export", exportSelects},
		{export && c.Filter.Hidden, "Filter.Hidden", nil, errConflict, "Export", exportSelects},
		{export && c.FollowSymlinks, "FollowSymlinks", nil, errConflict, "Export", exportSelects},
		{export && c.ExportFormat != "" && badFormat != nil, "ExportFormat", c.ExportFormat, errInvalid, "", "give jsonl or csv"},
		{export && c.ExportFormat == "" && !named, "ExportFormat", nil, errRequired, "",
			fmt.Sprintf("the name %s does not tell it (.jsonl, .ndjson or .csv, optionally .gz)", c.Export)},
	}...)
}

func (c *Config) validateTree(v *validation) {
	for _, f := range []struct {
		field    string
		patterns []string
	}{{"Filter.Include", c.Filter.Include}, {"Filter.Exclude", c.Filter.Exclude}} {
		for _, p := range f.patterns {
			v.check(rule{!doublestar.ValidatePattern(p), f.field, p, errInvalid, "", "not a doublestar pattern"})
		}
	}
	v.check(rule{c.Jobs < 0 || c.Jobs > maxJobs, "Jobs", c.Jobs, errOutOfRange, "", fmt.Sprintf("give a number from 1 to %d", maxJobs)})
	seen := map[hashing.Algorithm]bool{}
	for _, a := range c.Hashes {
		v.first(
			rule{!a.Publishable(), "Hashes", a.String(), errInvalid, "", "not an algorithm rsgen publishes"},
			rule{seen[a], "Hashes", a.String(), errInvalid, "", "listed twice"},
		)
		seen[a] = true
	}
	v.check(rule{c.Hashes != nil && len(c.Hashes) == 0, "Hashes", nil, errRequired, "", "at least one algorithm, or nil for the default"})
}

func (c *Config) validateOutput(v *validation) {
	entries, size, noDump := c.Limits.MaxEntries, c.Limits.MaxBytes, !c.Dump.Enabled && !c.Changes.Dump // the Change Dump's packages are made alike
	v.check([]rule{
		{entries < 0 || entries > rsxml.MaxEntries, "Limits.MaxEntries", entries, errOutOfRange, "",
			fmt.Sprintf("give a number from 1 to %d, the most the spec allows in a document", rsxml.MaxEntries)},
		{size < 0 || size > 0 && size < minMaxBytes || size > rsxml.MaxBytes, "Limits.MaxBytes", size, errOutOfRange, "",
			fmt.Sprintf("give a size from %d bytes to %d, the most the spec allows in a document", minMaxBytes, rsxml.MaxBytes)},
		// The zero time would be taken for no time at all.
		{(c.FixedTime || !c.At.IsZero()) && (c.At.Unix() < 0 || c.At.Unix() > maxEpoch), "At", c.At, errOutOfRange, "",
			"give a time from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z"},
		{c.Describedby != "" && !httpURL(c.Describedby), "Describedby", c.Describedby, errInvalid, "", notHTTPURL},
		{c.Dump.MaxBytes < 0, "Dump.MaxBytes", c.Dump.MaxBytes, errOutOfRange, "", "give a positive size, or 0 for the default"},
		{c.Dump.Compression < zipdump.Auto || c.Dump.Compression > zipdump.Deflate, "Dump.Compression", c.Dump.Compression.String(), errInvalid, "",
			"give zipdump.Auto, Store or Deflate"},
		{noDump && c.Dump.MaxBytes != 0, "Dump.MaxBytes", nil, errNeeds, "Dump.Enabled", "it sizes the packages of a dump"},
		{noDump && c.Dump.Compression != zipdump.Auto, "Dump.Compression", nil, errNeeds, "Dump.Enabled", "it compresses the packages of a dump"},
	}...)
	validateHosts(v.add, c.Hosts, cmp.Or(c.DocsURL, c.BaseURL), c.BaseURL.String())
	if c.MaxDelete != nil {
		v.check(rule{c.MaxDelete.Percent && c.MaxDelete.N > 100, "MaxDelete", c.MaxDelete.String(), errOutOfRange, "", "give a percentage from 0% to 100%"})
	}
}

// validateHosts checks the hosts, and that each can serve the documents
// at docsURL (if given) and the resources at bases.
func validateHosts(add func(*FieldError), hosts []string, docsURL BaseURL, bases ...string) {
	for _, h := range hosts {
		if !slices.Contains(hosting.Hosts, h) {
			add(&FieldError{Field: "Hosts", Value: h, Err: errInvalid, Detail: "not a host rsgen writes configuration for"})
		}
	}
	if len(hosts) > 0 && !docsURL.IsZero() {
		for _, e := range hosting.Check(hosts, docsURL.String(), bases...) {
			add(&FieldError{Field: "Hosts", Value: e.Host, Err: errInvalid, Detail: e.Error()})
		}
	}
}

func (c *Config) validateChanges(v *validation) {
	ch, ar, export, firstBuild := &c.Changes, &c.Changes.Archive, c.Export != "", c.Changes.Previous == ""
	v.check(
		rule{export && ch.Previous != "", "Changes.Previous", nil, errConflict, "Export", exportChangeList},
		rule{export && ch.Dump, "Changes.Dump", nil, errConflict, "Export", exportChangeList},
		rule{export && c.Cache != "", "Cache", nil, errConflict, "Export", exportChangeList},
	)
	var pe *previous.Error
	if _, err := previous.ParseLocation(ch.Previous); errors.As(err, &pe) {
		v.add(&FieldError{Field: "Changes.Previous", Value: pe.Doc, Err: errInvalid, Detail: pe.Err.Error()}) // a password in the URL redacted
	}
	v.check([]rule{
		{firstBuild && ch.Dump && !export, "Changes.Dump", nil, errNeeds, "Changes.Previous", "a Change Dump holds what changed since the previous build (the first build publishes none)"},
		{firstBuild && ch.FirstBuildOK, "Changes.FirstBuildOK", nil, errNeeds, "Changes.Previous", "it says what to do when nothing is published at the previous build's place yet"},
		{firstBuild && ch.NewHistory, "Changes.NewHistory", nil, errNeeds, "Changes.Previous", "it says what to do when the previous build was published at other URLs"},
		{firstBuild && c.MaxDelete != nil, "MaxDelete", nil, errNeeds, "Changes.Previous", "deletions are counted against the previous build"},
		{ch.Dump && !export && archivescan.KindOf(c.Source) != 0, "Changes.Dump", nil, errConflict, "Source",
			"its packages are made from the files of a directory tree, not of an archive"},
		{ch.Keep < 0, "Changes.Keep", ch.Keep, errOutOfRange, "", durationOr0},
	}...)
	for _, d := range ch.Drop {
		v.check(rule{!slices.Contains(droppable, d), "Changes.Drop", d, errInvalid, "", "give " + strings.Join(droppable, ", ")})
	}
	v.first(
		rule{ar.Keep < 0, "Changes.Archive.Keep", ar.Keep, errOutOfRange, "", durationOr0},
		rule{ar.Keep > 0 && ar.Keep < ch.Keep, "Changes.Archive.Keep", ar.Keep, errShorter, "Changes.Keep", "the archive keeps the changes the Change List drops"},
		rule{ar.Keep > 0 && ch.drops(rsxml.CapChangeListArchive), docs.DropField(rsxml.CapChangeListArchive), nil, errConflict, "Changes.Archive.Keep",
			"one drops the Change List Archive, the other keeps it"},
	)
	v.first(ch.snapshots("Resource List", rsxml.CapResourceListArchive, ar.ResourceLists, true)...)
	v.first(ch.snapshots("Resource Dump", rsxml.CapResourceDumpArchive, ar.ResourceDumps, c.Dump.Enabled)...)
	v.check(
		rule{ar.Keep > 0 && !export && firstBuild, "Changes.Archive.Keep", nil, errNeeds, "Changes.Previous",
			"the archive holds what changed from build to build (the first build archives nothing)"},
		rule{ar.Keep > 0 && export, "Changes.Archive.Keep", nil, errConflict, "Export", exportChangeList + ", without an archive"},
		rule{ch.HTTPOptions.Deadline < 0, "Changes.HTTPOptions.Deadline", ch.HTTPOptions.Deadline, errOutOfRange, "", "give a positive duration, or 0 for the default"},
	)
	if c.Cache != "" {
		c.validateCache(v)
	}
}

// validateCache checks that the hash cache file is outside the documents,
// is reached through no link inside SOURCE or the output, and is rsgen's own.
func (c *Config) validateCache(v *validation) {
	err := hashcache.Check(c.Cache, c.Source, c.Out)
	link := ""
	if p := (*fs.PathError)(nil); errors.Is(err, confined.ErrSymlink) && errors.As(err, &p) {
		link = p.Path
	}
	v.check(rule{cacheInDocuments(c.Cache, cmp.Or(c.Out, c.Source)), "Cache", c.Cache, errInvalid, "",
		"it lies among the documents of the output (resourcesync/, .well-known/resourcesync), which every build replaces: keep the hash cache elsewhere"})
	v.first(
		rule{link != "", "Cache", c.Cache, errInvalid, "",
			link + " is a symbolic link inside SOURCE or the output, which anyone who shapes them may have made: rsgen does not write through it; name the file it leads to"},
		rule{errors.Is(err, hashcache.ErrNotRegular), "Cache", c.Cache, errInvalid, "", "not a regular file; it names the file the hash cache is kept in, created if missing"},
		rule{errors.Is(err, hashcache.ErrForeign), "Cache", c.Cache, errInvalid, "",
			"that file is not an rsgen hash cache, and a build would replace it: name a file of its own (created if missing), or remove that one if it is a cache gone bad"},
		rule{errors.Is(err, confined.ErrDanglingLink), "Cache", c.Cache, errInvalid, "", "a symbolic link to a file that does not exist: rsgen does not create a file wherever a link leads"},
	)
}

var droppable = []string{rsxml.CapResourceDump, rsxml.CapChangeDump, rsxml.CapResourceListArchive, rsxml.CapResourceDumpArchive, rsxml.CapChangeListArchive}

// snapshots are the rules of the archive of snapshots of what (a Resource
// List or Dump, has if the build publishes it), taken every.
func (ch *Changes) snapshots(what, capability string, every units.Duration, has bool) []rule {
	field, keep := "Changes.Archive."+strings.ReplaceAll(what, " ", "")+"s", ch.Archive.Keep
	on := every > 0
	return []rule{
		{every < 0, field, every, errOutOfRange, "", durationOr0},
		{on && ch.drops(rsxml.CapChangeListArchive), field, nil, errConflict, docs.DropField(rsxml.CapChangeListArchive), "every archive is dropped"},
		{on && ch.drops(capability), docs.DropField(capability), nil, errConflict, field, "one drops the " + what + " Archive, the other keeps it"},
		{on && !has, field, nil, errNeeds, "Dump.Enabled", "it archives the " + what},
		{on && keep == 0, field, nil, errNeeds, "Changes.Archive.Keep", "it says how long the archived " + what + "s are kept"},
		{on && keep < every, "Changes.Archive.Keep", keep, errShorter, field, "each archived " + what + " would be dropped before the next one is taken"},
	}
}

func cacheInDocuments(cache, out string) bool {
	c, err1 := filepath.Abs(cache)
	o, err2 := filepath.Abs(out)
	if err1 != nil || err2 != nil {
		return false
	}
	if c == filepath.Join(o, filepath.FromSlash(stage.WellKnownFile)) {
		return true
	}
	return tree.Within(filepath.Join(o, docsDir), c)
}

// A Filter decides which files of a tree are published.
type Filter struct {
	Include units.List `toml:"include"` // doublestar patterns; if any, a file must match one
	Exclude units.List `toml:"exclude"` // doublestar patterns; a match is never published
	Hidden  bool       `toml:"hidden"`  // publish names starting with "." too
}

// Limits bound the size of one document (section 7). Both may be lowered
// from the spec's 50,000 entries and 50 MB, never raised.
type Limits struct {
	MaxEntries int        `toml:"max-entries"`
	MaxBytes   units.Size `toml:"max-bytes"`
}

func (l Limits) list() listwriter.Limits {
	return listwriter.Limits{MaxEntries: l.MaxEntries, MaxBytes: int64(l.MaxBytes)}
}

func (f *Filter) tree() *tree.Filter {
	return &tree.Filter{Include: f.Include, Exclude: f.Exclude, Hidden: f.Hidden}
}

// A BaseURL is where a directory is served: an absolute http or https URL
// whose path ends in a slash (package internal/documents/uri).
type BaseURL struct{ base uri.Base }

// ParseBaseURL checks raw and returns it in normal form (uri.ParseBase).
func ParseBaseURL(raw string) (BaseURL, error) {
	base, err := uri.ParseBase(raw)
	return BaseURL{base}, err
}

func (u BaseURL) String() string { return u.base.String() }

func (u BaseURL) IsZero() bool { return u.base.IsZero() }

// HasPath reports whether u has a path below its host's root.
func (u BaseURL) HasPath() bool { return u.base.HasPath() }

// UnmarshalText reads u as ParseBaseURL does; "" is the zero BaseURL.
func (u *BaseURL) UnmarshalText(b []byte) (err error) {
	if len(b) == 0 {
		*u = BaseURL{}
		return nil
	}
	*u, err = ParseBaseURL(string(b))
	return err
}

// Names rsgen owns in the output directory.
const (
	docsDir      = stage.DocsDir      // every document but the Source Description; those of a set in DocsDir/<set>
	wellKnownDir = stage.WellKnownDir // RFC 8615
	stagePrefix  = stage.Prefix
)

func setDir(set string) string {
	if set == "" {
		return docsDir
	}
	return docsDir + "/" + set
}
