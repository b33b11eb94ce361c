package generator

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/beevik/etree"

	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/internal/text/units"
)

// The proof that rsgen's output is readable by code that shares nothing
// with rsgen: a Destination written here on github.com/beevik/etree, a
// general XML library, with the spec in hand rather than rsgen's reader
// (internal/documents/rsxml). No Go ResourceSync client is on the module proxy
// (github.com/nathj07/go-resourcesync is not served there), so the
// ResourceSync logic is this file's, the XML parsing the library's.

const (
	nsSitemap = "http://www.sitemaps.org/schemas/sitemap/0.9"
	nsRS      = "http://www.openarchives.org/rs/terms/"
)

// etreeDest is the Destination: it fetches over HTTP and parses with etree.
type etreeDest struct {
	t      *testing.T
	client *http.Client
	docs   int
}

// get fetches u and checks that Content-Length, if sent, is the body's.
func (d *etreeDest) get(u string) (int, []byte) {
	d.t.Helper()
	resp, err := d.client.Get(u)
	if err != nil {
		d.t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		d.t.Fatalf("GET %s: %v", u, err)
	}
	if resp.ContentLength >= 0 && resp.ContentLength != int64(len(body)) {
		d.t.Errorf("GET %s: Content-Length %d, body of %d bytes", u, resp.ContentLength, len(body))
	}
	return resp.StatusCode, body
}

// children returns the child elements of e named local in namespace ns.
func children(e *etree.Element, ns, local string) []*etree.Element {
	var out []*etree.Element
	for _, c := range e.ChildElements() {
		if c.Tag == local && c.NamespaceURI() == ns {
			out = append(out, c)
		}
	}
	return out
}

// md returns the attributes of the one <rs:md> child of e.
func md(t *testing.T, where string, e *etree.Element) map[string]string {
	t.Helper()
	mds := children(e, nsRS, "md")
	if len(mds) != 1 {
		t.Fatalf("%s: %d <rs:md>, want 1", where, len(mds))
	}
	attrs := map[string]string{}
	for _, a := range mds[0].Attr {
		attrs[a.Key] = a.Value
	}
	return attrs
}

// link returns the href of the first <rs:ln> child of e with rel.
func link(e *etree.Element, rel string) string {
	for _, l := range children(e, nsRS, "ln") {
		if slices.Contains(strings.Fields(l.SelectAttrValue("rel", "")), rel) {
			return l.SelectAttrValue("href", "")
		}
	}
	return ""
}

// doc fetches and parses the document at u, which must be a ResourceSync
// document of capability.
func (d *etreeDest) doc(u, capability string) (root *etree.Element, attrs map[string]string) {
	d.t.Helper()
	status, body := d.get(u)
	if status != http.StatusOK {
		d.t.Fatalf("GET %s: %d", u, status)
	}
	x := etree.NewDocument()
	if err := x.ReadFromBytes(body); err != nil {
		d.t.Fatalf("%s: %v", u, err)
	}
	root = x.Root()
	if root == nil || root.NamespaceURI() != nsSitemap || root.Tag != "urlset" && root.Tag != "sitemapindex" {
		d.t.Fatalf("%s: root %v is not a Sitemap <urlset> or <sitemapindex>", u, root)
	}
	attrs = md(d.t, u, root)
	if attrs["capability"] != capability {
		d.t.Fatalf("%s: capability %q, want %q", u, attrs["capability"], capability)
	}
	d.docs++
	return root, attrs
}

// entries returns the <url> elements of the list at u, following an index
// to its lists, in order, and whether u was an index.
func (d *etreeDest) entries(u, capability string) ([]*etree.Element, bool) {
	d.t.Helper()
	root, _ := d.doc(u, capability)
	if root.Tag == "urlset" {
		return children(root, nsSitemap, "url"), false
	}
	var all []*etree.Element
	for _, s := range children(root, nsSitemap, "sitemap") {
		loc := text(s)
		part, _ := d.doc(loc, capability)
		if part.Tag != "urlset" {
			d.t.Fatalf("%s: the index %s lists an index", loc, u)
		}
		all = append(all, children(part, nsSitemap, "url")...)
	}
	return all, true
}

// text is the <loc> of an entry.
func text(e *etree.Element) string {
	if locs := children(e, nsSitemap, "loc"); len(locs) == 1 {
		return strings.TrimSpace(locs[0].Text())
	}
	return ""
}

// check fetches the resource an entry describes and compares its length and
// sha-256 with the entry's.
func (d *etreeDest) check(where string, e *etree.Element) {
	d.t.Helper()
	loc, attrs := text(e), md(d.t, where, e)
	status, body := d.get(loc)
	if status != http.StatusOK {
		d.t.Errorf("%s: GET %s: %d", where, loc, status)
		return
	}
	if attrs["length"] != strconv.Itoa(len(body)) {
		d.t.Errorf("%s: %s has length %q, %d bytes served", where, loc, attrs["length"], len(body))
	}
	sum := sha256.Sum256(body)
	if !slices.Contains(strings.Fields(attrs["hash"]), "sha-256:"+hex.EncodeToString(sum[:])) {
		d.t.Errorf("%s: %s has hash %q, sha-256 of the bytes served %x", where, loc, attrs["hash"], sum)
	}
}

