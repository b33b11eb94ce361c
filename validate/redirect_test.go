package validate_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rsgen/rsgen/validate"
)

// redirects serves /r/N as a redirect to /r/N-1, and /r/0 as one to the
// Source Description.
func redirects(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n, ok := strings.CutPrefix(r.URL.Path, "/r/"); ok {
			k, _ := strconv.Atoi(n)
			to := "/.well-known/resourcesync"
			if k > 1 {
				to = fmt.Sprintf("/r/%d", k-1)
			}
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// validate follows redirects as rsgen build follows those of --previous
// (previous.NewFetcher): five, not a sixth.
func TestSiteRedirects(t *testing.T) {
	t.Parallel()
	base := servedSite(t, redirects)
	for _, tt := range []struct {
		redirects int
		ok        bool
	}{{1, true}, {5, true}, {6, false}} {
		rep, err := validate.Site(context.Background(), fmt.Sprintf("%sr/%d", base, tt.redirects), validate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		refused := false
		for _, f := range rep.Findings {
			if f.Rule == validate.RuleFetch && strings.Contains(f.Message, "more than 5 redirects") {
				refused = true
			}
		}
		if refused == tt.ok || rep.Valid(false) != tt.ok {
			t.Errorf("%d redirects: valid %v, refused %v; findings %v", tt.redirects, rep.Valid(false), refused, rep.Findings)
		}
	}
}

// A redirect is held to the site validated, as a link is (docs/VALIDATE.md:
// "only the host of the URL given unless --cross-site"): a resource or a
// document of the site on 127.0.0.1 that redirects to another origin
// (localhost, or 127.0.0.1 on another port) is not read from there without
// Options.CrossSite (issue 22, item 9: the audit read it).
func TestRedirectToAnotherSite(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	serve := func(addr string) string {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.Write([]byte("internal"))
		}))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		srv.Listener.Close()
		srv.Listener = ln
		srv.Start()
		t.Cleanup(srv.Close)
		host, _, _ := net.SplitHostPort(addr)
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		return "http://" + net.JoinHostPort(host, port)
	}
	otherHost := serve("localhost:0")
	otherPort := serve("127.0.0.1:0")
	for _, tt := range []struct{ name, path, to string }{
		{"a resource to another host", "/index.html", otherHost + "/internal"},
		{"a resource to another port", "/index.html", otherPort + "/internal"},
		{"a document to another host", "/resourcesync/resourcelist.xml", otherHost + "/internal.xml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base := servedSite(t, at(tt.path, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, tt.to, http.StatusFound)
			}))
			hits.Store(0)
			rep, err := validate.Site(context.Background(), base, validate.Options{Fetch: true})
			if err != nil {
				t.Fatal(err)
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("%d requests reached the other site", n)
			}
			if !strings.Contains(fmt.Sprint(rep.Findings), "another site") {
				t.Errorf("no finding says the redirect leads to another site: %v", rep.Findings)
			}
			hits.Store(0)
			if _, err := validate.Site(context.Background(), base, validate.Options{Fetch: true, CrossSite: true}); err != nil {
				t.Fatal(err)
			}
			if hits.Load() == 0 {
				t.Error("with CrossSite, the redirect was not followed")
			}
		})
	}
}
