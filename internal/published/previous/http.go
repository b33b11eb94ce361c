package previous

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rsgen/rsgen/internal/text/units"
)

// HTTPOptions tune how a previous build is fetched over HTTP. The zero
// value gives the defaults.
type HTTPOptions struct {
	// Client, if set, is used (copied); else one with the time-outs below
	// and the environment's proxy.
	Client *http.Client `toml:"-"`
	// Timeout bounds one request, its body included; defaultTimeout if zero.
	Timeout time.Duration `toml:"-"`
	// Deadline bounds all the time spent on one document, every attempt
	// and wait included, so that a server sending a byte now and then is
	// given up on; DefaultDeadline if zero. A dump package gets a second
	// more per MiB it may have.
	Deadline units.Duration `toml:"fetch-timeout"`
	// Attempts is how many times a request is tried when the server fails
	// (5xx, 429, 408, time-outs, dropped connections); defaultAttempts if zero.
	Attempts int `toml:"-"`
	// Backoff is the wait before the first retry, doubled for each next;
	// defaultBackoff if zero.
	Backoff time.Duration `toml:"-"`
	// UserAgent is sent with every request; "rsgen" if empty.
	UserAgent string `toml:"-"`
}

const (
	defaultTimeout  = 2 * time.Minute
	DefaultDeadline = time.Minute
	defaultAttempts = 4
	defaultBackoff  = 500 * time.Millisecond
	maxRedirects    = 5 // per request
	maxRetryAfter   = 30 * time.Second
)

// httpSource fetches documents over HTTP from the hosts it allows.
type httpSource struct {
	client *http.Client
	opts   HTTPOptions

	anyHost   bool // any http or https URL may be fetched: the caller keeps its scope (a Fetcher)
	mu        sync.Mutex
	hosts     map[string]bool // hosts documents may be fetched from
	firstDone bool            // a first document was fetched
}

func orDefault[T ~int | ~int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// newClient returns the client of every request rsgen makes to a
// published site: at most maxRedirects redirects, to http or https only,
// and where allow (if not nil) lets them go.
func newClient(opts HTTPOptions, allow func(to *url.URL) error) *http.Client {
	var c *http.Client
	if opts.Client != nil {
		cc := *opts.Client
		c = &cc
	} else {
		c = &http.Client{
			Transport: &http.Transport{
				Proxy:                 http.ProxyFromEnvironment,
				DialContext:           (&net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
				TLSHandshakeTimeout:   15 * time.Second,
				ResponseHeaderTimeout: 30 * time.Second,
				ExpectContinueTimeout: time.Second,
				MaxIdleConnsPerHost:   2,
				IdleConnTimeout:       30 * time.Second,
				ForceAttemptHTTP2:     true,
			},
		}
	}
	c.Timeout = opts.Timeout
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return fmt.Errorf("more than %d redirects", maxRedirects)
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return fmt.Errorf("redirected to %s, which is not http or https", req.URL.Redacted())
		}
		if allow != nil {
			return allow(req.URL)
		}
		return nil
	}
	return c
}

func newHTTPSource(start *url.URL, opts HTTPOptions) *httpSource {
	s := &httpSource{opts: opts, hosts: map[string]bool{strings.ToLower(start.Host): true}}
	allow := func(to *url.URL) error {
		// The first document may lead to the host the site lives on; after
		// it, a redirect stays on the hosts a link may go to.
		s.mu.Lock()
		ok := !s.firstDone || s.hosts[strings.ToLower(to.Host)]
		s.mu.Unlock()
		if !ok {
			return fmt.Errorf("redirected to %s, on another host than the previous build; rsgen follows only documents on the host of the previous build", to.Redacted())
		}
		return nil
	}
	s.client = newClient(opts, allow)
	return s
}

// A Fetcher makes the requests of rsgen validate by the code that reads a
// previous build: one attempt, no deadline but the caller's, any http(s)
// URL (validate keeps its scope; allow holds redirects to it).
type Fetcher struct{ s *httpSource }

