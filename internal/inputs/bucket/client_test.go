package bucket

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/smithy-go/logging"
)

// TestHTTPClientTimeouts: a server that accepts connections and never
// answers, or stops in the middle of a body, fails the request instead of
// hanging it.
func TestHTTPClientTimeouts(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // never answers
		}
	}()
	c := httpClient(100 * time.Millisecond)
	if _, err := c.Do(mustRequest(t, "http://"+l.Addr().String()+"/")); err == nil {
		t.Error("a server that never answers: no error")
	}

	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "10")
		w.Write([]byte("12345"))
		w.(http.Flusher).Flush()
		<-stop // the rest never comes
	}))
	defer srv.Close()
	defer close(stop) // before srv.Close, which waits for the handler
	resp, err := c.Do(mustRequest(t, srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Errorf("a body that stops coming: %v, want a timeout", err)
	}
}

func mustRequest(t *testing.T, url string) *http.Request {
	r, err := http.NewRequestWithContext(context.Background(), "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestClientQuiet: the SDK logs nothing (its notices went to stderr, even
// under -q), and its client waits for nothing without a bound.
func TestClientQuiet(t *testing.T) {
	t.Parallel()
	b, err := Open(context.Background(), "s3://bkt/", config.WithRegion("us-east-1"))
	if err != nil {
		t.Fatal(err)
	}
	o := b.client.Options()
	if _, ok := o.Logger.(logging.Nop); !ok {
		t.Errorf("the SDK's logger is %T, want logging.Nop", o.Logger)
	}
	if tr := o.HTTPClient.(interface{ GetTransport() *http.Transport }).GetTransport(); tr.ResponseHeaderTimeout == 0 {
		t.Error("no ResponseHeaderTimeout")
	}
}
