package generator

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
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
	"github.com/rsgen/rsgen/internal/documents/rsxml"
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

// Config is what a build needs. The CLI fills it from flags; the zero
// values of the optional fields are the documented defaults. The toml tag
// of a field is its key in rsgen's configuration file and the name of its
// flag of rsgen build.
type Config struct {
	// Set names the resource set, when the build is one of several that
	// BuildSite publishes together: its documents are under
	// resourcesync/<Set>/. "" for the one set of Build.
	Set string `toml:"name"`

	Source  string  `toml:"source"`   // directory to publish, or a .tar, .tar.gz, .tgz or .zip archive of one
	Out     string  `toml:"out"`      // output directory; Source if empty (required for an archive or an export)
	BaseURL BaseURL `toml:"base-url"` // where Source is served; relative locs of an export are joined to it
	DocsURL BaseURL `toml:"docs-url"` // where Out is served; BaseURL if zero

	// A record export is published instead of Source (package exports).
	Export         string         `toml:"export"`           // the export file; "-" for standard input
	ExportFormat   string         `toml:"export-format"`    // "jsonl" or "csv"; from the name of Export if empty
	ChangesWindow  units.Duration `toml:"changes-window"`   // trailing window of its Change List; DefaultChangesWindow if zero, none if negative
	SkipBadRecords bool           `toml:"skip-bad-records"` // publish without the bad records (exit status 3) rather than fail

	Hashes hashing.Set `toml:"hash"` // DefaultSet if nil
	Filter
	FollowSymlinks bool `toml:"follow-symlinks"`
	Jobs           int  `toml:"jobs"` // hashing workers; hashing.DefaultWorkers() if zero
	Limits

	// At is the time of the snapshot; FixedTime says it was given (the
	// command line's --at or SOURCE_DATE_EPOCH), and then completed equals
	// it too, so that the same tree gives the same bytes.
	At        time.Time `toml:"at"`
	FixedTime bool      `toml:"-"`

	Dump // the Resource Dump, if Dump.Enabled (section 11)

	Describedby string `toml:"describedby"` // optional URL describing the collection (section 8)
	FailFast    bool   `toml:"fail-fast"`   // a per-file problem fails the build

	// Notification channels advertised in the Capability List (notify.go).
	Notification

	Changes // Change Lists and Change Dump against the previous build (history.go)

	// Guards (guards.go): a source with nothing to publish fails with
	// an Error of KindEmptySource unless AllowEmpty; a build that deletes more of the
	// previous build's resources than MaxDelete (DefaultDeleteLimit if
	// nil) fails with KindMassDelete.
	AllowEmpty bool         `toml:"allow-empty"`
	MaxDelete  *DeleteLimit `toml:"max-delete"`
	Cache      string       `toml:"cache"` // hash cache file; "" for none
	// Digests, with a bucket as the source, is the manifest.json of the
	// completion report of an S3 Batch Operations Compute checksum job (a
	// path or s3://…), whose digests need no request (docs/BUCKETS.md).
	// DigestsJob is a file to write the manifest of such a job into: the
	// objects whose digests neither the cache, the store nor Digests
	// give, which are then not read, and the build fails. "" for none.
	Digests    string `toml:"digests"`
	DigestsJob string `toml:"digests-job"`

	Hosts     units.List `toml:"host"` // static hosts to write configuration for (hosting.Hosts)
	Templates fs.FS      `toml:"-"`    // templates of the host files and pages; the embedded ones if nil

	// DryRun does everything but publish: the documents are staged and
	// checked, the Report says what would be published, and the stage is
	// removed; the output directory is left as it was, and the hash cache
	// too.
	DryRun bool `toml:"-"`
	// Changed, if set, is called with each change the build publishes in
	// its Change Lists (none without a previous build), in their order,
	// once the documents are written: its kind (created, updated or
	// deleted) and the resource's URL.
	Changed func(change, loc string) `toml:"-"`

	Stats  *report.Stats    `toml:"-"` // progress counters; may be nil
	Notice func(msg string) `toml:"-"` // non-fatal notices (symbolic links not followed…); may be nil
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

// A FieldError is what Config.Validate finds wrong with one field of a
// Config. Field names the field as Go spells it, with the struct it is in:
// "Changes.Previous", "Limits.MaxEntries". Err is one of errRequired,
// errOutOfRange, errInvalid, errNeeds, errConflict, errSame and errShorter;
// With names the other field of the last four. Detail says, in words, what the field
// takes or why, or is "".
//
// A program that shows the error in its own terms (a command line names
// its flags) renders it with Describe and a name for each field.
type FieldError struct {
	Field  string
	Value  any // the value refused; nil for a field that is missing
	Err    error
	With   string
	Detail string
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
// field that is wrong, joined with errors.Join. It reads nothing but the
// type of the hash cache file, if it exists; whether the source can be read
// is found out by Build.
func (c Config) Validate() error {
	var errs []error
	add := func(e *FieldError) { errs = append(errs, e) }
	if c.Set != "" && !previous.ValidSetName(c.Set) {
		add(&FieldError{Field: "Set", Value: c.Set, Err: errInvalid,
			Detail: "give 1 to 64 lowercase letters, digits, - and _, starting with a letter or a digit (not resourcesync)"})
	}
	c.validateSource(add)
	c.validateTree(add)
	c.validateOutput(add)
	c.validateChanges(add)
	c.validateNotification(add)
	return errors.Join(errs...)
}

// validateSource checks what is published: a tree, an archive or an
// export, and the URL of its resources.
func (c *Config) validateSource(add func(*FieldError)) {
	switch {
	case c.Source == "" && c.Export == "":
		add(&FieldError{Field: "Source", Err: errRequired,
			Detail: "give a directory, or a .tar, .tar.gz, .tgz or .zip archive of one, or a record export"})
	case c.Source != "" && c.Export != "":
		add(&FieldError{Field: "Export", Err: errConflict, With: "Source", Detail: "give one of them"})
	case c.Export != "" && c.Out == "":
		add(&FieldError{Field: "Export", Err: errNeeds, With: "Out", Detail: "the directory to write the documents into"})
	case !bucketscan.IsSource(c.Source) && bucketscan.IsSource(strings.ToLower(c.Source)):
		add(&FieldError{Field: "Source", Value: bucket.Redact(c.Source), Err: errInvalid,
			Detail: "write the scheme in lowercase (s3://, s3-inventory://) for a bucket, or begin the path of a directory with ./"})
	case c.Export == "" && c.Out == "" && bucketscan.IsSource(c.Source):
		add(&FieldError{Field: "Source", Value: bucket.Redact(c.Source), Err: errNeeds, With: "Out", Detail: "the documents are written into a directory, not into the bucket"})
	case c.Export == "" && c.Out == "" && archivescan.KindOf(c.Source) != 0:
		add(&FieldError{Field: "Source", Value: c.Source, Err: errNeeds, With: "Out", Detail: "the documents cannot be written into an archive"})
	}
	for _, f := range []struct{ field, value string }{{"Digests", c.Digests}, {"DigestsJob", c.DigestsJob}} {
		if f.value != "" && !bucketscan.IsSource(c.Source) {
			add(&FieldError{Field: f.field, Value: bucket.Redact(f.value), Err: errInvalid, Detail: "the digests of a Compute checksum job are for a bucket as the source (s3://… or an S3 Inventory)"})
		}
		if bucket.IsURL(f.value) { // the bucket of an s3://BUCKET/KEY, checked as a source's is
			name, _, _ := strings.Cut(strings.TrimPrefix(f.value, bucket.Scheme), "/")
			if _, _, err := bucket.ParseURL(bucket.Scheme + name + "/"); err != nil {
				add(&FieldError{Field: f.field, Value: bucket.Redact(f.value), Err: errInvalid, Detail: strings.TrimPrefix(err.Error(), bucket.Redact(bucket.Scheme+name+"/")+": ")})
			}
		}
	}
	if docs := c.DocsURL.String(); !c.DocsURL.IsZero() && !c.BaseURL.IsZero() &&
		(strings.HasPrefix(c.BaseURL.String(), docs+docsDir+"/") || strings.HasPrefix(c.BaseURL.String(), docs+wellKnownDir+"/")) {
		add(&FieldError{Field: "BaseURL", Value: c.BaseURL.String(), Err: errConflict, With: "DocsURL",
			Detail: "the resources would have the URLs of rsgen's documents, under " + docs + docsDir + "/"})
	}
	switch {
	case c.Export == "" && c.BaseURL.IsZero():
		add(&FieldError{Field: "BaseURL", Err: errRequired, Detail: "the URL where the source is served"})
	case c.Export != "" && c.BaseURL.IsZero() && c.DocsURL.IsZero():
		add(&FieldError{Field: "DocsURL", Err: errRequired,
			Detail: "the URL where the documents are served; or a base URL, which relative locs are joined to and which it defaults to"})
	}
	if c.Export == "" {
		for _, f := range []given{{"ExportFormat", c.ExportFormat != ""}, {"ChangesWindow", c.ChangesWindow != 0}, {"SkipBadRecords", c.SkipBadRecords}} {
			if f.set {
				add(&FieldError{Field: f.field, Err: errNeeds, With: "Export", Detail: "it applies to a record export only"})
			}
		}
		return
	}
	for _, f := range []given{{"Filter.Include", len(c.Filter.Include) > 0}, {"Filter.Exclude", len(c.Filter.Exclude) > 0},
		{"Filter.Hidden", c.Filter.Hidden}, {"FollowSymlinks", c.FollowSymlinks}} {
		if f.set {
			add(&FieldError{Field: f.field, Err: errConflict, With: "Export", Detail: "records are selected by their status in the export"})
		}
	}
	if c.ExportFormat != "" {
		if _, err := records.ParseFormat(c.ExportFormat); err != nil {
			add(&FieldError{Field: "ExportFormat", Value: c.ExportFormat, Err: errInvalid, Detail: "give jsonl or csv"})
		}
	} else if _, ok := records.FormatOf(c.Export); !ok {
		add(&FieldError{Field: "ExportFormat", Err: errRequired,
			Detail: fmt.Sprintf("the name %s does not tell it (.jsonl, .ndjson or .csv, optionally .gz)", c.Export)})
	}
}

// given says whether a field is set, for the checks of fields that apply
// only with another one.
type given struct {
	field string
	set   bool
}

// validateTree checks how a tree is read and hashed.
func (c *Config) validateTree(add func(*FieldError)) {
	for _, f := range []struct {
		field    string
		patterns []string
	}{{"Filter.Include", c.Filter.Include}, {"Filter.Exclude", c.Filter.Exclude}} {
		for _, p := range f.patterns {
			if !doublestar.ValidatePattern(p) {
				add(&FieldError{Field: f.field, Value: p, Err: errInvalid, Detail: "not a doublestar pattern"})
			}
		}
	}
	if c.Jobs < 0 || c.Jobs > maxJobs {
		add(&FieldError{Field: "Jobs", Value: c.Jobs, Err: errOutOfRange, Detail: fmt.Sprintf("give a number from 1 to %d", maxJobs)})
	}
	seen := map[hashing.Algorithm]bool{}
	for _, a := range c.Hashes {
		switch {
		case !a.Publishable():
			add(&FieldError{Field: "Hashes", Value: a.String(), Err: errInvalid, Detail: "not an algorithm rsgen publishes"})
		case seen[a]:
			add(&FieldError{Field: "Hashes", Value: a.String(), Err: errInvalid, Detail: "listed twice"})
		}
		seen[a] = true
	}
	if c.Hashes != nil && len(c.Hashes) == 0 {
		add(&FieldError{Field: "Hashes", Err: errRequired, Detail: "at least one algorithm, or nil for the default"})
	}
}

// validateOutput checks the documents: their limits, time and links, the
// dump and the files for hosts.
func (c *Config) validateOutput(add func(*FieldError)) {
	if n := c.Limits.MaxEntries; n < 0 || n > rsxml.MaxEntries {
		add(&FieldError{Field: "Limits.MaxEntries", Value: n, Err: errOutOfRange,
			Detail: fmt.Sprintf("give a number from 1 to %d, the most the spec allows in a document", rsxml.MaxEntries)})
	}
	if n := c.Limits.MaxBytes; n < 0 || n > 0 && n < minMaxBytes || n > rsxml.MaxBytes {
		add(&FieldError{Field: "Limits.MaxBytes", Value: n, Err: errOutOfRange,
			Detail: fmt.Sprintf("give a size from %d bytes to %d, the most the spec allows in a document", minMaxBytes, rsxml.MaxBytes)})
	}
	// The zero time would be taken for no time at all; a W3C Datetime has
	// four digits of year.
	if (c.FixedTime || !c.At.IsZero()) && (c.At.Unix() < 0 || c.At.Unix() > maxEpoch) {
		add(&FieldError{Field: "At", Value: c.At, Err: errOutOfRange, Detail: "give a time from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z"})
	}
	if d := c.Describedby; d != "" && !httpURL(d) {
		add(&FieldError{Field: "Describedby", Value: d, Err: errInvalid, Detail: "not an absolute http(s) URL"})
	}
	if c.Dump.MaxBytes < 0 {
		add(&FieldError{Field: "Dump.MaxBytes", Value: c.Dump.MaxBytes, Err: errOutOfRange, Detail: "give a positive size, or 0 for the default"})
	}
	if s := c.Dump.Compression.String(); c.Dump.Compression < zipdump.Auto || c.Dump.Compression > zipdump.Deflate {
		add(&FieldError{Field: "Dump.Compression", Value: s, Err: errInvalid, Detail: "give zipdump.Auto, Store or Deflate"})
	}
	if !c.Dump.Enabled && !c.Changes.Dump { // the Change Dump's packages are made alike
		if c.Dump.MaxBytes != 0 {
			add(&FieldError{Field: "Dump.MaxBytes", Err: errNeeds, With: "Dump.Enabled", Detail: "it sizes the packages of a dump"})
		}
		if c.Dump.Compression != zipdump.Auto {
			add(&FieldError{Field: "Dump.Compression", Err: errNeeds, With: "Dump.Enabled", Detail: "it compresses the packages of a dump"})
		}
	}
	validateHosts(add, c.Hosts, cmp.Or(c.DocsURL, c.BaseURL), c.BaseURL.String())
	if c.MaxDelete != nil && c.MaxDelete.Percent && c.MaxDelete.N > 100 {
		add(&FieldError{Field: "MaxDelete", Value: c.MaxDelete.String(), Err: errOutOfRange, Detail: "give a percentage from 0% to 100%"})
	}
}

// validateHosts checks the hosts named in Hosts, and that each can serve
// the documents at docsURL (if given) and the resources at bases.
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

// validateChanges checks what is carried across builds: the previous
// build, the Change Dump, the hash cache.
func (c *Config) validateChanges(add func(*FieldError)) {
	ch := &c.Changes
	if c.Export != "" {
		// A record export publishes a Change List of its own, from its
		// records' times.
		for _, f := range []given{{"Changes.Previous", ch.Previous != ""}, {"Changes.Dump", ch.Dump}, {"Cache", c.Cache != ""}} {
			if f.set {
				add(&FieldError{Field: f.field, Err: errConflict, With: "Export", Detail: "a record export publishes a Change List of its own, from its records' times"})
			}
		}
	}
	var pe *previous.Error
	if _, err := previous.ParseLocation(ch.Previous); errors.As(err, &pe) {
		add(&FieldError{Field: "Changes.Previous", Value: pe.Doc, Err: errInvalid, Detail: pe.Err.Error()}) // a password in the URL redacted
	}
	if ch.Previous == "" {
		for _, f := range []struct {
			field, detail string
			set           bool
		}{
			{"Changes.Dump", "a Change Dump holds what changed since the previous build (the first build publishes none)", ch.Dump && c.Export == ""},
			{"Changes.FirstBuildOK", "it says what to do when nothing is published at the previous build's place yet", ch.FirstBuildOK},
			{"Changes.NewHistory", "it says what to do when the previous build was published at other URLs", ch.NewHistory},
			{"MaxDelete", "deletions are counted against the previous build", c.MaxDelete != nil},
		} {
			if f.set {
				add(&FieldError{Field: f.field, Err: errNeeds, With: "Changes.Previous", Detail: f.detail})
			}
		}
	}
	if ch.Dump && c.Export == "" && archivescan.KindOf(c.Source) != 0 {
		add(&FieldError{Field: "Changes.Dump", Err: errConflict, With: "Source",
			Detail: "its packages are made from the files of a directory tree, not of an archive"})
	}
	if ch.Keep < 0 {
		add(&FieldError{Field: "Changes.Keep", Value: ch.Keep, Err: errOutOfRange, Detail: "give a duration of 0 or more"})
	}
	for _, d := range ch.Drop {
		if !slices.Contains(droppable, d) {
			add(&FieldError{Field: "Changes.Drop", Value: d, Err: errInvalid, Detail: "give " + strings.Join(droppable, ", ")})
		}
	}
	ar := &ch.Archive
	switch {
	case ar.Keep < 0:
		add(&FieldError{Field: "Changes.Archive.Keep", Value: ar.Keep, Err: errOutOfRange, Detail: "give a duration of 0 or more"})
	case ar.Keep > 0 && ar.Keep < ch.Keep:
		add(&FieldError{Field: "Changes.Archive.Keep", Value: ar.Keep, Err: errShorter, With: "Changes.Keep",
			Detail: "the archive keeps the changes the Change List drops"})
	case ar.Keep > 0 && ch.drops(rsxml.CapChangeListArchive):
		add(&FieldError{Field: docs.DropField(rsxml.CapChangeListArchive), Err: errConflict, With: "Changes.Archive.Keep", Detail: "one drops the Change List Archive, the other keeps it"})
	}
	ch.validateSnapshots(add, "Resource List", rsxml.CapResourceListArchive, ar.ResourceLists, true)
	ch.validateSnapshots(add, "Resource Dump", rsxml.CapResourceDumpArchive, ar.ResourceDumps, c.Dump.Enabled)
	if ar.Keep > 0 && c.Export == "" && ch.Previous == "" {
		add(&FieldError{Field: "Changes.Archive.Keep", Err: errNeeds, With: "Changes.Previous", Detail: "the archive holds what changed from build to build (the first build archives nothing)"})
	}
	if ar.Keep > 0 && c.Export != "" {
		add(&FieldError{Field: "Changes.Archive.Keep", Err: errConflict, With: "Export", Detail: "a record export publishes a Change List of its own, from its records' times, without an archive"})
	}
	if ch.HTTPOptions.Deadline < 0 {
		add(&FieldError{Field: "Changes.HTTPOptions.Deadline", Value: ch.HTTPOptions.Deadline, Err: errOutOfRange, Detail: "give a positive duration, or 0 for the default"})
	}
	c.validateCache(add)
}

// validateCache checks the file the hash cache is kept in: outside the
// documents and the links of the trees, and rsgen's own.
func (c *Config) validateCache(add func(*FieldError)) {
	if c.Cache == "" {
		return
	}
	invalid := func(detail string) { add(&FieldError{Field: "Cache", Value: c.Cache, Err: errInvalid, Detail: detail}) }
	if cacheInDocuments(c.Cache, cmp.Or(c.Out, c.Source)) {
		invalid("it lies among the documents of the output (resourcesync/, .well-known/resourcesync), which every build replaces: keep the hash cache elsewhere")
	}
	if linkInTree(c.Cache, c.Source, c.Out) {
		invalid("a symbolic link inside SOURCE or the output, which anyone who shapes them may have made: rsgen does not write through it; name the file it leads to")
	}
	switch err := hashcache.Check(c.Cache); {
	case errors.Is(err, hashcache.ErrNotRegular):
		invalid("not a regular file; it names the file the hash cache is kept in, created if missing")
	case errors.Is(err, hashcache.ErrForeign):
		invalid("that file is not an rsgen hash cache, and a build would replace it: name a file of its own (created if missing), or remove that one if it is a cache gone bad")
	case errors.Is(err, confined.ErrDanglingLink):
		invalid("a symbolic link to a file that does not exist: rsgen does not create a file wherever a link leads")
	}
}

// droppable are the capabilities Changes.Drop may name.
var droppable = []string{rsxml.CapResourceDump, rsxml.CapChangeDump, rsxml.CapResourceListArchive, rsxml.CapResourceDumpArchive, rsxml.CapChangeListArchive}

// validateSnapshots checks the fields of the archive of snapshots of what
// (a Resource List or a Resource Dump, which has is true when the build
// publishes it): taken every, dropped by Drop of capability.
func (ch *Changes) validateSnapshots(add func(*FieldError), what, capability string, every units.Duration, has bool) {
	field := "Changes.Archive." + strings.ReplaceAll(what, " ", "") + "s"
	switch {
	case every < 0:
		add(&FieldError{Field: field, Value: every, Err: errOutOfRange, Detail: "give a duration of 0 or more"})
	case every > 0 && ch.drops(rsxml.CapChangeListArchive):
		add(&FieldError{Field: field, Err: errConflict, With: docs.DropField(rsxml.CapChangeListArchive), Detail: "every archive is dropped"})
	case every > 0 && ch.drops(capability):
		add(&FieldError{Field: docs.DropField(capability), Err: errConflict, With: field, Detail: "one drops the " + what + " Archive, the other keeps it"})
	case every > 0 && !has:
		add(&FieldError{Field: field, Err: errNeeds, With: "Dump.Enabled", Detail: "it archives the " + what})
	case every > 0 && ch.Archive.Keep == 0:
		add(&FieldError{Field: field, Err: errNeeds, With: "Changes.Archive.Keep", Detail: "it says how long the archived " + what + "s are kept"})
	case every > 0 && ch.Archive.Keep < every:
		add(&FieldError{Field: "Changes.Archive.Keep", Value: ch.Archive.Keep, Err: errShorter, With: field,
			Detail: "each archived " + what + " would be dropped before the next one is taken"})
	}
}

// cacheInDocuments reports whether the hash cache file cache lies among
// the documents rsgen owns in the output directory out: its folder, which
// every build replaces (and whose files it must have written), and the
// Source Description.
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

// linkInTree reports whether path is a symbolic link in the directory
// tree of one of dirs (SOURCE, the output): such a link is content, which
// whoever shapes the tree chooses, and a file replaced through it (the hash
// cache, whose links lead to the cache they name) would be replaced
// wherever it leads.
func linkInTree(path string, dirs ...string) bool {
	info, err := os.Lstat(path)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	parent, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return false
	}
	parent = resolveExisting(parent)
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if abs, err := filepath.Abs(d); err == nil && tree.Within(resolveExisting(abs), parent) {
			return true
		}
	}
	return false
}

