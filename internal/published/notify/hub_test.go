package notify

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// noSleep records the waits between attempts instead of waiting.
func noSleep(waits *[]time.Duration) func(context.Context, time.Duration) error {
	return func(ctx context.Context, d time.Duration) error {
		*waits = append(*waits, d)
		return ctx.Err()
	}
}

func TestPublishHeaders(t *testing.T) {
	t.Parallel()
	var got *http.Request
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, body = r, must(io.ReadAll(r.Body))
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	ch := Channel{Topic: "https://example.org/rs/changelist-notification", Hub: srv.URL + "/hub"}
	if err := (&Hub{}).Publish(context.Background(), ch, "", []byte("<urlset/>")); err != nil {
		t.Fatal(err)
	}
	if got.Method != http.MethodPost || got.URL.Path != "/hub" || got.Header.Get("Content-Type") != "application/xml" || string(body) != "<urlset/>" {
		t.Errorf("%s %s, %q, %q", got.Method, got.URL.Path, got.Header.Get("Content-Type"), body)
	}
	want := `<https://example.org/rs/changelist-notification>; rel="self", <` + srv.URL + `/hub>; rel="hub"`
	if l := got.Header.Get("Link"); l != want {
		t.Errorf("Link: %s\nwant  %s", l, want)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestPublishFailures(t *testing.T) {
	t.Parallel()
	// A port nothing listens on: listen, note it, close.
	ln := must(net.Listen("tcp", "127.0.0.1:0"))
	closed := "http://" + ln.Addr().String() + "/"
	ln.Close()

	var calls atomic.Int32
	status := func(codes ...int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			i := int(calls.Add(1)) - 1
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(codes[min(i, len(codes)-1)])
			io.WriteString(w, "hub says no\n")
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer slow.Close()
	defer close(release)

	for _, tc := range []struct {
		name     string
		hub      func() string
		kind     error
		attempts int
		status   int
		waits    string
	}{
		{"unreachable", func() string { return closed }, ErrUnreachable, 3, 0, "[500ms 1s]"},
		{"5xx then success", func() string { return status(503, 502, 202) }, nil, 3, 0, "[1s 1s]"},
		{"5xx every time", func() string { return status(500) }, ErrRejected, 3, 500, "[1s 1s]"},
		{"429", func() string { return status(429) }, ErrRejected, 3, 429, "[1s 1s]"},
		{"4xx at once", func() string { return status(400) }, ErrRejected, 1, 400, "[]"},
		{"time-out", func() string { return slow.URL }, ErrTimeout, 3, 0, "[500ms 1s]"},
		{"bad URL", func() string { return "ftp://example.org/" }, ErrHubURL, 0, 0, "[]"},
		{"no host", func() string { return "http:///hub" }, ErrHubURL, 0, 0, "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls.Store(0)
			var waits []time.Duration
			h := &Hub{Attempts: 3, RequestTimeout: 50 * time.Millisecond, sleep: noSleep(&waits)}
			err := h.Publish(context.Background(), Channel{Topic: "https://example.org/t", Hub: tc.hub()}, "", []byte("<urlset/>"))
			if tc.kind == nil {
				if err != nil {
					t.Fatal(err)
				}
			} else {
				var he *HubError
				if !errors.As(err, &he) || !errors.Is(err, tc.kind) {
					t.Fatalf("err = %v, want a HubError of %v", err, tc.kind)
				}
				if he.Attempts != tc.attempts || he.Status != tc.status {
					t.Errorf("%d attempts, status %d; want %d, %d", he.Attempts, he.Status, tc.attempts, tc.status)
				}
				if tc.status != 0 && !strings.Contains(err.Error(), "hub says no") {
					t.Errorf("the hub's answer is not in %q", err)
				}
			}
			if got := fmtDurations(waits); got != tc.waits {
				t.Errorf("waits %s, want %s", got, tc.waits)
			}
		})
	}
}

// A Retry-After of more seconds than a Duration holds (a hub's "forever")
// is a long wait, not a negative one that the backoff would replace.
func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]time.Duration{
		"": 0, "garbage": 0, "-5": 0, "1.5": 0, "20": 20 * time.Second,
		"9999999999": maxBackoff,
	} {
		if got := parseRetryAfter(v); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", v, got, want)
		}
	}
}

func fmtDurations(ds []time.Duration) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = d.String()
	}
	return "[" + strings.Join(s, " ") + "]"
}

// The overall deadline stops the retries, with ErrTimeout.
func TestPublishDeadline(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name string
		end  func(context.Context) (context.Context, func())
		kind error
	}{
		{"deadline", func(ctx context.Context) (context.Context, func()) {
			return context.WithDeadline(ctx, time.Now().Add(-time.Second))
		}, ErrTimeout},
		{"interrupt", func(ctx context.Context) (context.Context, func()) { return context.WithCancel(ctx) }, ErrCanceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := tc.end(context.Background())
			defer cancel()
			h := &Hub{Attempts: 10, sleep: func(context.Context, time.Duration) error {
				cancel()
				return ctx.Err()
			}}
			err := h.Publish(ctx, Channel{Topic: "t", Hub: srv.URL}, "", []byte("x"))
			var he *HubError
			if !errors.As(err, &he) || !errors.Is(err, tc.kind) || he.Attempts != 1 {
				t.Fatalf("err = %v, want %v after 1 attempt", err, tc.kind)
			}
		})
	}
}

func TestLoadStateBad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"garbage": "not json",
		"version": `{"version": 9, "documents": {}}`,
		"time":    `{"version": 1, "changes_until": "yesterday", "documents": {}}`,
		"two":     `{"version": 1, "capability_list": "a", "documents": {}} {}`, // not what Save writes
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := loadState(p); !errors.Is(err, ErrBadState) {
			t.Errorf("%s: err = %v, want ErrBadState", name, err)
		}
	}
}
