package previous

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"strings"
	"sync"
	"testing"
	"time"
)

// site serves testdata/good over HTTP on 127.0.0.1, with its URLs
// rewritten to the server's. A test may intercept requests by path.
type site struct {
	srv *httptest.Server

	mu        sync.Mutex
	requests  map[string]int
	uncached  []string                                          // requests that would take a cached copy
	intercept func(w http.ResponseWriter, r *http.Request) bool // true: handled
}

func serve(t *testing.T) *site {
	t.Helper()
	s := &site{requests: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests[r.URL.Path]++
		if cc := r.Header.Get("Cache-Control"); cc != "no-cache" {
			s.uncached = append(s.uncached, r.URL.Path+": Cache-Control "+cc)
		}
		intercept := s.intercept
		s.mu.Unlock()
		if intercept != nil && intercept(w, r) {
			return
		}
		b, err := os.ReadFile(path.Join("testdata/good", path.Clean(r.URL.Path)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/xml")
		w.Write([]byte(strings.ReplaceAll(string(b), "https://example.org/", s.srv.URL+"/")))
	}))
	t.Cleanup(s.srv.Close)
	t.Cleanup(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, u := range s.uncached {
			t.Errorf("%s: a cache may answer it, want no-cache", u)
		}
	})
	return s
}

func (s *site) count(p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[p]
}

func (s *site) set(f func(w http.ResponseWriter, r *http.Request) bool) {
	s.mu.Lock()
	s.intercept = f
	s.mu.Unlock()
}

// fast retries without waiting long.
var fast = HTTPOptions{Backoff: time.Millisecond, Attempts: 3, Timeout: 5 * time.Second}

func TestReadHTTP(t *testing.T) {
	t.Parallel()
	s := serve(t)
	for _, loc := range []string{s.srv.URL, s.srv.URL + "/", s.srv.URL + "/.well-known/resourcesync"} {
		site, err := readAll(context.Background(), loc, Options{HTTP: fast})
		if err != nil {
			t.Fatalf("%s: %v", loc, err)
		}
		if site.DocsBase != s.srv.URL+"/" || len(site.Resources) != 9 || len(site.ChangeLists) != 2 {
			t.Errorf("%s: base %s, %d resources, %d change lists", loc, site.DocsBase, len(site.Resources), len(site.ChangeLists))
		}
		if site.ChangeLists[1].Rel != "resourcesync/changelist-20240603T000000Z.xml" {
			t.Errorf("change list at %q", site.ChangeLists[1].Rel)
		}
	}
}

