package previous

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/inputs/bucket"
	"github.com/rsgen/rsgen/internal/published/rules"
	"github.com/rsgen/rsgen/internal/text/units"
)

// Limits of what Read accepts.
const (
	// DefaultMaxBytes is the spec's 50 MB of a document and some slack for
	// publishers that count it differently.
	DefaultMaxBytes = rsxml.MaxBytes + 1<<20
	// The resources of a Resource List and its parts together: what an
	// index of 50,000 lists of 50,000 holds (section 7). They stream, so
	// the bound is on time, not memory.
	defaultMaxResources    = rsxml.MaxEntries * rsxml.MaxEntries
	defaultMaxPackageBytes = 64 << 30
	// The closed Change Lists carried forward together, the bytes a build
	// copies again: some forty lists of 50,000 changes as rsgen writes them.
	defaultMaxChangeListBytes = 512 << 20
)

// WellKnown is where the Source Description is, relative to where the
// documents are served (section 6.3.1).
const WellKnown = ".well-known/resourcesync"

// Options tune Read. The zero value reads with the defaults.
type Options struct {
	// At is the snapshot time of the build that reads; a previous
	// Resource List taken later fails with ErrLater. Zero: not checked.
	At time.Time
	// DocsURL is where the reading build's documents are served: it maps
	// URLs to files when a directory does not follow rsgen's layout.
	DocsURL string
	// Set is the resource set to read (its Capability List at
	// resourcesync/<Set>/capabilitylist.xml); "" reads the one set of a
	// build without sets. A set the Source Description does not list
	// fails with an error that matches ErrNothingPublished.
	Set string

	// Limits; the defaults above if zero.
	maxBytes           int64 // per document
	maxEntries         int   // per document
	maxResources       int   // over all parts of the Resource List
	maxPackageBytes    int64 // per Change Dump package
	maxChangeListBytes int64 // the Change Lists carried forward, together

	HTTP HTTPOptions

	// Notice, if set, is told about what is read but not used (an open
	// Change List, say).
	Notice func(msg string)
}

// Site is what a previous build published.
type Site struct {
	DocsBase       string // the URL prefix of the documents: rsgen's --docs-url, ending in "/"
	CapabilityList string // URL of the Capability List
	Capabilities   []Capability

	// At is the snapshot time of the Resource List, of which Read reads
	// the root or index only: [Site.ResourceIter] reads the entries.
	At           time.Time
	resourceList string   // its URL
	parts        []string // the URLs of its documents, in order

	// ChangeLists are the closed Change Lists, in the order of the Change
	// List Index (chronological), each checked.
	ChangeLists []ChangeList
	// OpenChangeList is the Change List the Capability List points at
	// when it is an open list (no until), as rsgen publishes the history
	// while it fits one document: its changes run to At.
	OpenChangeList      *ChangeList
	ChangeDump          *ChangeDump
	ChangeListArchive   *Archive
	ChangeDumpArchive   *Archive
	ResourceListArchive *Archive
	ResourceDumpArchive *Archive

	src  source
	opts Options // of Read, with its defaults, for the documents read later
}

// A Capability is an entry of the Capability List.
type Capability struct {
	Name string // "resourcelist", …
	URL  string
}

// A Resource is an entry of the previous Resource List.
type Resource struct {
	Loc     string    // in normal form (uri.Normalize), as rsgen writes URLs
	Lastmod time.Time // zero if the entry has none
	Hash    []hashing.Token
	Length  int64 // -1 if the entry has none
	Type    string
}

// A ChangeList is one closed Change List of the previous build, to be
// published again unchanged. [Site.OpenList] reads its bytes again and
// checks that they are those Read checked.
type ChangeList struct {
	URL         string
	Rel         string // URL relative to DocsBase ("resourcesync/changelist-….xml"), "" if not under it
	From, Until time.Time
	Entries     int
	Bytes       int64  // its size as published
	Index       string // the href of its rel="index" link, "" if it has none
	sum         [sha256.Size]byte
	bad         []badEntry // its entries whose hash or length is bad (Check)
}

// Read reads the build published at location, a directory, an http(s)
// URL or the bucket it was deployed to (s3://BUCKET/PREFIX/).
func Read(ctx context.Context, location string, opts Options) (*Site, error) {
	r := newReader(opts)
	sd, err := r.start(location)
	if err != nil {
		return nil, nothingPublished(err)
	}
	return r.read(ctx, sd)
}

