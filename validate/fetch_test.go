package validate_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rsgen/rsgen/validate"
)

// handSite serves a Source Description, a Capability List and a Resource
// List that lists resources (path → content its entry describes), and
// serves each path with the handler given.
func handSite(t *testing.T, resources map[string]string, serve map[string]http.HandlerFunc) string {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	base := srv.URL + "/"
	xml := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">%s</urlset>`, body)
		}
	}
	mux.Handle("/.well-known/resourcesync", xml(`<rs:md capability="description"/><url><loc>`+base+`resourcesync/capabilitylist.xml</loc><rs:md capability="capabilitylist"/></url>`))
	mux.Handle("/resourcesync/capabilitylist.xml", xml(`<rs:ln rel="up" href="`+base+`.well-known/resourcesync"/><rs:md capability="capabilitylist"/><url><loc>`+base+`resourcesync/resourcelist.xml</loc><rs:md capability="resourcelist"/></url>`))
	var entries strings.Builder
	for p, content := range resources {
		sum := sha256.Sum256([]byte(content))
		fmt.Fprintf(&entries, `<url><loc>%s%s</loc><rs:md hash="sha-256:%s" length="%d" type="text/plain"/></url>`, base, p, hex.EncodeToString(sum[:]), len(content))
	}
	mux.Handle("/resourcesync/resourcelist.xml", xml(`<rs:ln rel="up" href="`+base+`resourcesync/capabilitylist.xml"/><rs:md capability="resourcelist" at="2024-06-01T00:00:00Z"/>`+entries.String()))
	for p, h := range serve {
		mux.Handle("/"+p, h)
	}
	return base
}

// TestFetchStopsPastLength: a resource served longer than its entry's
// length is reported as such after length+1 bytes, not read to its end
// (issue 9, item 11).
func TestFetchStopsPastLength(t *testing.T) {
	t.Parallel()
	var served atomic.Int64
	const limit = 64 << 20 // what the server would send at most
	base := handSite(t, map[string]string{"endless.txt": "ten bytes!"}, map[string]http.HandlerFunc{
		"endless.txt": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			chunk := []byte(strings.Repeat("ten bytes!", 6554))
			for served.Load() < limit {
				n, err := w.Write(chunk)
				served.Add(int64(n))
				if err != nil {
					return
				}
			}
		},
	})
	rep, err := validate.Site(context.Background(), base, validate.Options{Fetch: true})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range rep.Findings {
		if f.Rule == validate.RuleAuditLength && strings.Contains(f.Message, "more than") {
			found = true
		} else {
			t.Errorf("unexpected finding %s", f)
		}
	}
	if !found {
		t.Errorf("no audit-length finding of a body longer than its length: %v", rep.Findings)
	}
	// The server's writes go on until the connection closes; socket
	// buffers take some megabytes. All of it would be 64 MB.
	if n := served.Load(); n >= limit/2 {
		t.Errorf("the server wrote %d bytes: the body was read past its length", n)
	}
}