func TestReadHTTPFailures(t *testing.T) {
	t.Parallel()
	const rl = "/resourcesync/resourcelist.xml"
	tests := []struct {
		name      string
		intercept func(s *site) func(w http.ResponseWriter, r *http.Request) bool
		location  func(s *site) string
		opts      HTTPOptions
		ok        bool   // the read succeeds (after retries)
		kind      error  // else the error's kind
		msg       string // in the message
		requests  int    // requests for rl
	}{
		{name: "retried until it works", ok: true, requests: 3,
			intercept: func(s *site) func(http.ResponseWriter, *http.Request) bool {
				return func(w http.ResponseWriter, r *http.Request) bool {
					if r.URL.Path == rl && s.count(rl) < 3 {
						http.Error(w, "busy", http.StatusServiceUnavailable)
						return true
					}
					return false
				}
			}},
		{name: "a server that keeps failing", kind: ErrUnreachable, msg: "HTTP 500 Internal Server Error (gave up after 3 attempts)", requests: 3,
			intercept: func(s *site) func(http.ResponseWriter, *http.Request) bool {
				return func(w http.ResponseWriter, r *http.Request) bool {
					if r.URL.Path == rl {
						http.Error(w, "oops", http.StatusInternalServerError)
						return true
					}
					return false
				}
			}},
		{name: "not found is not retried", kind: ErrUnreachable, msg: "HTTP 404 Not Found", requests: 1,
			intercept: func(s *site) func(http.ResponseWriter, *http.Request) bool {
				return func(w http.ResponseWriter, r *http.Request) bool {
					if r.URL.Path == rl {
						http.NotFound(w, r)
						return true
					}
					return false
				}
			}},
		{name: "a body cut short is retried", ok: true, requests: 2,
			intercept: func(s *site) func(http.ResponseWriter, *http.Request) bool {
				return func(w http.ResponseWriter, r *http.Request) bool {
					if r.URL.Path == rl && s.count(rl) == 1 {
						w.Header().Set("Content-Length", "5000")
						w.Write([]byte("<?xml"))
						return true
					}
					return false
				}
			}},
		{name: "time-outs", kind: ErrUnreachable, msg: "timed out", requests: 2,
			opts: HTTPOptions{Backoff: time.Millisecond, Attempts: 2, Timeout: 50 * time.Millisecond},
			intercept: func(s *site) func(http.ResponseWriter, *http.Request) bool {
				return func(w http.ResponseWriter, r *http.Request) bool {
					if r.URL.Path == rl {
						select {
						case <-r.Context().Done():
						case <-time.After(10 * time.Second):
						}
						return true
					}
					return false
				}
			}},
		{name: "too large by Content-Length", kind: ErrLimit, msg: "Content-Length", requests: 1,
			intercept: func(s *site) func(http.ResponseWriter, *http.Request) bool {
				return func(w http.ResponseWriter, r *http.Request) bool {
					if r.URL.Path == rl {
						w.Header().Set("Content-Length", fmt.Sprint(DefaultMaxBytes+1))
						w.Write(make([]byte, 10))
						return true
					}
					return false
				}
			}},
		{name: "too large as it streams", kind: ErrLimit, msg: "more than the", requests: 1,
			intercept: func(s *site) func(http.ResponseWriter, *http.Request) bool {
				return func(w http.ResponseWriter, r *http.Request) bool {
					if r.URL.Path == rl {
						w.Header().Set("Content-Type", "application/xml")
						chunk := []byte(strings.Repeat(" ", 1<<16))
						for n := 0; n <= DefaultMaxBytes; n += len(chunk) {
							if _, err := w.Write(chunk); err != nil {
								break
							}
						}
						return true
					}
					return false
				}
			}},
		{name: "a redirect loop", kind: ErrUnreachable, msg: "more than 5 redirects", requests: 6,
			intercept: func(s *site) func(http.ResponseWriter, *http.Request) bool {
				return func(w http.ResponseWriter, r *http.Request) bool {
					if r.URL.Path == rl {
						http.Redirect(w, r, rl, http.StatusFound)
						return true
					}
					return false
				}
			}},
		{name: "a redirect away from http", kind: ErrUnreachable, msg: "not http or https", requests: 1,
			intercept: func(s *site) func(http.ResponseWriter, *http.Request) bool {
				return func(w http.ResponseWriter, r *http.Request) bool {
					if r.URL.Path == rl {
						http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
						return true
					}
					return false
				}
			}},
		{name: "a document on another host", kind: ErrInvalid, msg: "on another host", requests: 0,
			intercept: func(s *site) func(http.ResponseWriter, *http.Request) bool {
				return func(w http.ResponseWriter, r *http.Request) bool {
					if r.URL.Path == "/resourcesync/capabilitylist.xml" {
						b, _ := os.ReadFile("testdata/good/resourcesync/capabilitylist.xml")
						out := strings.ReplaceAll(string(b), "https://example.org/resourcesync/resourcelist.xml", "http://169.254.169.254/latest/meta-data")
						w.Write([]byte(strings.ReplaceAll(out, "https://example.org/", s.srv.URL+"/")))
						return true
					}
					return false
				}
			}},
		{name: "HTML instead of the site", kind: ErrNotResourceSync, msg: "DOCTYPE", requests: 0,
			intercept: func(s *site) func(http.ResponseWriter, *http.Request) bool {
				return func(w http.ResponseWriter, r *http.Request) bool {
					w.Header().Set("Content-Type", "text/html")
					w.Write([]byte("<!DOCTYPE html>\n<html><title>Welcome</title></html>"))
					return true
				}
			}},
		{name: "nobody listening", kind: ErrUnreachable, msg: "connection refused",
			location: func(s *site) string {
				s.srv.Close()
				return s.srv.URL
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := serve(t)
			if tt.intercept != nil {
				s.set(tt.intercept(s))
			}
			loc := s.srv.URL
			if tt.location != nil {
				loc = tt.location(s)
			}
			opts := fast
			if tt.opts.Attempts != 0 {
				opts = tt.opts
			}
			_, err := readAll(context.Background(), loc, Options{HTTP: opts})
			if tt.ok {
				if err != nil {
					t.Fatal(err)
				}
			} else {
				var pe *Error
				if !errors.As(err, &pe) || !errors.Is(err, tt.kind) {
					t.Fatalf("error %v, want one of kind %v", err, tt.kind)
				}
				if !strings.Contains(err.Error(), tt.msg) {
					t.Errorf("error %q does not say %q", err, tt.msg)
				}
				if !strings.HasPrefix(pe.Doc, "http") {
					t.Errorf("error names %q, not a URL", pe.Doc)
				}
			}
			if tt.location == nil {
				if n := s.count(rl); n != tt.requests {
					t.Errorf("%d requests for %s, want %d", n, rl, tt.requests)
				}
			}
		})
	}
}

