package validate

import (
	"context"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/published/rules"
)

// A set is the documents of one directory or one site, validated
// together: each alone, then the links between them.
type set struct {
	s       *sink
	opts    *Options
	loader  loader
	byKey   map[string]*docInfo
	order   []*docInfo
	missing map[string]string // URL key → why it could not be loaded
	skipped map[string]bool   // URL keys out of scope, each counted once
	limited bool              // MaxDocuments was reached
	audited int               // resources audited
}

// A loader reads the documents of a set by URL.
type loader interface {
	// inScope reports whether the document at u belongs to the set.
	inScope(u string) bool
	// load reads and checks the document at u, or says why it cannot.
	load(ctx context.Context, s *set, u string) (*docInfo, string)
	// entries reads the <loc> and line of each entry of d again.
	entries(ctx context.Context, d *docInfo, yield func(loc string, line int) error) error
}

func newSet(s *sink, opts *Options, l loader) *set {
	return &set{s: s, opts: opts, loader: l, byKey: map[string]*docInfo{}, missing: map[string]string{}, skipped: map[string]bool{}}
}

// add registers a document read by the loader.
func (st *set) add(d *docInfo) {
	if d.url != "" {
		st.byKey[urlKey(d.url)] = d
		d.resolveRefs()
	}
	st.order = append(st.order, d)
}

// resolveRefs resolves the relative references among d's links and the
// <loc>s of the documents it lists against d's URL, as a Destination
// does (RFC 3986, section 5): href is an xsd:anyURI, which may be
// relative. (A relative <loc> is an error of its own.) It is called once
// d.url is known, and changes nothing twice.
func (d *docInfo) resolveRefs() {
	base, err := url.Parse(d.url)
	if err != nil || !base.IsAbs() {
		return
	}
	resolve := func(ref *string) {
		if *ref == "" {
			return
		}
		if u, err := url.Parse(strings.TrimSpace(*ref)); err == nil && !u.IsAbs() {
			*ref = base.ResolveReference(u).String()
		}
	}
	for i := range d.links {
		resolve(&d.links[i].Href)
	}
	for i := range d.children {
		resolve(&d.children[i].loc)
		resolve(&d.children[i].contents.Href)
	}
}

// get returns the document at u, loading it if needed. in says whether u
// belongs to the set at all; a nil document in the set comes with why.
func (st *set) get(ctx context.Context, u string) (d *docInfo, why string, in bool) {
	k := urlKey(u)
	if d, ok := st.byKey[k]; ok {
		return d, "", true
	}
	if why, ok := st.missing[k]; ok {
		return nil, why, true
	}
	if !st.loader.inScope(u) {
		st.skipped[k] = true
		return nil, "", false
	}
	if len(st.order) >= st.opts.MaxDocuments || ctx.Err() != nil {
		st.limited = st.limited || ctx.Err() == nil
		return nil, "", false
	}
	d, why = st.loader.load(ctx, st, u)
	if d == nil {
		st.missing[k] = why
		return nil, why, true
	}
	st.add(d)
	if urlKey(d.url) != k {
		st.byKey[k] = d // reached through a redirect
	}
	return d, "", true
}

// crawl loads every document the documents already loaded lead to.
func (st *set) crawl(ctx context.Context) {
	for i := 0; i < len(st.order); i++ {
		for _, ref := range refs(st.order[i]) {
			st.get(ctx, ref)
		}
	}
}

// refs are the URLs of the documents d leads to: up and index links, the
// documents a Source Description, Capability List or index lists, and the
// manifests of a dump's packages.
func refs(d *docInfo) []string {
	var out []string
	for _, l := range d.links {
		rels := strings.Fields(l.Rel)
		if l.Href != "" && (slices.Contains(rels, "up") || slices.Contains(rels, "index")) {
			out = append(out, l.Href)
		}
	}
	lists := d.capability == rsxml.CapDescription || d.capability == rsxml.CapCapabilityList || d.index && d.capability != "" || rules.IsArchive(d.capability)
	for _, c := range d.children {
		if lists && c.loc != "" && !rules.IsNotification(c.md.Capability) {
			out = append(out, c.loc)
		}
		if c.contents.Href != "" {
			out = append(out, c.contents.Href)
		}
	}
	return out
}

// urlKey normalizes a URL for lookups: uri.Normalize's form (scheme and
// host in lower case, without a default port, the path percent-encoded as
// the build writes it), without a fragment. Unlike a decoded path, it
// keeps a "?" of a name (%3F) apart from the start of a query, and it is
// a URL whatever bytes a name holds.
func urlKey(raw string) string {
	k := uri.Normalize(strings.TrimSpace(raw))
	if i := strings.IndexByte(k, '#'); i >= 0 {
		k = k[:i]
	}
	return k
}

// keyPath returns the slash-separated path, decoded, of the file that the
// URL key k names under the URL key prefix, and whether k names one at
// all: a key with a query, or whose path has an empty, "." or ".."
// segment or, once decoded, a slash or NUL byte within a segment, names
// no file.
func keyPath(k, prefix string) (string, bool) {
	rel, ok := strings.CutPrefix(k, prefix)
	if !ok || rel == "" || prefix == "" || strings.IndexByte(rel, '?') >= 0 {
		return "", false
	}
	segs := strings.Split(rel, "/")
	for i, seg := range segs {
		d, ok := uri.UnescapeSegment(seg)
		if !ok || d == "" || d == "." || d == ".." {
			return "", false
		}
		segs[i] = d
	}
	p := strings.Join(segs, "/")
	return p, filepath.IsLocal(filepath.FromSlash(p))
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b string) bool {
	ua, err1 := url.Parse(urlKey(a))
	ub, err2 := url.Parse(urlKey(b))
	return err1 == nil && err2 == nil && ua.Scheme == ub.Scheme && ua.Host == ub.Host
}

// report returns the findings with the documents of the set.
func (st *set) report() *Report {
	rep := st.s.report()
	for _, d := range st.order {
		rep.Documents = append(rep.Documents, d.name)
	}
	rep.NotFollowed = len(st.skipped)
	rep.Audited = st.audited
	return rep
}
