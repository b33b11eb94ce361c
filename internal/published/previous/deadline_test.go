package previous

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/text/units"
)

// trickle sends body one byte at a time, every gap, until the client goes.
func trickle(w http.ResponseWriter, r *http.Request, body string, gap time.Duration) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	for i := range len(body) {
		w.Write([]byte{body[i]})
		f.Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(gap):
		}
	}
}

// TestReadHTTPDeadline: a server that sends a document a byte at a time,
// each in time for any per-read time-out, is given up on once the
// document's deadline passes, whatever the attempts and the time-out of one
// request allow. (Without the deadline this read takes 10 s per attempt
// and succeeds.)
func TestReadHTTPDeadline(t *testing.T) {
	t.Parallel()
	s := serve(t)
	s.set(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/resourcesync/capabilitylist.xml" {
			return false
		}
		trickle(w, r, strings.Repeat(" ", 500)+"<urlset/>", 20*time.Millisecond)
		return true
	})
	opts := fast
	opts.Timeout, opts.Attempts = time.Minute, 4
	opts.Deadline = units.Duration(200 * time.Millisecond)
	_, err := readAll(context.Background(), s.srv.URL, Options{HTTP: opts})
	var pe *Error
	if !errors.As(err, &pe) || !errors.Is(err, ErrUnreachable) || !errors.Is(err, ErrDeadline) {
		t.Fatalf("error %v, want an *Error of kind ErrUnreachable wrapping ErrDeadline", err)
	}
	if pe.Doc != s.srv.URL+"/resourcesync/capabilitylist.xml" || !strings.Contains(err.Error(), "200ms") {
		t.Errorf("error %q, want one naming the Capability List and the deadline", err)
	}
}

// TestOpenHTTPDeadline: a package streamed a byte at a time fails once its
// deadline passes, while it is read, and the error says so.
func TestOpenHTTPDeadline(t *testing.T) {
	t.Parallel()
	s := serve(t)
	s.set(func(w http.ResponseWriter, r *http.Request) bool {
		trickle(w, r, strings.Repeat("x", 500), 20*time.Millisecond)
		return true
	})
	u, _ := url.Parse(s.srv.URL + "/")
	opts := fast
	opts.Deadline = units.Duration(200 * time.Millisecond)
	rc, err := newHTTPSource(u, newReader(Options{HTTP: opts}).opts.HTTP).open(context.Background(), s.srv.URL+"/p.zip", 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	n, err := io.Copy(io.Discard, rc)
	if !errors.Is(err, ErrDeadline) {
		t.Errorf("read %d bytes, then %v; want an error wrapping ErrDeadline", n, err)
	}
}
