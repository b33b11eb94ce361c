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

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/hosting"
)

func TestHandler(t *testing.T) {
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
