package validate

import (
	"context"
	"fmt"
	"mime"
	"net/url"
	"strings"

	"github.com/rsgen/rsgen/internal/published/previous"
)

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

// httpLoader fetches the documents of a site.
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

// redirect refuses a redirect out of the scope of the crawl.
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

// fetchError is what a failed request says, without the URL the finding
// names already.
func fetchError(err error) error {
	if pe, ok := err.(*previous.Error); ok && pe.Err != nil {
		return pe.Err
	}
	return err
}

// isXMLType reports whether a Content-Type names XML.
func isXMLType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/xml" || mt == "text/xml" || strings.HasSuffix(mt, "+xml")
}
