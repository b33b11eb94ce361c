package validate

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rsgen/rsgen/internal/published/previous"
)

// Options change what a validation checks. The zero value checks the
// documents and the links between them, with the defaults below.
type Options struct {
	// LenientHash reports digests that are not hex as warnings (the spec's
	// own Example 27 has such digests).
	LenientHash bool

	// BaseURL is where a directory is served, to resolve the links between
	// its documents; "": inferred from them.
	BaseURL string

	// Resources is a directory holding the listed resources, whose length
	// and digests are checked (the audit), served at ResourcesURL (""
	// means BaseURL or, for a site, the URL validated).
	Resources    string
	ResourcesURL string

	// Fetch audits a site's resources over HTTP.
	Fetch bool

	// CrossSite follows links and fetches resources on other hosts than
	// the site's; off, they are counted as not followed.
	CrossSite bool

	// MaxDocuments bounds the documents checked (DefaultMaxDocuments if zero).
	MaxDocuments int

	// Timeout bounds each HTTP request (DefaultTimeout if zero).
	Timeout time.Duration

	// Jobs is the number of resources audited at once (DefaultJobs if zero).
	Jobs int

	// Client makes the HTTP requests (copied, with Timeout and rsgen's
	// rule of redirects); nil: the client that reads --previous.
	Client *http.Client

	// Label names the file or directory in findings instead of its path
	// (rsgen build names its output, not its stage).
	Label string

	fetcher *previous.Fetcher // of normalize
}

const (
	DefaultMaxDocuments = 10000
	DefaultTimeout      = 30 * time.Second
	// DefaultJobs: an audit reads files or downloads; 4 keeps two cores and
	// a disk or a modest link busy without hammering a site.
	DefaultJobs = 4
)

const userAgent = "rsgen-validate (+https://github.com/rsgen/rsgen)"

// ErrUsage wraps errors in the options or targets given (not in documents).
var ErrUsage = errors.New("usage")

// normalize fills in the defaults, once, and makes the fetcher, whose
// redirects allow holds to the scope of the validation.
func (o *Options) normalize(allow func(to *url.URL) error) error {
	if o.MaxDocuments <= 0 {
		o.MaxDocuments = DefaultMaxDocuments
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Jobs <= 0 {
		o.Jobs = DefaultJobs
	}
	o.fetcher = previous.NewFetcher(o.Client, o.Timeout, userAgent, allow)
	for _, opt := range []struct {
		name string
		u    *string
	}{{"the base URL", &o.BaseURL}, {"the resources URL", &o.ResourcesURL}} {
		u := opt.u
		if *u == "" {
			continue
		}
		p, err := url.Parse(*u)
		if err != nil || p.Scheme != "http" && p.Scheme != "https" || p.Host == "" {
			return fmt.Errorf("%w: %s %q: give an absolute http or https URL, such as https://example.org/", ErrUsage, opt.name, *u)
		}
		if !strings.HasSuffix(*u, "/") {
			*u += "/"
		}
	}
	return nil
}

func isURL(target string) bool {
	return strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://")
}

// Target validates a path (a file or a directory) or an http(s) URL.
func Target(ctx context.Context, target string, opts Options) (*Report, error) {
	if isURL(target) {
		return Site(ctx, target, opts)
	}
	return Path(ctx, target, opts)
}
