package validate_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/validate"
)

// A relative href resolves against the URL of its document, as a
// Destination resolves it (RFC 3986, section 5): over HTTP as in a
// directory (testdata/broken-sites/link-resolve--relative), a relative up
// link that leads nowhere is a broken link, not a link to another site.
func TestRelativeLinksOverHTTP(t *testing.T) {
	t.Parallel()
	const head = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
`
	docs := map[string]string{
		"/.well-known/resourcesync": head + `<rs:md capability="description"/>
<url><loc>BASEresourcesync/capabilitylist.xml</loc><rs:md capability="capabilitylist"/></url></urlset>`,
		"/resourcesync/capabilitylist.xml": head + `<rs:ln rel="up" href="../.well-known/resourcesync"/><rs:md capability="capabilitylist"/>
<url><loc>BASEresourcesync/resourcelist.xml</loc><rs:md capability="resourcelist"/></url></urlset>`,
		"/resourcesync/resourcelist.xml": head + `<rs:ln rel="up" href="capabilitylist-wrong.xml"/><rs:md capability="resourcelist" at="2013-01-03T09:00:00Z"/>
<url><loc>BASEa.txt</loc></url></urlset>`,
	}
	base := serveDocs(t, docs)
	rep, err := validate.Site(context.Background(), base, validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.NotFollowed != 0 {
		t.Errorf("%d links taken for links to other sites", rep.NotFollowed)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Rule != validate.RuleLinkResolve || !strings.Contains(rep.Findings[0].Message, base+"resourcesync/capabilitylist-wrong.xml") {
		t.Errorf("findings %v, want one link-resolve of the up link, resolved", rep.Findings)
	}
}

// serveDocs serves docs (by path, with or without a leading slash) on
// 127.0.0.1 as XML, with BASE in each replaced by the URL of the server,
// which it returns, ending in a slash. onGet, if given, is told the path of
// each request.
func serveDocs(t *testing.T, docs map[string]string, onGet ...func(path string)) string {
	t.Helper()
	var base string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, f := range onGet {
			f(r.URL.Path)
		}
		doc, ok := docs[r.URL.Path]
		if !ok {
			doc, ok = docs[strings.TrimPrefix(r.URL.Path, "/")]
		}
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/xml")
		_, _ = w.Write([]byte(strings.ReplaceAll(doc, "BASE", base)))
	}))
	t.Cleanup(srv.Close)
	base = srv.URL + "/"
	return base
}