func NewFetcher(client *http.Client, timeout time.Duration, userAgent string, allow func(to *url.URL) error) *Fetcher {
	opts := HTTPOptions{Client: client, Timeout: timeout, Attempts: 1, UserAgent: userAgent}
	return &Fetcher{&httpSource{opts: opts, client: newClient(opts, allow), anyHost: true, hosts: map[string]bool{}}}
}

// Get returns the body of a 200 response to u, not capped, and its
// Content-Type; identity asks for the bytes as stored (an audit's) rather
// than an XML document. A failure is an *Error.
func (f *Fetcher) Get(ctx context.Context, u string, identity bool) (io.ReadCloser, string, error) {
	var resp *http.Response
	err := f.s.do(ctx, u, math.MaxInt64, identity, func(r *http.Response) error { resp = r; return nil })
	if err != nil {
		return nil, "", err
	}
	return resp.Body, resp.Header.Get("Content-Type"), nil
}

func (s *httpSource) name(u string) string { return u }

func (s *httpSource) check(u string) (*url.URL, error) {
	pu, err := url.Parse(u)
	if err != nil {
		return nil, newError(u, 0, ErrInvalid, "not a URL: %v", err)
	}
	if pu.Scheme != "http" && pu.Scheme != "https" {
		return nil, newError(u, 0, ErrInvalid, "not an http or https URL")
	}
	if s.anyHost {
		return pu, nil
	}
	if pu.User != nil {
		return nil, newError(pu.Redacted(), 0, ErrInvalid, "a URL with credentials is not followed")
	}
	s.mu.Lock()
	ok := s.hosts[strings.ToLower(pu.Host)]
	s.mu.Unlock()
	if !ok {
		return nil, newError(u, 0, ErrInvalid, "on another host than the previous build; rsgen follows only documents on its host")
	}
	return pu, nil
}

func withDeadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, deadlineError(d))
}

type deadlineError time.Duration

func (e deadlineError) Error() string {
	return fmt.Sprintf("took longer than the %v allowed; gave up", time.Duration(e))
}

func (e deadlineError) Is(target error) bool { return target == ErrDeadline }

func (s *httpSource) fetch(ctx context.Context, u string, max int64, fill func(io.Reader) error) error {
	ctx, cancel := withDeadline(ctx, time.Duration(s.opts.Deadline))
	defer cancel()
	return s.do(ctx, u, max, false, func(resp *http.Response) error {
		if err := fill(resp.Body); err != nil {
			return err
		}
		return resp.Body.Close()
	})
}

func (s *httpSource) part(ctx context.Context, u string, max int64, spillDir string) (io.ReadCloser, error) {
	return readCopy(ctx, s, u, max, spillDir)
}

func (s *httpSource) open(ctx context.Context, u string, limit int64) (io.ReadCloser, error) {
	// The deadline runs until the package is closed.
	ctx, cancel := withDeadline(ctx, time.Duration(s.opts.Deadline)+time.Duration(limit>>20)*time.Second)
	var body io.ReadCloser
	err := s.do(ctx, u, limit, false, func(resp *http.Response) error {
		body = resp.Body
		return nil
	})
	if err != nil {
		cancel()
		return nil, err
	}
	return &cappedReader{r: body, c: closer(func() error { defer cancel(); return body.Close() }), left: limit, doc: u}, nil
}

type closer func() error

func (c closer) Close() error { return c() }

// do requests u, retrying failures of the server and of reading the body,
// and calls use with a 200 response; it closes the body if use fails.
func (s *httpSource) do(ctx context.Context, u string, limit int64, identity bool, use func(*http.Response) error) error {
	pu, err := s.check(u)
	if err != nil {
		return err
	}
	wait := s.opts.Backoff
	for attempt := 1; ; attempt++ {
		retryAfter, err := s.once(ctx, pu, limit, identity, use)
		if err == nil {
			return nil
		}
		pe, ok := err.(*Error)
		if !ok {
			pe = &Error{Doc: u, Kind: ErrUnreachable, Err: err}
		}
		if pe.Kind != ErrUnreachable || retryAfter < 0 || ctx.Err() != nil {
			return pe
		}
		if attempt >= s.opts.Attempts {
			if attempt > 1 {
				pe.Err = fmt.Errorf("%w (gave up after %d attempts)", pe.Err, attempt)
			}
			return pe
		}
		t := time.NewTimer(max(wait, retryAfter))
		wait *= 2
		select {
		case <-ctx.Done():
			t.Stop()
			return &Error{Doc: u, Kind: ErrUnreachable, Err: context.Cause(ctx)}
		case <-t.C:
		}
	}
}

