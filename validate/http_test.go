package validate_test

import (
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/validate"
)

// servedSite builds the example collection in place (content and
// documents in one directory) and serves it on 127.0.0.1 the way
// rsgen serve does, through wrap.
func servedSite(t *testing.T, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	dir := t.TempDir()
	err := filepath.WalkDir("../testdata/site", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("../testdata/site", p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, rel), data, 0o644)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String() + "/"
	b, _ := generator.ParseBaseURL(base)
	cfg := generator.Config{Source: dir, BaseURL: b, At: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), FixedTime: true}
	if _, err := generator.Build(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	h, err := hosting.NewHandler(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	srv.Config.Handler = wrap(h)
	srv.Start()
	t.Cleanup(srv.Close)
	return base
}

// at changes what the site answers for one path.
func at(path string, h http.HandlerFunc) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == path {
				h(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func asIs(h http.Handler) http.Handler { return h }

// typed serves path with the Content-Type ct, whatever the handler says.
func typed(path, ct string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == path {
				w = &forcedType{ResponseWriter: w, ct: ct}
			}
			next.ServeHTTP(w, r)
		})
	}
}

type forcedType struct {
	http.ResponseWriter
	ct    string
	wrote bool
}

func (f *forcedType) WriteHeader(code int) {
	if !f.wrote {
		f.wrote = true
		f.Header().Set("Content-Type", f.ct)
		f.ResponseWriter.WriteHeader(code)
	}
}

func (f *forcedType) Write(b []byte) (int, error) {
	f.WriteHeader(http.StatusOK)
	return f.ResponseWriter.Write(b)
}

func TestSiteOverHTTP(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		wrap   func(http.Handler) http.Handler
		start  string // relative to the site
		opts   validate.Options
		rule   string // "" for a valid site
		errors bool
	}{
		{name: "valid", wrap: asIs},
		{name: "valid, with the audit", wrap: asIs, opts: validate.Options{Fetch: true}},
		{name: "valid, from the Resource List", wrap: asIs, start: "resourcesync/resourcelist.xml"},
		{name: "no Source Description", wrap: at("/.well-known/resourcesync", http.NotFound), rule: validate.RuleWellKnown, errors: true},
		{name: "document not found", wrap: asIs, start: "resourcesync/missing.xml", rule: validate.RuleFetch, errors: true},
		{name: "listed document not found", wrap: at("/resourcesync/resourcelist.xml", http.NotFound), rule: validate.RuleLinkResolve, errors: true},
		{name: "Source Description as octets", wrap: typed("/.well-known/resourcesync", "application/octet-stream"), rule: validate.RuleContentType},
		{name: "resource of another type", wrap: typed("/articles/first-article.html", "text/plain"), opts: validate.Options{Fetch: true}, rule: validate.RuleAuditType},
		{name: "resource missing", wrap: at("/index.html", http.NotFound), opts: validate.Options{Fetch: true}, rule: validate.RuleAuditMissing, errors: true},
		{name: "resource changed, same length", wrap: at("/index.html", func(w http.ResponseWriter, r *http.Request) {
			page, _ := os.ReadFile("../testdata/site/index.html")
			page[0] ^= 1
			w.Header().Set("Content-Type", "text/html")
			w.Write(page)
		}), opts: validate.Options{Fetch: true}, rule: validate.RuleAuditHash, errors: true},
		{name: "resource changed, other length", wrap: at("/data/empty.txt", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("x"))
		}), opts: validate.Options{Fetch: true}, rule: validate.RuleAuditLength, errors: true},
		{name: "too many documents", wrap: asIs, opts: validate.Options{MaxDocuments: 2}, rule: validate.RuleLimitDocuments},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := servedSite(t, tt.wrap)
			rep, err := validate.Site(context.Background(), base+tt.start, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range rep.Findings {
				switch {
				case f.Rule == tt.rule:
					found = true
				case f.Rule == validate.RuleAuditType && tt.opts.Fetch:
					// The types Go serves depend on the machine's mime.types.
				default:
					t.Errorf("unexpected finding %s", f)
				}
			}
			if tt.rule != "" && !found {
				t.Errorf("no finding of rule %s", tt.rule)
			}
			if (rep.Errors > 0) != tt.errors {
				t.Errorf("%d errors, want errors: %v", rep.Errors, tt.errors)
			}
			if tt.opts.Fetch && tt.rule != validate.RuleAuditMissing && rep.Audited != 9 {
				t.Errorf("%d resources audited, want 9", rep.Audited)
			}
		})
	}
}

// TestSiteRequests: validate asks as rsgen build reads a previous build
// (one fetch code): documents as XML and not from a cache (a CDN's copy is
// not what is published now), resources as their stored bytes.
func TestSiteRequests(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	bad := map[string]string{}
	base := servedSite(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			doc := r.URL.Path == "/.well-known/resourcesync" || strings.HasPrefix(r.URL.Path, "/resourcesync/")
			var why string
			switch {
			case !strings.HasPrefix(r.UserAgent(), "rsgen-validate "):
				why = "User-Agent " + r.UserAgent()
			case doc && (r.Header.Get("Cache-Control") != "no-cache" || !strings.HasPrefix(r.Header.Get("Accept"), "application/xml")):
				why = "Cache-Control " + r.Header.Get("Cache-Control") + ", Accept " + r.Header.Get("Accept")
			case !doc && r.Header.Get("Accept-Encoding") != "identity":
				why = "Accept-Encoding " + r.Header.Get("Accept-Encoding")
			}
			if why != "" {
				mu.Lock()
				bad[r.URL.Path] = why
				mu.Unlock()
			}
			next.ServeHTTP(w, r)
		})
	})
	rep, err := validate.Site(context.Background(), base, validate.Options{Fetch: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Audited != 9 {
		t.Errorf("%d resources audited, want 9", rep.Audited)
	}
	for p, why := range bad {
		t.Errorf("%s requested with %s", p, why)
	}
}
