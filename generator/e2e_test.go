package generator

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/internal/testenv"
)

// staticHost serves the files under root by their decoded path, as nginx
// or S3 do: no directory listings, no index.html redirects.
func staticHost(t *testing.T, root string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if !strings.HasPrefix(p, "/") || slices.Contains(strings.Split(p, "/"), "..") {
			http.Error(w, "bad path", http.StatusBadRequest)
			return
		}
		f := filepath.Join(root, filepath.FromSlash(p))
		info, err := os.Stat(f)
		if err != nil || !info.Mode().IsRegular() {
			http.NotFound(w, r)
			return
		}
		data, err := os.ReadFile(f)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.Write(data)
	})
}

// httpFetcher gets a URL the way a Destination does, and checks that the
// Content-Length is that of the body.
func httpFetcher(t *testing.T, client *http.Client) fetchFunc {
	return func(u string) ([]byte, error) {
		resp, err := client.Get(u)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		if resp.ContentLength >= 0 && resp.ContentLength != int64(len(body)) {
			return nil, fmt.Errorf("GET %s: Content-Length %d, body of %d bytes", u, resp.ContentLength, len(body))
		}
		return body, nil
	}
}

// awkwardNames are published under names a URL must encode. The two é
// files differ only in Unicode normalisation: they are distinct files with
// distinct URLs.
var awkwardNames = []string{
	"with space.txt",
	"punct #?%&+;=,'!$()*@[]:.txt",
	"\u00e9t\u00e9.txt",   // NFC
	"e\u0301te\u0301.txt", // NFD
	"日本語/ファイル.txt",
	"tab\there.txt",
	"new\nline.txt",
	"percent%41.txt",
	"plus+and~tilde-_.txt",
	"empty-file",
}

// TestEndToEnd builds the example into itself, serves it over HTTP on
// 127.0.0.1 and reads it back as a Destination: from the well-known Source
// Description, through the Capability List and the Resource List Index, to
// every part and every resource, whose bytes must match their length and
// each of the four digests.
func TestEndToEnd(t *testing.T) {
	t.Parallel()
	src := copySite(t)
	for i, name := range awkwardNames {
		content := strings.Repeat(name+"\n", i)
		testenv.WriteFile(t, src, "awkward/"+name, content)
	}
	fixMtimes(t, src)

	srv := httptest.NewServer(staticHost(t, src))
	defer srv.Close()
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		t.Fatalf("test server at %s, want 127.0.0.1", srv.URL)
	}
	base := mustBaseURL(t, srv.URL+"/")
	hashes := hashing.Set{hashing.MD5, hashing.SHA1, hashing.SHA256, hashing.BLAKE3}
	cfg := Config{Source: src, BaseURL: base, Hashes: hashes, Limits: Limits{MaxEntries: 5}, Jobs: 4}
	rep := mustBuild(t, cfg)
	want := expectedFiles(t, src, true)
	if rep.Files != len(want) || len(rep.Problems) != 0 {
		t.Fatalf("report: %d files, problems %v; want %d files", rep.Files, rep.Problems, len(want))
	}
	testenv.NoStage(t, src)

	fetch := httpFetcher(t, srv.Client())
	pub := discover(t, fetch, base.String()+stage.WellKnownFile, Limits{MaxEntries: 5, MaxBytes: defaultLimits.MaxBytes})
	if !pub.list.Index || len(pub.parts) != (len(want)+4)/5 {
		t.Errorf("want an index over %d parts, got index=%v with %d parts", (len(want)+4)/5, pub.list.Index, len(pub.parts))
	}
	if pub.docs != rep.Documents {
		t.Errorf("the Destination read %d documents, the build wrote %d", pub.docs, rep.Documents)
	}

	seen := map[string]bool{}
	var got []string
	for _, e := range pub.entries {
		if seen[e.Loc] {
			t.Errorf("%s is listed twice", e.Loc)
		}
		seen[e.Loc] = true
		rel, ok := base.base.RelPath(e.Loc)
		if !ok {
			t.Errorf("%s is not under %s", e.Loc, base)
			continue
		}
		got = append(got, rel)
		body, err := fetch(e.Loc)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		info, err := os.Stat(filepath.Join(src, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		checkEntry(t, e, body, hashes, info.ModTime())
	}
	if !slices.Equal(got, want) {
		t.Errorf("published:\n %q\nwant (every regular, non-hidden file once, in order):\n %q", got, want)
	}
	for _, name := range []string{"\u00e9t\u00e9.txt", "e\u0301te\u0301.txt"} {
		if !slices.Contains(got, "awkward/"+name) {
			t.Errorf("%q is not published", name)
		}
	}
}