// newReader fills in the defaults, the one place they are.
func newReader(opts Options) *reader {
	opts.maxBytes = orDefault(opts.maxBytes, DefaultMaxBytes)
	opts.maxEntries = orDefault(opts.maxEntries, rsxml.MaxEntries)
	opts.maxResources = orDefault(opts.maxResources, defaultMaxResources)
	opts.maxPackageBytes = orDefault(opts.maxPackageBytes, defaultMaxPackageBytes)
	opts.maxChangeListBytes = orDefault(opts.maxChangeListBytes, defaultMaxChangeListBytes)
	h := &opts.HTTP
	h.Timeout = orDefault(h.Timeout, defaultTimeout)
	h.Deadline = orDefault(h.Deadline, units.Duration(DefaultDeadline))
	h.Attempts = orDefault(h.Attempts, defaultAttempts)
	h.Backoff = orDefault(h.Backoff, defaultBackoff)
	h.UserAgent = cmp.Or(h.UserAgent, "rsgen")
	if opts.Notice == nil {
		opts.Notice = func(string) {}
	}
	return &reader{opts: opts, seen: map[string]bool{}}
}

func (r *reader) read(ctx context.Context, sd string) (*Site, error) {
	r.site.src = r.src
	r.site.opts = r.opts
	if err := r.readDescription(ctx, sd); err != nil {
		return nil, err
	}
	for _, read := range []func(context.Context) error{r.readCapabilityList, r.readResourceList, r.readChangeLists, r.readChangeDump, r.readArchives} {
		if err := read(ctx); err != nil {
			return nil, err
		}
	}
	return r.site, nil
}

type reader struct {
	opts Options
	site *Site
	src  source
	dir  *dirSource // src, when reading a directory; its mapping of URLs to keys, when reading a bucket
	seen map[string]bool
}

