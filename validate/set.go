package validate

import (
	"context"
	"fmt"
	"mime"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/published/rules"
)

// A set is the documents of one directory or site, validated together.
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

// A loader reads the documents of a set by URL: a directory's or a site's.
type loader interface {
	inScope(u string) bool // the document at u belongs to the set
	// load reads and checks the document at u, or says why it cannot.
	load(ctx context.Context, s *set, u string) (*docInfo, string)
	// entries reads the <loc> and line of each entry of d again.
	entries(ctx context.Context, d *docInfo, yield func(loc string, line int) error) error
}

func newSet(s *sink, opts *Options, l loader) *set {
	return &set{s: s, opts: opts, loader: l, byKey: map[string]*docInfo{}, missing: map[string]string{}, skipped: map[string]bool{}}
}

func (st *set) add(d *docInfo) {
	if d.url != "" {
		st.byKey[urlKey(d.url)] = d
		d.resolveRefs()
	}
	st.order = append(st.order, d)
}

// resolveRefs resolves the relative hrefs (xsd:anyURI) and <loc>s (an
// error of their own) of d against d.url, as a Destination does (RFC
// 3986, section 5), once d.url is known.
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

// get returns the document at u, loading it if needed; in says whether u
// belongs to the set, and why a nil document in it is nil.
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

func (st *set) crawl(ctx context.Context) {
	for i := 0; i < len(st.order); i++ {
		for _, ref := range refs(st.order[i]) {
			st.get(ctx, ref)
		}
	}
}

// refs are the URLs of the documents d leads to: up and index links, the
// documents a Source Description, Capability List, index or archive
// lists, and the manifests of a dump's packages.
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

// urlKey normalizes a URL for lookups: uri.Normalize's form (as the build
// writes URLs) without a fragment, which keeps a "?" of a name (%3F) apart
// from the start of a query.
func urlKey(raw string) string {
	k := uri.Normalize(strings.TrimSpace(raw))
	if i := strings.IndexByte(k, '#'); i >= 0 {
		k = k[:i]
	}
	return k
}

// keyPath returns the slash-separated path, decoded, of the file the URL
// key k names under prefix, if it names one: not with a query, nor an
// empty, "." or ".." segment, nor a slash or NUL byte in one decoded.
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

func sameOrigin(a, b string) bool {
	ua, err1 := url.Parse(urlKey(a))
	ub, err2 := url.Parse(urlKey(b))
	return err1 == nil && err2 == nil && ua.Scheme == ub.Scheme && ua.Host == ub.Host
}

func (st *set) report() *Report {
	rep := st.s.report()
	for _, d := range st.order {
		rep.Documents = append(rep.Documents, d.name)
	}
	rep.NotFollowed = len(st.skipped)
	rep.Audited = st.audited
	return rep
}

// Site validates a site over HTTP. A URL whose path ends in a slash is a
// site: its Source Description is fetched from .well-known/resourcesync
// under it, and every document it leads to after it. Any other URL is a
// document to start from.
//
// The crawl stays on the host of the URL unless Options.CrossSite, reads
// no body past 50 MB, gives up on a request after Options.Timeout and
// checks at most Options.MaxDocuments documents.
func Site(ctx context.Context, target string, opts Options) (*Report, error) {
	u, err := url.Parse(target)
	if err != nil || !u.IsAbs() || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("%w: %q is not an absolute http or https URL", ErrUsage, target)
	}
	siteRoot := u.Path == "" || strings.HasSuffix(u.Path, "/")
	start := target
	if siteRoot {
		if u.Path == "" {
			target += "/"
		}
		start = target + ".well-known/resourcesync"
	}
	s := newSink()
	l := &httpLoader{opts: &opts, origin: target, docOpts: docOptions{audit: opts.auditing(), lenientHash: opts.LenientHash}}
	// One rule of redirects for every request, of a document or of a
	// resource: a redirect may lead where a link may.
	if err := opts.normalize(l.redirect); err != nil {
		return nil, err
	}
	st := newSet(s, &opts, l)
	if d, why, _ := st.get(ctx, start); d == nil {
		if siteRoot {
			s.add(target, 0, RuleWellKnown, "no Source Description at %s: %s", start, why)
		} else {
			s.add(start, 0, RuleFetch, "%s", why)
		}
		return st.report(), nil
	}
	st.crawl(ctx)
	st.checkLinks(ctx)
	base := target[:strings.LastIndex(target, "/")+1]
	st.audit(ctx, newAuditor(st, base, opts))
	return st.report(), nil
}

type httpLoader struct {
	opts    *Options
	origin  string
	docOpts docOptions
}

func (l *httpLoader) inScope(u string) bool {
	if !isURL(u) {
		return false
	}
	return l.opts.CrossSite || sameOrigin(u, l.origin)
}

func (l *httpLoader) redirect(to *url.URL) error {
	if !l.inScope(to.String()) {
		return fmt.Errorf("redirected to %s, on another site than %s; --cross-site follows it", to.Redacted(), l.origin)
	}
	return nil
}

func (l *httpLoader) load(ctx context.Context, st *set, u string) (*docInfo, string) {
	ctx, cancel := context.WithTimeout(ctx, l.opts.Timeout)
	defer cancel()
	body, ct, err := l.opts.fetcher.Get(ctx, u, false)
	if err != nil {
		return nil, fetchError(err).Error()
	}
	defer body.Close()
	d := checkDocument(st.s, u, u, body, l.docOpts)
	if !isXMLType(ct) {
		st.s.add(u, 0, RuleContentType, "served as %q; Destinations expect an XML type (application/xml)", ct)
	}
	if ctx.Err() != nil && d.entries == 0 {
		return nil, fmt.Sprintf("no answer within %s", l.opts.Timeout)
	}
	return d, ""
}

func (l *httpLoader) entries(ctx context.Context, d *docInfo, yield func(loc string, line int) error) error {
	ctx, cancel := context.WithTimeout(ctx, l.opts.Timeout)
	defer cancel()
	body, _, err := l.opts.fetcher.Get(ctx, d.url, false)
	if err != nil {
		return fetchError(err)
	}
	defer body.Close()
	return readEntries(body, yield)
}

// fetchError is what a failed request says, without the URL.
func fetchError(err error) error {
	if pe, ok := err.(*previous.Error); ok && pe.Err != nil {
		return pe.Err
	}
	return err
}

func isXMLType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/xml" || mt == "text/xml" || strings.HasSuffix(mt, "+xml")
}