// validateNotification checks the channels the Capability List advertises:
// their URLs are published for anyone to read.
func (c *Config) validateNotification(add func(*FieldError)) {
	n := &c.Notification
	if n.Hub == "" {
		for _, f := range []struct{ field, v string }{{"Notification.ChangeTopic", n.ChangeTopic}, {"Notification.FrameworkTopic", n.FrameworkTopic}} {
			if f.v != "" {
				add(&FieldError{Field: f.field, Err: errNeeds, With: "Notification.Hub", Detail: "a topic is advertised with its hub"})
			}
		}
		return
	}
	for _, f := range []struct{ field, v string }{{"Notification.Hub", n.Hub}, {"Notification.ChangeTopic", n.ChangeTopic}, {"Notification.FrameworkTopic", n.FrameworkTopic}} {
		switch u, err := url.Parse(f.v); {
		case f.v == "":
		case err != nil || !httpURL(f.v):
			add(&FieldError{Field: f.field, Value: f.v, Err: errInvalid, Detail: "not an absolute http(s) URL"})
		case u.User != nil:
			add(&FieldError{Field: f.field, Value: u.Redacted(), Err: errInvalid, Detail: "it has credentials, which the Capability List would publish"})
		}
	}
	if change, framework := c.topics(); change == framework {
		field, with := "Notification.FrameworkTopic", "Notification.ChangeTopic"
		if n.FrameworkTopic == "" {
			field, with = with, field
		}
		add(&FieldError{Field: field, Err: errSame, With: with, Detail: "each channel needs a topic of its own (" + change + ")"})
	}
}

// topics are the topics of the change and framework channels: those given,
// else the default ones under the documents of the build's set.
func (c *Config) topics() (change, framework string) {
	dir := cmp.Or(c.DocsURL, c.BaseURL).String() + setDir(c.Set) + "/"
	return cmp.Or(c.Notification.ChangeTopic, dir+DefaultChangeTopic), cmp.Or(c.Notification.FrameworkTopic, dir+DefaultFrameworkTopic)
}

// httpURL reports whether s is an absolute http or https URL.
func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
