//go:build unix

package hosting_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rsgen/rsgen/hosting"
)

// get asks h for target, written as it comes on the wire (not cleaned).
func get(t *testing.T, h http.Handler, target string) (int, string, http.Header) {
	t.Helper()
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
		done <- w
	}()
	select {
	case w := <-done:
		body, _ := io.ReadAll(w.Result().Body)
		return w.Code, string(body), w.Result().Header
	case <-time.After(10 * time.Second):
		t.Fatalf("GET %s blocked", target)
		return 0, "", nil
	}
}

// TestHandlerConfined: nothing outside the served directories is served,
// whether a symbolic link leads there (to a file or a directory) or the URL
// climbs with "..", plain or percent-encoded; nor are hidden files, rsgen's
// host configuration, or a FIFO (which must not block the request). A
// directory listing names none of them. Links that stay inside are followed.
func TestHandlerConfined(t *testing.T) {
	t.Parallel()
	out := build(t, "http://127.0.0.1:8000/", hosting.Netlify)
	outside := filepath.Join(filepath.Dir(out), "outside")
	if err := os.MkdirAll(outside, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(p, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(out, name)); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "shadow"), "SECRET")
	write(filepath.Join(out, ".env"), "SECRET")
	write(filepath.Join(out, "pages", ".git", "config"), "SECRET")
	write(filepath.Join(out, "pages", "page.html"), "<p>page</p>")
	link(filepath.Join(outside, "shadow"), "shadow") // a file outside, absolute
	link("../outside/shadow", "pages-shadow")        // a file outside, relative
	link(outside, "etc")                             // a directory outside
	link("pages/page.html", "alias")                 // inside: followed
	link("pages", "more")                            // a directory inside: followed
	link(".env", "env.txt")                          // a hidden file inside: not served by another name
	link("pages/.git", "git")                        // a hidden directory inside
	link(hosting.Headers, "headers.txt")             // rsgen's host configuration
	if err := syscall.Mkfifo(filepath.Join(out, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := hosting.NewHandler(out, "")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()

	for _, target := range []string{
		"/shadow", "/pages-shadow", "/etc/shadow", "/etc/", "/etc",
		"/../outside/shadow", "/pages/../../outside/shadow", "/%2e%2e/outside/shadow", "/pages/%2E%2E/%2e%2e/outside/shadow",
		"/pages/..%2f..%2foutside/shadow", "/.%2e/outside/shadow",
		"/.env", "/pages/.git/config", "/pages/.git/", "/pages/.git", "/" + hosting.Headers, "/fifo",
		"/env.txt", "/git/config", "/git/", "/headers.txt",
	} {
		code, body, _ := get(t, h, target)
		if code != http.StatusNotFound || strings.Contains(body, "SECRET") {
			t.Errorf("GET %s: HTTP %d, want 404\n%.200s", target, code, body)
		}
	}
	for target, want := range map[string]string{
		"/alias":                    "<p>page</p>",
		"/more/page.html":           "<p>page</p>",
		"/.well-known/resourcesync": "<urlset",
	} {
		if code, body, _ := get(t, h, target); code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("GET %s: HTTP %d, want 200 with %q\n%.200s", target, code, want, body)
		}
	}
	code, body, _ := get(t, h, "/")
	if code != http.StatusOK {
		t.Fatalf("GET /: HTTP %d", code)
	}
	for _, name := range []string{"shadow", "etc", "fifo", ".env", hosting.Headers, "env.txt", "git", "headers.txt"} {
		if strings.Contains(body, `href="`+name) {
			t.Errorf("the listing of / names %s:\n%s", name, body)
		}
	}
	for _, name := range []string{"alias", "more/", "pages/", "resourcesync/", ".well-known/"} {
		if !strings.Contains(body, `href="`+name+`"`) {
			t.Errorf("the listing of / lacks %s:\n%s", name, body)
		}
	}
	if _, body, _ := get(t, h, "/pages/"); strings.Contains(body, ".git") {
		t.Errorf("the listing of /pages/ names .git:\n%s", body)
	}
}

// TestHandlerContent: with the collection as content, what the output
// directory lacks is served from there, under the same rules, and a
// directory lists both.
func TestHandlerContent(t *testing.T) {
	t.Parallel()
	out := build(t, "http://127.0.0.1:8000/")
	h, err := hosting.NewHandler(out, "../testdata/site")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for target, want := range map[string]string{
		"/":                                         "<html",
		"/articles/first-article.html":              "<",
		"/resourcesync/capabilitylist.xml":          "capabilitylist",
		"/.well-known/resourcesync":                 "<urlset",
		"/docs/annual%20report/README":              "",
		"/images/photo%20%231.png":                  "PNG",
		"/articles/caf%C3%A9%20&%20cr%C3%A8me.html": "<",
	} {
		code, body, hdr := get(t, h, target)
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("GET %s: HTTP %d, want 200 with %q\n%.200s", target, code, want, body)
		}
		if hdr.Get("Link") != `<http://127.0.0.1:8000/resourcesync/capabilitylist.xml>; rel="resourcesync"` {
			t.Errorf("GET %s: Link %q", target, hdr.Get("Link"))
		}
	}
	if code, _, _ := get(t, h, "/.hidden-note"); code != http.StatusNotFound {
		t.Errorf("GET /.hidden-note: HTTP %d, want 404", code)
	}
	if code, _, hdr := get(t, h, "/index.html"); code != http.StatusMovedPermanently || hdr.Get("Location") != "./" {
		t.Errorf("GET /index.html: HTTP %d to %q, want a redirect to ./", code, hdr.Get("Location"))
	}
	// Without the content, the output directory holds only the documents.
	bare, err := hosting.NewHandler(out, "")
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	if code, _, _ := get(t, bare, "/articles/first-article.html"); code != http.StatusNotFound {
		t.Errorf("without content: HTTP %d, want 404", code)
	}
}