func TestReadHTTPRedirectToAnotherHost(t *testing.T) {
	t.Parallel()
	s := serve(t)
	// The site lives at s; the URL given redirects there, as example.org
	// redirects to www.example.org.
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, s.srv.URL+r.URL.Path, http.StatusMovedPermanently)
	}))
	defer front.Close()
	site, err := readAll(context.Background(), front.URL, Options{HTTP: fast})
	if err != nil {
		t.Fatal(err)
	}
	if len(site.Resources) != 9 || site.DocsBase != s.srv.URL+"/" || site.ChangeLists[0].Rel != "resourcesync/changelist-20240602T000000Z.xml" {
		t.Errorf("%d resources, documents at %s, first change list at %q", len(site.Resources), site.DocsBase, site.ChangeLists[0].Rel)
	}
}

// After the first document, a redirect to another host is refused like a
// link to one: a tampered document, or an open redirect on the site, must
// not send rsgen to another host (a cloud metadata address, say).
func TestReadHTTPRedirectAwayLater(t *testing.T) {
	t.Parallel()
	s := serve(t)
	var other sync.Map
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.Store(r.URL.Path, true)
		b, _ := os.ReadFile(path.Join("testdata/good", path.Clean(r.URL.Path)))
		w.Write([]byte(strings.ReplaceAll(string(b), "https://example.org/", s.srv.URL+"/")))
	}))
	defer elsewhere.Close()
	const rl = "/resourcesync/resourcelist.xml"
	s.set(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == rl {
			http.Redirect(w, r, elsewhere.URL+rl, http.StatusFound)
			return true
		}
		return false
	})
	_, err := readAll(context.Background(), s.srv.URL, Options{HTTP: fast})
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "another host") {
		t.Errorf("error %v, want a refused redirect to another host", err)
	}
	if _, asked := other.Load(rl); asked {
		t.Error("the redirect to another host was followed")
	}
	if n := s.count(rl); n != 1 {
		t.Errorf("%d requests for %s, want 1 (a refused redirect is not retried)", n, rl)
	}
}

func TestReadHTTPCancelled(t *testing.T) {
	t.Parallel()
	s := serve(t)
	s.set(func(w http.ResponseWriter, r *http.Request) bool {
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return true
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := readAll(ctx, s.srv.URL, Options{HTTP: HTTPOptions{Backoff: time.Hour, Attempts: 5}})
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want one that says it was cancelled", err)
	}
}

// TestFetcher: rsgen validate's policy through the same code: one attempt
// (a 503 is its answer, not retried), any host the caller asks for, the
// body as it is served, and a failure that says what failed without the URL.
func TestFetcher(t *testing.T) {
	t.Parallel()
	s, other := serve(t), serve(t)
	const rl = "/resourcesync/resourcelist.xml"
	s.set(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == rl {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return true
		}
		return false
	})
	f := NewFetcher(nil, 5*time.Second, "rsgen-validate", nil)
	_, _, err := f.Get(context.Background(), s.srv.URL+rl, false)
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != ErrUnreachable || pe.Err.Error() != "HTTP 503 Service Unavailable" {
		t.Errorf("Get of a busy document: %v, want ErrUnreachable saying HTTP 503 Service Unavailable", err)
	}
	if n := s.count(rl); n != 1 {
		t.Errorf("%d requests of a busy document, want 1", n)
	}
	for _, u := range []string{s.srv.URL + "/.well-known/resourcesync", other.srv.URL + rl} {
		body, ct, err := f.Get(context.Background(), u, false)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		b, err := io.ReadAll(body)
		body.Close()
		if err != nil || ct != "application/xml" || !strings.Contains(string(b), "<rs:md capability=") {
			t.Errorf("%s: %s, %d bytes, %v", u, ct, len(b), err)
		}
	}
}