// TestIndependentClient publishes two builds of a tree (a Resource List
// split under an index, a Resource Dump, the Change List and a Change Dump),
// serves them on 127.0.0.1 and reads them as a Destination would, from
// /.well-known/resourcesync on: every resource, package and manifest
// fetched must match the length and sha-256 its entry gives, and replaying
// the Change List on the first build's files must give the second's.
func TestIndependentClient(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	srv := httptest.NewServer(staticHost(t, tr.dir))
	defer srv.Close()
	base := mustBaseURL(t, srv.URL+"/")
	cfg := Config{Source: tr.dir, BaseURL: base, At: acDay(1), FixedTime: true, Jobs: 2, Limits: Limits{MaxEntries: 3, MaxBytes: defaultLimits.MaxBytes},
		Dump: Dump{Enabled: true}, Changes: Changes{Keep: units.Duration(30 * 24 * time.Hour)}}
	mustBuild(t, cfg)
	first := map[string]string{}
	for name, content := range acFiles {
		first[name] = content
	}
	tr.write("a.txt", "alpha, again", acTime("2024-06-01T10:00:00Z"))
	tr.write("new.txt", "new", acTime("2024-06-01T11:00:00Z"))
	tr.remove("b.txt")
	cfg.At = acDay(2)
	cfg.Changes.Previous = tr.dir
	cfg.Changes.Dump = true
	rep := mustBuild(t, cfg)

	d := &etreeDest{t: t, client: srv.Client()}
	sd, _ := d.doc(base.String()+stage.WellKnownFile, "description")
	var caps []string
	for _, e := range children(sd, nsSitemap, "url") {
		if md(t, "the Source Description", e)["capability"] == "capabilitylist" {
			caps = append(caps, text(e))
		}
	}
	if len(caps) != 1 {
		t.Fatalf("the Source Description lists %q", caps)
	}
	cl, _ := d.doc(caps[0], "capabilitylist")
	byCap := map[string]string{}
	for _, e := range children(cl, nsSitemap, "url") {
		byCap[md(t, caps[0], e)["capability"]] = text(e)
	}
	for _, c := range []string{"resourcelist", "resourcedump", "changelist", "changedump"} {
		if byCap[c] == "" {
			t.Fatalf("the Capability List has no %s: %v", c, byCap)
		}
	}

	// The Resource List: every resource, with its length and digest.
	list, index := d.entries(byCap["resourcelist"], "resourcelist")
	if !index {
		t.Error("the Resource List of 5 resources with --max-entries 3 is not an index")
	}
	var locs []string
	for _, e := range list {
		locs = append(locs, strings.TrimPrefix(text(e), base.String()))
		d.check("the Resource List", e)
	}
	if want := []string{"a.txt", "d.html", "dir/c.txt", "new.txt"}; !slices.Equal(locs, want) {
		t.Errorf("the Resource List lists %q, want %q", locs, want)
	}

	// The Change List: what changed since the first build, in order.
	// Replayed on the first build's files, it gives the second's.
	changes, _ := d.entries(byCap["changelist"], "changelist")
	mirror := first
	last := ""
	for _, e := range changes {
		attrs := md(t, "the Change List", e)
		if attrs["datetime"] < last {
			t.Errorf("the Change List goes back in time at %s", text(e))
		}
		last = attrs["datetime"]
		rel := strings.TrimPrefix(text(e), base.String())
		switch attrs["change"] {
		case "created", "updated":
			d.check("the Change List", e)
			_, body := d.get(text(e))
			mirror[rel] = string(body)
		case "deleted":
			if status, _ := d.get(text(e)); status != http.StatusNotFound {
				t.Errorf("%s is deleted but served (%d)", rel, status)
			}
			delete(mirror, rel)
		default:
			t.Errorf("%s: change %q", rel, attrs["change"])
		}
	}
	for _, rel := range []string{"a.txt", "b.txt", "new.txt", "d.html", "dir/c.txt"} {
		_, body := d.get(base.String() + rel)
		if got, ok := mirror[rel]; ok != (rel != "b.txt") || ok && got != string(body) {
			t.Errorf("after the Change List the mirror has %s = %q (%v), the site %q", rel, got, ok, body)
		}
	}

	// The dumps: each package and each copy of its manifest.
	for _, c := range []string{"resourcedump", "changedump"} {
		pkgs, _ := d.entries(byCap[c], c)
		if len(pkgs) == 0 {
			t.Errorf("the %s lists no package", c)
		}
		for _, p := range pkgs {
			d.check("the "+c, p)
			manifest := link(p, "contents")
			if manifest == "" {
				t.Errorf("%s: no rel=\"contents\"", text(p))
				continue
			}
			root, attrs := d.doc(manifest, c+"-manifest")
			for _, e := range children(root, nsSitemap, "url") {
				if m := md(t, manifest, e); m["change"] != "deleted" && !strings.HasPrefix(m["path"], "/") {
					t.Errorf("%s: %s has path %q", manifest, text(e), m["path"])
				}
			}
			if c == "changedump" && (attrs["from"] == "" || attrs["until"] == "") {
				t.Errorf("%s: from %q until %q", manifest, attrs["from"], attrs["until"])
			}
		}
	}
	if d.docs > rep.Documents {
		t.Errorf("the Destination read %d documents, the build wrote %d", d.docs, rep.Documents)
	}
}