// TestFetchTimeoutPerRequest: --timeout bounds a whole request, not each
// gap between bytes: a resource trickled a byte at a time for far longer
// fails (issue 9, item 11).
func TestFetchTimeoutPerRequest(t *testing.T) {
	t.Parallel()
	content := strings.Repeat("x", 40)
	base := handSite(t, map[string]string{"slow.txt": content}, map[string]http.HandlerFunc{
		"slow.txt": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Length", fmt.Sprint(len(content)))
			for i := range len(content) {
				w.Write([]byte{content[i]})
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(50 * time.Millisecond): // 2 s in all
				}
			}
		},
	})
	rep, err := validate.Site(context.Background(), base, validate.Options{Fetch: true, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range rep.Findings {
		if f.Rule == validate.RuleAuditMissing && strings.Contains(f.Message, "within") {
			found = true
		} else {
			t.Errorf("unexpected finding %s", f)
		}
	}
	if !found {
		t.Errorf("no finding of a download that outlasted the timeout: %v", rep.Findings)
	}
}

// TestAuditOrderIndependent: the report of an audit with -j 4 is that of
// -j 1 even when later downloads finish first: which findings of a rule
// are kept past MaxPerRule, and which unreached resources are named,
// follow the order of the entries, not of the answers.
func TestAuditOrderIndependent(t *testing.T) {
	t.Parallel()
	const n, jobs = 2*validate.MaxPerRule + 4, 4
	report := func(gated bool, jobs int) *validate.Report {
		mux := http.NewServeMux()
		srv := httptest.NewServer(mux)
		defer srv.Close()
		base := srv.URL + "/"
		xml := func(body string) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/xml")
				fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">%s</urlset>`, body)
			}
		}
		mux.Handle("/.well-known/resourcesync", xml(`<rs:md capability="description"/><url><loc>`+base+`capabilitylist.xml</loc><rs:md capability="capabilitylist"/></url>`))
		mux.Handle("/capabilitylist.xml", xml(`<rs:ln rel="up" href="`+base+`.well-known/resourcesync"/><rs:md capability="capabilitylist"/><url><loc>`+base+`resourcelist.xml</loc><rs:md capability="resourcelist"/></url>`))
		// All entries on one line: only their order tells them apart.
		var entries strings.Builder
		done := make([]chan struct{}, n)
		for i := range n {
			done[i] = make(chan struct{})
			p := fmt.Sprintf("r%02d.txt", i)
			sum := sha256.Sum256([]byte(p))
			fmt.Fprintf(&entries, `<url><loc>%s%s</loc><rs:md hash="sha-256:%x" length="%d" type="text/plain"/></url>`, base, p, sum, len(p))
			mux.HandleFunc("/"+p, func(w http.ResponseWriter, r *http.Request) {
				defer close(done[i])
				// Within each run of jobs entries, the last answers first.
				if gated && i%jobs != jobs-1 && i+1 < n {
					select {
					case <-done[i+1]:
					case <-r.Context().Done():
						return
					}
				}
				w.Header().Set("Content-Type", "text/html")
				w.Write([]byte(p))
				w.(http.Flusher).Flush()
			})
		}
		for i := range 5 {
			fmt.Fprintf(&entries, `<url><loc>https://elsewhere.example/x%d.txt</loc></url>`, i)
		}
		mux.Handle("/resourcelist.xml", xml(`<rs:ln rel="up" href="`+base+`capabilitylist.xml"/><rs:md capability="resourcelist" at="2024-06-01T00:00:00Z"/>`+entries.String()))
		rep, err := validate.Site(context.Background(), base, validate.Options{Fetch: true, Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		// The port differs from server to server.
		for i := range rep.Findings {
			rep.Findings[i].Document = strings.ReplaceAll(rep.Findings[i].Document, base, "BASE/")
			rep.Findings[i].Message = strings.ReplaceAll(rep.Findings[i].Message, base, "BASE/")
		}
		for i := range rep.Documents {
			rep.Documents[i] = strings.ReplaceAll(rep.Documents[i], base, "BASE/")
		}
		return rep
	}
	want, got := report(false, 1), report(true, jobs)
	if want.ByRule[validate.RuleAuditType] != n {
		t.Fatalf("%d audit-type findings, want %d: %v", want.ByRule[validate.RuleAuditType], n, want.Findings)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("-j %d reports\n%s\n-j 1 reports\n%s", jobs, text(got), text(want))
	}
	for _, f := range want.Findings {
		if f.Rule == validate.RuleAuditUnreached && !strings.HasSuffix(f.Message, "x0.txt, https://elsewhere.example/x1.txt, https://elsewhere.example/x2.txt and 2 more") {
			t.Errorf("the unreached resources named are not the first three listed: %s", f)
		}
	}
}

func text(r *validate.Report) string {
	var b strings.Builder
	for _, f := range r.Findings {
		fmt.Fprintln(&b, f)
	}
	return b.String()
}
