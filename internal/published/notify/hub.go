package notify

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Defaults of a Hub.
const (
	DefaultAttempts       = 4
	DefaultRequestTimeout = 30 * time.Second
	DefaultBackoff        = 500 * time.Millisecond
	maxBackoff            = 30 * time.Second
)

// Kinds of HubError; those of an answer are met on every attempt.
var (
	ErrUnreachable = errors.New("the hub is unreachable")                       // refused, reset, no such host
	ErrTimeout     = errors.New("the hub did not answer in time")               // or the overall deadline passed
	ErrRejected    = errors.New("the hub refused the notification")             // a 4xx at once, a 5xx or 429
	ErrCanceled    = errors.New("stopped before the hub took the notification") // interrupted
	ErrHubURL      = errors.New("the hub URL is not an absolute http(s) URL")
)

// HubError is a notification that the hub did not take.
type HubError struct {
	Hub, Topic string
	Attempts   int    // requests made
	Status     int    // the last HTTP status, 0 if none
	Kind       error  // ErrUnreachable, ErrTimeout, ErrRejected, ErrCanceled or ErrHubURL
	Detail     string // what the last attempt met
}

func (e *HubError) Error() string {
	s := fmt.Sprintf("notifying %s of topic %s: %v", e.Hub, e.Topic, e.Kind)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (%d attempts)", e.Attempts)
	}
	return s
}

func (e *HubError) Unwrap() error { return e.Kind }

// A Hub posts notification payloads to WebSub hubs (Change Notification
// 1.0.1, section 4.1). The zero value uses the defaults. A Hub may be used
// from several goroutines.
type Hub struct {
	Client         *http.Client  // http.DefaultClient's transport with no redirects if nil
	Attempts       int           // requests per payload; DefaultAttempts if zero
	RequestTimeout time.Duration // per request; DefaultRequestTimeout if zero
	Backoff        time.Duration // wait before the second attempt, doubled each time; DefaultBackoff if zero

	sleep func(ctx context.Context, d time.Duration) error // test seam
}

// Publish posts body to endpoint (ch.Hub if "") as a notification of
// ch.Topic, with LinkHeader. Transport failures, time-outs, 429 and 5xx are
// tried again, up to Attempts requests, waiting Backoff, then twice as long
// each time (or what a Retry-After asks, up to maxBackoff); a 4xx is final.
func (h *Hub) Publish(ctx context.Context, ch Channel, endpoint string, body []byte) error {
	if endpoint == "" {
		endpoint = ch.Hub
	}
	herr := &HubError{Hub: endpoint, Topic: ch.Topic}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		herr.Kind = ErrHubURL
		return herr
	}
	if u.User != nil {
		herr.Hub = u.Redacted()
	}
	attempts, wait := orDefault(h.Attempts, DefaultAttempts), orDefault(h.Backoff, DefaultBackoff)
	for herr.Attempts < attempts {
		herr.Attempts++
		retryAfter, retry := h.once(ctx, ch, endpoint, body, herr)
		if herr.Kind == nil {
			return nil
		}
		if !retry || herr.Attempts == attempts {
			break
		}
		d := max(wait, retryAfter)
		wait = min(2*wait, maxBackoff)
		if err := h.pause(ctx, min(d, maxBackoff)); err != nil {
			herr.stopped(ctx)
			break
		}
	}
	return herr
}

// once makes one request and records its outcome in herr (Kind nil on
// success); it says whether another attempt may succeed.
func (h *Hub) once(ctx context.Context, ch Channel, endpoint string, body []byte, herr *HubError) (retryAfter time.Duration, retry bool) {
	timeout := orDefault(h.RequestTimeout, DefaultRequestTimeout)
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		herr.Kind, herr.Detail = ErrHubURL, err.Error()
		return 0, false
	}
	req.Header.Set("Content-Type", ContentType)
	req.Header.Set("Link", LinkHeader(ch))
	resp, err := cmp.Or(h.Client, defaultClient).Do(req)
	if err != nil {
		herr.Status = 0
		var ne net.Error
		var ue *url.Error
		switch {
		case ctx.Err() != nil:
			herr.stopped(ctx)
			return 0, false
		case rctx.Err() != nil || errors.As(err, &ne) && ne.Timeout():
			herr.Kind, herr.Detail = ErrTimeout, fmt.Sprintf("no answer within %s", timeout)
		case errors.As(err, &ue): // without the URL, which herr has
			herr.Kind, herr.Detail = ErrUnreachable, ue.Err.Error()
		default:
			herr.Kind, herr.Detail = ErrUnreachable, err.Error()
		}
		return 0, true
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	herr.Status = resp.StatusCode
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		herr.Kind, herr.Detail = nil, ""
		return 0, false
	}
	herr.Kind = ErrRejected
	herr.Detail = fmt.Sprintf("HTTP %s", resp.Status)
	if msg := printable(snippet); msg != "" {
		herr.Detail += ": " + msg
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		return parseRetryAfter(resp.Header.Get("Retry-After")), true
	}
	return 0, false
}

// LinkHeader is the Link header of a notification of ch (Change
// Notification 1.0.1, section 4.1; WebSub, section 4).
func LinkHeader(ch Channel) string {
	return "<" + ch.Topic + `>; rel="self", <` + ch.Hub + `>; rel="hub"`
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// defaultClient follows no redirect: a POST redirected would be sent
// again as a GET, without its payload.
var defaultClient = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

func (h *Hub) pause(ctx context.Context, d time.Duration) error {
	if h.sleep != nil {
		return h.sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (e *HubError) stopped(ctx context.Context) {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		e.Kind, e.Detail = ErrTimeout, "the overall deadline passed"
		return
	}
	e.Kind, e.Detail = ErrCanceled, context.Cause(ctx).Error()
}

// parseRetryAfter reads a Retry-After header: seconds or an HTTP date; 0
// if it is absent or neither. Seconds are capped at maxBackoff, so that a
// huge number does not overflow into a negative wait.
func parseRetryAfter(v string) time.Duration {
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(min(s, int(maxBackoff/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
}

// printable returns the start of a hub's answer as one line of plain
// text, or "" if it is not text.
func printable(b []byte) string {
	out := make([]rune, 0, len(b))
	for _, r := range string(b) {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			out = append(out, ' ')
		case r < 0x20 || r == 0x7f || r == 0xfffd:
			return ""
		default:
			out = append(out, r)
		}
		if len(out) >= 200 {
			break
		}
	}
	return strings.TrimSpace(string(out))
}
