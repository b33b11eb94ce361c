package validate

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
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
			s.add(target, 0, RuleWellKnown, 0, "no Source Description at %s: %s", start, why)
		} else {
			s.add(start, 0, RuleFetch, 0, "%s", why)
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
	resp, err := get(ctx, l.opts.Client, u, "application/xml, text/xml;q=0.9, */*;q=0.1")
	if err != nil {
		return nil, err.Error()
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "HTTP " + resp.Status
	}
	d := checkDocument(st.s, u, u, resp.Body, l.docOpts)
	if ct := resp.Header.Get("Content-Type"); !isXMLType(ct) {
		st.s.add(u, 0, RuleContentType, 0, "served as %q; Destinations expect an XML type (application/xml)", ct)
	}
	if ctx.Err() != nil && d.entries == 0 {
		return nil, fmt.Sprintf("no answer within %s", l.opts.Timeout)
	}
	return d, ""
}

func (l *httpLoader) entries(ctx context.Context, d *docInfo, yield func(loc string, line int) error) error {
	ctx, cancel := context.WithTimeout(ctx, l.opts.Timeout)
	defer cancel()
	resp, err := get(ctx, l.opts.Client, d.url, "application/xml, text/xml;q=0.9, */*;q=0.1")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %s", resp.Status)
	}
	return readEntries(resp.Body, yield)
}

// get makes a GET request with rsgen's User-Agent.
func get(ctx context.Context, c *http.Client, u, accept string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", accept)
	resp, err := c.Do(req)
	if err != nil {
		if ue, ok := err.(*url.Error); ok {
			err = ue.Err
		}
		return nil, err
	}
	return resp, nil
}

// isXMLType reports whether a Content-Type names XML.
func isXMLType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/xml" || mt == "text/xml" || strings.HasSuffix(mt, "+xml")
}