// once makes one request. retryAfter is negative when the failure is not
// worth retrying, else the wait the server asked for (or zero).
func (s *httpSource) once(ctx context.Context, pu *url.URL, limit int64, identity bool, use func(*http.Response) error) (retryAfter time.Duration, err error) {
	u := pu.String()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return -1, newError(u, 0, ErrInvalid, "%v", err)
	}
	req.Header.Set("User-Agent", s.opts.UserAgent)
	if identity {
		req.Header.Set("Accept-Encoding", "identity")
	} else {
		req.Header.Set("Accept", "application/xml, text/xml;q=0.9, */*;q=0.1")
	}
	// The previous build must be the one published now, not a cached copy:
	// behind a CDN (GitHub Pages caches for minutes) a build soon after
	// another would read the one before and lose a Change List.
	req.Header.Set("Cache-Control", "no-cache")
	req.Header.Set("Pragma", "no-cache")
	resp, err := s.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return -1, &Error{Doc: u, Kind: ErrUnreachable, Err: context.Cause(ctx)}
		}
		return transportRetry(err), &Error{Doc: u, Kind: ErrUnreachable, Err: describeTransport(err)}
	}
	switch {
	case resp.StatusCode == http.StatusOK:
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout:
		drain(resp)
		return parseRetryAfter(resp.Header.Get("Retry-After")),
			newError(u, 0, ErrUnreachable, "HTTP %s", resp.Status)
	default:
		drain(resp)
		e := newError(u, 0, ErrUnreachable, "HTTP %s", resp.Status)
		e.missing = resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone
		return -1, e
	}
	if resp.ContentLength > limit {
		drain(resp)
		return -1, newError(u, 0, ErrLimit, "%d bytes (Content-Length), more than the %d allowed", resp.ContentLength, limit)
	}
	s.mu.Lock()
	if !s.firstDone && resp.Request != nil && resp.Request.URL != nil {
		// The first document may redirect to another host (example.org →
		// www.example.org): the site lives there too.
		s.hosts[strings.ToLower(resp.Request.URL.Host)] = true
	}
	s.firstDone = true
	s.mu.Unlock()
	if err := use(resp); err != nil {
		resp.Body.Close()
		var pe *Error
		if errors.As(err, &pe) {
			return -1, pe
		}
		if ctx.Err() != nil {
			return -1, &Error{Doc: u, Kind: ErrUnreachable, Err: context.Cause(ctx)}
		}
		return 0, &Error{Doc: u, Kind: ErrUnreachable, Err: fmt.Errorf("reading the response: %w", describeTransport(err))}
	}
	return 0, nil
}

// drain reads a little of an unused body, for the connection to be
// reused, and closes it.
func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// transportRetry says whether a failed request may succeed if tried again
// (0) or not (-1): a bad certificate or a refused redirect will not.
func transportRetry(err error) time.Duration {
	var ue *url.Error
	if errors.As(err, &ue) && strings.Contains(ue.Err.Error(), "redirect") {
		return -1
	}
	var ce *x509.CertificateInvalidError
	var ha x509.HostnameError
	var ua x509.UnknownAuthorityError
	if errors.As(err, &ce) || errors.As(err, &ha) || errors.As(err, &ua) {
		return -1
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return -1
	}
	return 0
}

// describeTransport drops the method and URL *url.Error repeats.
func describeTransport(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return fmt.Errorf("timed out: %w", ue.Err)
		}
		return ue.Err
	}
	return err
}

// parseRetryAfter reads a Retry-After in seconds (not a date), capped.
func parseRetryAfter(v string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0
	}
	return min(time.Duration(n)*time.Second, maxRetryAfter)
}