// ParseLocation returns the URL that location gives, or nil for a
// directory or a bucket; an error (ErrInvalid) if it is a URL that Read
// cannot read: of another scheme than http, https and s3, or not where a
// site is served.
func ParseLocation(location string) (*url.URL, error) {
	if strings.HasPrefix(location, bucket.Scheme) {
		return nil, parseBucketURL(location)
	}
	i := strings.Index(location, "://")
	if i <= 0 || strings.ContainsAny(location[:i], `/\`) {
		return nil, nil
	}
	u, err := url.Parse(location)
	if err != nil { // url.Parse's error repeats location, and a password written into it
		return nil, newError(bucket.Redact(location), 0, ErrInvalid, "not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, newError(u.Redacted(), 0, ErrInvalid, "only http and https URLs (or a directory) can be read")
	}
	if u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, newError(u.Redacted(), 0, ErrInvalid, "give the URL where the previous build is served, such as https://example.org/")
	}
	return u, nil
}

// start opens the source at location and returns the URL of the Source
// Description (for a directory or a bucket, a stand-in mapped to it).
func (r *reader) start(location string) (string, error) {
	r.site = &Site{}
	u, err := ParseLocation(location)
	switch {
	case err != nil:
		return "", err
	case strings.HasPrefix(location, bucket.Scheme):
		return r.startBucket(location)
	case u == nil:
		return r.startDir(location)
	default:
		r.src = newHTTPSource(u, r.opts.HTTP)
		if strings.HasSuffix(u.Path, "/"+WellKnown) {
			return u.String(), nil
		}
		if !strings.HasSuffix(u.Path, "/") {
			u.Path += "/"
			u.RawPath = ""
		}
		return u.String() + WellKnown, nil
	}
}

func (r *reader) startDir(location string) (string, error) {
	abs, err := filepath.Abs(location)
	if err != nil {
		return "", newError(location, 0, ErrUnreachable, "%v", err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", &Error{Doc: location, Kind: ErrUnreachable, Err: unwrapPath(err), missing: errors.Is(err, fs.ErrNotExist)}
	}
	if !st.IsDir() {
		return "", newError(location, 0, ErrUnreachable, "not a directory (give the output directory of the previous build, or its URL)")
	}
	r.dir = &dirSource{dir: abs, base: "file:///previous/"}
	r.src = r.dir
	return r.dir.base + WellKnown, nil
}

// startBucket opens the bucket at location (s3://BUCKET/PREFIX/), as
// startDir opens a directory.
func (r *reader) startBucket(location string) (string, error) {
	// Loading the AWS configuration reads the environment and files only;
	// every request is made with the context of the read.
	b, err := bucket.Open(context.Background(), location)
	if err != nil {
		return "", &Error{Doc: location, Kind: ErrUnreachable, Err: err}
	}
	r.dir = &dirSource{base: "file:///previous/"}
	r.src = &bucketSource{b: b, paths: r.dir}
	return r.dir.base + WellKnown, nil
}

// fetch reads the document at u, of capability want, checking what every
// document must be, and returns it with its bytes.
func (r *reader) fetch(ctx context.Context, u, want string) (*rsxml.Doc, []*rsxml.Entry, []byte, error) {
	if err := r.visit(ctx, u); err != nil {
		return nil, nil, nil, err
	}
	data, err := get(ctx, r.src, u, r.opts.maxBytes)
	if err != nil {
		return nil, nil, nil, err
	}
	name := r.src.name(u)
	rd, err := rsxml.NewReader(bytes.NewReader(data), rsxml.ReadOptions{MaxBytes: r.opts.maxBytes})
	if err != nil {
		return nil, nil, nil, classify(name, err, true)
	}
	entries, err := readEntries(name, rd, r.opts.maxEntries, want)
	if err != nil {
		return nil, nil, nil, err
	}
	return rd.Doc(), entries, data, nil
}

// fetchPart fetches the document at u, a <urlset> of capability listed by
// the index.
func (r *reader) fetchPart(ctx context.Context, u, index, capability string) (*rsxml.Doc, []*rsxml.Entry, []byte, error) {
	doc, entries, data, err := r.fetch(ctx, u, capability)
	if err == nil && doc.Index {
		err = indexInIndex(r.src.name(u), index)
	}
	return doc, entries, data, err
}

func indexInIndex(name, index string) error {
	return newError(name, 0, ErrInvalid, "an index itself, listed by the index %s; an index lists <urlset> documents only", index)
}

// visit marks the document at u as read, failing if it was (a loop).
func (r *reader) visit(ctx context.Context, u string) error {
	if r.seen[u] {
		return newError(r.src.name(u), 0, ErrInvalid, "listed twice (a loop of documents)")
	}
	r.seen[u] = true
	return context.Cause(ctx)
}

// readEntries reads the rest of a document from rd, checking each entry,
// then the root. The entry limit is checked here, not by the Reader, to
// name the line of the first entry too many.
func readEntries(name string, rd *rsxml.Reader, maxEntries int, want string) ([]*rsxml.Entry, error) {
	var entries []*rsxml.Entry
	for {
		e, err := rd.Next()
		if err == io.EOF {
			return entries, checkRoot(name, rd, want)
		}
		if err != nil {
			return nil, classify(name, err, false)
		}
		if len(entries) == maxEntries {
			return nil, newError(name, e.Line, ErrLimit, "more than the %d entries a document may have", maxEntries)
		}
		if err := checkEntry(name, e); err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
}

// checkRoot checks the root of a document as far as rd has read it: one
// root <rs:md>, none after the first entry, of capability want.
func checkRoot(name string, rd *rsxml.Reader, want string) error {
	got := rd.Doc().MD.Capability
	switch {
	case rd.RootMDCount == 0 || got == "":
		return newError(name, 0, ErrNotResourceSync, "%s", rules.RootMD(0))
	case rd.LateRoot > 0:
		return newError(name, 0, ErrInvalid, "root <rs:md> or <rs:ln> after the first entry")
	case rd.RootMDCount > 1:
		return newError(name, 0, ErrInvalid, "%s", rules.RootMD(rd.RootMDCount))
	case got != want:
		return newError(name, 0, ErrCapability, "capability %q where %q was expected", got, want)
	}
	return nil
}

// isAbsoluteURL reports whether loc (white space around it aside) is
// scheme://authority…, with a scheme of RFC 3986's characters and an
// authority that is not empty.
func isAbsoluteURL(loc string) bool {
	loc = strings.TrimSpace(loc)
	scheme, rest, ok := strings.Cut(loc, "://")
	if !ok || scheme == "" || rest == "" || rest[0] == '/' {
		return false
	}
	for i := 0; i < len(scheme); i++ {
		c := scheme[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// classify turns an error of rsxml into an *Error of its kind; atRoot,
// one before the root is known means no ResourceSync document at all.
func classify(name string, err error, atRoot bool) error {
	if errors.Is(err, rsxml.ErrTooLarge) || errors.Is(err, rsxml.ErrTooManyEntries) {
		return &Error{Doc: name, Kind: ErrLimit, Err: err}
	}
	var se *rsxml.SyntaxError
	if errors.As(err, &se) {
		kind := ErrMalformed
		// An HTML page (a soft 404) fails at its DOCTYPE, before its root.
		if atRoot && (se.Kind == rsxml.SyntaxRoot || strings.Contains(se.Msg, "DOCTYPE")) {
			kind = ErrNotResourceSync
		}
		return &Error{Doc: name, Line: se.Line, Kind: kind, Err: errors.New(se.Msg)}
	}
	return &Error{Doc: name, Kind: ErrMalformed, Err: err}
}

// readDescription finds the Capability List of the set in the Source
// Description.
func (r *reader) readDescription(ctx context.Context, sd string) error {
	lists, err := r.capabilityLists(ctx, sd)
	if err != nil {
		return err
	}
	name := r.src.name(sd)
	docsBase := strings.TrimSuffix(sd, WellKnown)
	want := r.opts.Set
	var chosen *rsxml.Entry
	for _, e := range lists {
		base, set, ok := setOf(e.Loc)
		// rsgen's own place: under the Source Description's directory,
		// or for a directory read, under any URL (which the directory is
		// then learnt to be served at), or the documents' URL if given.
		if ok && set == want && (r.dir == nil && base == docsBase || r.dir != nil && (r.opts.DocsURL == "" || base == r.opts.DocsURL)) {
			chosen = e
			break
		}
	}
	if chosen == nil && want != "" {
		// The set, published at other URLs (a site moved, or served
		// under another name): read it, and let the caller say whether
		// its history is this build's.
		for _, e := range lists {
			if _, set, ok := setOf(e.Loc); ok && set == want {
				chosen = e
				break
			}
		}
	}
	switch sets := namedSets(lists); {
	case chosen == nil && want != "":
		return &Error{Doc: name, Kind: ErrUnreachable, Err: fmt.Errorf("lists no Capability List of the resource set %q", want), nothing: true}
	case chosen == nil && len(sets) > 0:
		return newError(name, 0, ErrInvalid, "the previous build published the resource sets %s, not one set: publish them as sets, together", strings.Join(sets, ", "))
	case chosen == nil && len(lists) > 1:
		return newError(name, 0, ErrInvalid, "lists %d Capability Lists and none is where rsgen publishes its own", len(lists))
	case chosen == nil:
		chosen = lists[0] // another tool's layout: see below
	}
	loc := chosen.Loc
	if r.dir != nil {
		// Learn where the directory is served from the URL of its
		// Capability List.
		if base, _, ok := setOf(loc); ok {
			docsBase = base
		} else if r.opts.DocsURL != "" && strings.HasPrefix(loc, r.opts.DocsURL) {
			docsBase = r.opts.DocsURL
		} else {
			return newError(name, chosen.Line, ErrInvalid, "the Capability List %s is not where rsgen publishes it, and not under the documents' URL; cannot find it in the directory", loc)
		}
		if u, err := url.Parse(docsBase); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return newError(name, chosen.Line, ErrInvalid, "the Capability List %q is not an http or https URL", loc)
		}
		r.dir.base = docsBase
	}
	if base, _, ok := setOf(loc); r.dir == nil && ok {
		// rsgen's layout: the documents are where the Capability List
		// is, which is not where --previous pointed if it redirected.
		docsBase = base
	}
	r.site.DocsBase = docsBase
	r.site.CapabilityList = loc
	return nil
}

func namedSets(lists []*rsxml.Entry) []string {
	var sets []string
	for _, e := range lists {
		if _, set, ok := setOf(e.Loc); ok && set != "" {
			sets = append(sets, strconv.Quote(set))
		}
	}
	return sets
}

// capabilityLists returns the Capability Lists of the Source Description
// at sd, at least one.
func (r *reader) capabilityLists(ctx context.Context, sd string) ([]*rsxml.Entry, error) {
	_, entries, _, err := r.fetch(ctx, sd, rsxml.CapDescription)
	if err != nil {
		return nil, nothingPublished(err)
	}
	var lists []*rsxml.Entry
	for _, e := range entries {
		if e.MD.Capability == rsxml.CapCapabilityList {
			lists = append(lists, e)
		}
	}
	if len(lists) == 0 {
		return nil, newError(r.src.name(sd), 0, ErrInvalid, "lists no Capability List")
	}
	return lists, nil
}

// setOf parses the URL of a Capability List where rsgen publishes one:
// base/resourcesync/capabilitylist.xml, the one set of a build without
// sets (set ""), or base/resourcesync/<set>/capabilitylist.xml, with set a
// name that ValidSetName takes (never "resourcesync": the URL is then
// that of one set). It returns base, ending in "/", and set.
func setOf(loc string) (base, set string, ok bool) {
	rest, ok := strings.CutSuffix(loc, "/capabilitylist.xml")
	if !ok {
		return "", "", false
	}
	if base, ok := strings.CutSuffix(rest, "/resourcesync"); ok {
		return base + "/", "", true
	}
	i := strings.LastIndexByte(rest, '/')
	if i < 0 || !ValidSetName(rest[i+1:]) {
		return "", "", false
	}
	if base, ok := strings.CutSuffix(rest[:i], "/resourcesync"); ok {
		return base + "/", rest[i+1:], true
	}
	return "", "", false
}

// ValidSetName reports whether name can name a resource set: 1 to 64
// lowercase ASCII letters, digits, "-" and "_", starting with a letter or
// a digit, so that it is the same name in a URL, on every file system, and
// on the command line; and not "resourcesync", whose documents' URLs would
// read as those of one set published under a path resourcesync/.
func ValidSetName(name string) bool {
	if name == "" || len(name) > 64 || name == "resourcesync" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case (c == '-' || c == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}

// Sets returns the names of the resource sets rsgen published at location
// (as for Read), in the order of its Source Description: "" for the one
// set of a build without sets. It fails as Read does when nothing is
// published there.
func Sets(ctx context.Context, location string, opts Options) ([]string, error) {
	r := newReader(opts)
	sd, err := r.start(location)
	if err != nil {
		return nil, nothingPublished(err)
	}
	lists, err := r.capabilityLists(ctx, sd)
	if err != nil {
		return nil, err
	}
	var sets []string
	for _, e := range lists {
		if _, set, ok := setOf(e.Loc); ok {
			sets = append(sets, set)
		}
	}
	return sets, nil
}

func (r *reader) readCapabilityList(ctx context.Context) error {
	u := r.site.CapabilityList
	doc, entries, _, err := r.fetch(ctx, u, rsxml.CapCapabilityList)
	if err != nil {
		return err
	}
	name := r.src.name(u)
	if msg := rules.NotIndex(rsxml.CapCapabilityList, doc.Index); msg != "" {
		return newError(name, 0, ErrInvalid, "%s", msg)
	}
	seen := map[string]int{}
	for _, e := range entries {
		entry, unique := rules.CapListEntry(e.Loc, e.MD.Capability, e.Line, seen)
		if e.MD.Capability == "" {
			return newError(name, e.Line, ErrInvalid, "%s", entry)
		}
		if unique != "" {
			return newError(name, e.Line, ErrInvalid, "%s", unique)
		}
		r.site.Capabilities = append(r.site.Capabilities, Capability{Name: e.MD.Capability, URL: e.Loc})
	}
	if r.site.capability(rsxml.CapResourceList) == "" {
		return newError(name, 0, ErrInvalid, "has no Resource List")
	}
	return nil
}

func (s *Site) capability(name string) string {
	for _, c := range s.Capabilities {
		if c.Name == name {
			return c.URL
		}
	}
	return ""
}

func parseTime(name string, line int, what, v string) (time.Time, error) {
	t, err := rsxml.ParseTime(strings.TrimSpace(v))
	if err != nil {
		return time.Time{}, newError(name, line, ErrInvalid, "%s: %v", what, err)
	}
	return t, nil
}
