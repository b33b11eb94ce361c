package hosting_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/documents/mediatype"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

func TestHandler(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String() + "/"
	out := build(t, base, hosting.Netlify)
	if err := os.WriteFile(filepath.Join(out, ".env"), []byte("SECRET=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	serve(t, srv, out)
	link := "<" + base + `resourcesync/capabilitylist.xml>; rel="resourcesync"`
	tests := []struct {
		path, contentType string
		status            int
		body              string
	}{
		{".well-known/resourcesync", "application/xml", 200, "<urlset"},
		{"resourcesync/capabilitylist.xml", "application/xml", 200, "capabilitylist"},
		{"resourcesync/", "text/html", 200, "<h1>ResourceSync</h1>"},
		{"resourcesync/robots.txt", "text/plain", 200, "Sitemap: " + base + "resourcesync/resourcelist.xml"},
		{".env", "", 404, ""},
		{hosting.Headers, "", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			body := checkServed(t, http.DefaultClient, base+tt.path, tt.status, tt.contentType, link)
			if !strings.Contains(string(body), tt.body) {
				t.Errorf("body lacks %q", tt.body)
			}
		})
	}
}

// serve starts srv with the handler of the output out, until the test ends.
func serve(t *testing.T, srv *httptest.Server, out string) {
	t.Helper()
	h, err := hosting.NewHandler(out, "")
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = h
	srv.Start()
	t.Cleanup(func() { srv.Close(); h.Close() })
}

// checkServed gets u and checks its status and, for a 200, its media type
// and the Link header that points to the Capability List; it returns the
// body.
func checkServed(t *testing.T, client *http.Client, u string, status int, contentType, link string) []byte {
	t.Helper()
	resp, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != status {
		t.Fatalf("HTTP %d, want %d", resp.StatusCode, status)
	}
	if status != 200 {
		return body
	}
	if ct, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";"); ct != contentType {
		t.Errorf("Content-Type %q, want %s", ct, contentType)
	}
	if got := resp.Header.Get("Link"); got != link {
		t.Errorf("Link %q, want %q", got, link)
	}
	return body
}

// Over several resource sets, every response links to each set's
// Capability List, and each set's documents are XML.
func TestHandlerSets(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String() + "/"
	out := t.TempDir()
	docs, _ := generator.ParseBaseURL(base)
	site := generator.Site{Out: out, DocsURL: docs}
	for _, name := range []string{"articles", "data"} {
		src := t.TempDir()
		if err := os.WriteFile(filepath.Join(src, "f.txt"), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		c := generator.Config{Set: name, Source: src}
		c.BaseURL, _ = generator.ParseBaseURL(base + name + "/")
		site.Sets = append(site.Sets, c)
	}
	if _, err := generator.BuildSite(context.Background(), site); err != nil {
		t.Fatal(err)
	}
	serve(t, srv, out)
	resp, err := http.Get(base + "resourcesync/data/resourcelist.xml")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := []string{"<" + base + `resourcesync/articles/capabilitylist.xml>; rel="resourcesync"`, "<" + base + `resourcesync/data/capabilitylist.xml>; rel="resourcesync"`}
	if got := resp.Header.Values("Link"); !slices.Equal(got, want) {
		t.Errorf("Link %q, want %q", got, want)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/xml" {
		t.Errorf("Content-Type %q", ct)
	}
}

// Every file is served with the media type its entry in the Resource List
// says (package mediatype for both), not the one of the machine's
// mime.types or of sniffing: records.jsonl is application/jsonl, not
// text/plain, which rsgen validate --fetch would warn about.
func TestHandlerTypesAsListed(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String() + "/"
	src := t.TempDir()
	for name, data := range map[string]string{
		"records.jsonl": `{"a":1}` + "\n", "notes.md": "# notes\n", "data.ttl": "<a> <b> <c> .\n",
		"map.geojson": `{"type":"Point"}`, "page.html": "<!doctype html><title>x</title>", "plain.txt": "text\n",
		"rows.csv": "a,b\n1,2\n", "feed.xml": "<feed/>", "unknown.zzz": "some text\n", "pic.svg": "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
	} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := generator.ParseBaseURL(base)
	cfg := generator.Config{Source: src, BaseURL: b, At: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), FixedTime: true}
	if _, err := generator.Build(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	serve(t, srv, src)
	f, err := os.Open(filepath.Join(src, "resourcesync", "resourcelist.xml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, entries, err := rsxml.ReadAll(f, rsxml.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 10 {
		t.Fatalf("%d entries, want 10", len(entries))
	}
	for _, e := range entries {
		resp, err := http.Get(e.Loc)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := mediatype.Bare(resp.Header.Get("Content-Type")); got != e.MD.Type {
			t.Errorf("%s served as %s, its entry says %s", e.Loc, got, e.MD.Type)
		}
	}
}
