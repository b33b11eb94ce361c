package generator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/internal/testenv"
)

// siteOf is a Site of two sets, articles and data, over the trees a and d,
// published into out at, each reading the previous build in out.
func siteOf(t *testing.T, a, d *acTree, out string, at time.Time) Site {
	base := mustBaseURL(t, acBase)
	set := func(name string, tr *acTree, path string) Config {
		c := acConfig(tr.dir, "", at)
		c.Set = name
		c.BaseURL = mustBaseURL(t, acBase+path)
		c.Changes.Previous = out
		c.Changes.FirstBuildOK = true
		return c
	}
	return Site{Out: out, DocsURL: base, Describedby: acBase + "about.html",
		Sets: []Config{set("articles", a, "articles/"), set("data", d, "data/")}}
}

func mustBuildSite(t *testing.T, site Site) *SiteReport {
	t.Helper()
	rep, err := BuildSite(context.Background(), site)
	if err != nil {
		t.Fatalf("BuildSite: %v", err)
	}
	return rep
}

// TestBuildSite publishes two sets into one output across three builds:
// one Source Description lists both Capability Lists, each set keeps its
// own Resource List and Change List, the output is valid for rsgen
// validate and the official schemas, and each set's history is its own.
func TestBuildSite(t *testing.T) {
	t.Parallel()
	a := acNewTree(t, map[string]string{"one.html": "1", "two.html": "2"}, acDay(1))
	d := acNewTree(t, map[string]string{"x.csv": "x"}, acDay(1))
	out := t.TempDir()
	// Each set with a hash cache, and a clock an hour ahead (acCachedConfig).
	cacheFiles := []string{filepath.Join(t.TempDir(), "a.cache"), filepath.Join(t.TempDir(), "d.cache")}
	withCaches := func(s Site) Site {
		for i := range s.Sets {
			s.Sets[i].Cache, s.Sets[i].now = cacheFiles[i], func() time.Time { return time.Now().Add(time.Hour) }
		}
		return s
	}
	rep := mustBuildSite(t, withCaches(siteOf(t, a, d, out, acDay(2))))
	if len(rep.Sets) != 2 || rep.Sets[0].Files != 2 || rep.Sets[1].Files != 1 {
		t.Fatalf("report %+v", rep)
	}
	acValidate(t, out)
	_, sd := testenv.ReadDoc(t, filepath.Join(out, stage.WellKnownFile))
	var lists []string
	for _, e := range sd {
		lists = append(lists, e.Loc+" "+e.Link("describedby"))
	}
	want := []string{acBase + "resourcesync/articles/capabilitylist.xml ", acBase + "resourcesync/data/capabilitylist.xml "}
	if !slices.Equal(lists, want) {
		t.Errorf("Source Description lists %q, want %q", lists, want)
	}
	for _, p := range []string{"resourcesync/articles/resourcelist.xml", "resourcesync/data/resourcelist.xml", "resourcesync/articles/index.html"} {
		if _, err := os.Stat(filepath.Join(out, p)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, docsDir, "capabilitylist.xml")); err == nil {
		t.Error("a Capability List of no set in resourcesync/")
	}

	// The second build: one article changes, data does not; each set's
	// hash cache spares what did not change, counted by set.
	a.write("two.html", "2b", acDay(3))
	rep = mustBuildSite(t, withCaches(siteOf(t, a, d, out, acDay(4))))
	if rep.Sets[0].Cached != 1 || rep.Sets[1].Cached != 1 {
		t.Errorf("files found in the hash caches: %d and %d, want 1 and 1", rep.Sets[0].Cached, rep.Sets[1].Cached)
	}
	if c := rep.Sets[0].Changes; c == nil || c.Updated != 1 {
		t.Errorf("articles: changes %+v, want 1 updated", c)
	}
	if c := rep.Sets[1].Changes; c == nil || c.Updated+c.Created+c.Deleted != 0 {
		t.Errorf("data: changes %+v, want none", c)
	}
	_, cl := testenv.ReadDoc(t, filepath.Join(out, docsDir, "articles", "changelist.xml"))
	if got := acChangeLines(cl); len(got) != 1 || !strings.HasPrefix(got[0], "updated articles/two.html ") {
		t.Errorf("articles' Change List %q", got)
	}
	if _, err := os.Stat(filepath.Join(out, docsDir, "data", "changelist.xml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("data, unchanged, has a Change List: %v", err)
	}
	acValidate(t, out)

	// The third build adds a set: it starts its own history.
	m := acNewTree(t, map[string]string{"m.txt": "m"}, acDay(1))
	site := siteOf(t, a, d, out, acDay(5))
	extra := site.Sets[1]
	extra.Set, extra.Source, extra.BaseURL = "media", m.dir, mustBaseURL(t, acBase+"media/")
	site.Sets = append(site.Sets, extra)
	rep = mustBuildSite(t, site)
	if !slices.Equal(rep.Added, []string{"media"}) || rep.Sets[2].Changes != nil {
		t.Errorf("added %q, media's changes %+v; want media added, with no changes", rep.Added, rep.Sets[2].Changes)
	}
	if _, cl := testenv.ReadDoc(t, filepath.Join(out, docsDir, "articles", "changelist.xml")); len(cl) != 1 {
		t.Errorf("articles' history lost: %d changes", len(cl))
	}
	acValidate(t, out)
}

// TestBuildSiteRemovedSet refuses to drop a set the previous build
// published, leaving the output as it was, unless RemoveSets names it; a
// site that replaces a build without sets is refused the same way.
func TestBuildSiteRemovedSet(t *testing.T) {
	t.Parallel()
	a := acNewTree(t, map[string]string{"one.html": "1"}, acDay(1))
	d := acNewTree(t, map[string]string{"x.csv": "x"}, acDay(1))
	out := t.TempDir()
	mustBuildSite(t, siteOf(t, a, d, out, acDay(2)))
	before := testenv.Snapshot(t, out)

	site := siteOf(t, a, d, out, acDay(3))
	site.Sets = site.Sets[:1]
	_, err := BuildSite(context.Background(), site)
	var re *Error
	if !errors.As(err, &re) || re.Kind != KindSetRemoved || !slices.Equal(re.Sets, []string{"data"}) {
		t.Fatalf("BuildSite without data: %v, want a SetRemovedError for data", err)
	}
	testenv.SameSnapshot(t, "the output", testenv.Snapshot(t, out), before)
	testenv.NoStage(t, out)

	site.RemoveSets = []string{"data"}
	rep := mustBuildSite(t, site)
	if !slices.Equal(rep.Removed, []string{"data"}) {
		t.Errorf("removed %q", rep.Removed)
	}
	if _, err := os.Stat(filepath.Join(out, docsDir, "data")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the removed set's documents are still published: %v", err)
	}
	acValidate(t, out)

	// A build without sets, then a site: the one set is refused too.
	single := t.TempDir()
	cfg := acConfig(a.dir, single, acDay(2))
	mustBuild(t, cfg)
	site = siteOf(t, a, d, single, acDay(3))
	if _, err := BuildSite(context.Background(), site); !errors.As(err, &re) || re.Kind != KindSetRemoved || !slices.Equal(re.Sets, []string{oneSet}) {
		t.Fatalf("a site over a build without sets: %v, want a SetRemovedError for %s", err, oneSet)
	}
	site.RemoveSets = []string{oneSet}
	mustBuildSite(t, site)
	acValidate(t, single)

	// And back: a build without sets over a site is refused by the reading
	// of the previous build.
	cfg = acConfig(a.dir, single, acDay(4))
	cfg.Changes.Previous = single
	if _, err := Build(context.Background(), cfg); !errors.Is(err, errPrevious) || !strings.Contains(err.Error(), "resource set") {
		t.Errorf("a build without sets over a site: %v, want ErrPrevious naming the sets", err)
	}
}

// A site published at other URLs (moved, or read under another name) is
// not a first build of each set: it is refused as for a build without
// sets, whatever FirstBuildOK says, unless NewHistory starts afresh.
func TestBuildSiteMoved(t *testing.T) {
	t.Parallel()
	a := acNewTree(t, map[string]string{"one.html": "1"}, acDay(1))
	d := acNewTree(t, map[string]string{"x.csv": "x"}, acDay(1))
	out := t.TempDir()
	mustBuildSite(t, siteOf(t, a, d, out, acDay(2)))
	a.write("two.html", "2", acDay(2))
	mustBuildSite(t, siteOf(t, a, d, out, acDay(3)))
	before := testenv.Snapshot(t, out)

	moved := siteOf(t, a, d, out, acDay(4))
	moved.DocsURL = mustBaseURL(t, "https://other.example/")
	for i := range moved.Sets {
		moved.Sets[i].BaseURL = mustBaseURL(t, "https://other.example/"+moved.Sets[i].Set+"/")
	}
	_, err := BuildSite(context.Background(), moved)
	var ose *Error
	if !errors.As(err, &ose) || ose.Kind != KindOtherSite {
		t.Fatalf("a moved site: %v, want an OtherSiteError", err)
	}
	testenv.SameSnapshot(t, "after the refused build", testenv.Snapshot(t, out), before)
	for i := range moved.Sets {
		moved.Sets[i].Changes.NewHistory = true
	}
	rep := mustBuildSite(t, moved)
	if rep.Sets[0].Changes != nil || len(rep.Added) != 0 {
		t.Errorf("a new history: changes %+v, added %q", rep.Sets[0].Changes, rep.Added)
	}
	acValidate(t, out)
}

// A site of one set links the set's describedby from its entry in the
// Source Description, as for several.
func TestBuildSiteOneSetDescribedby(t *testing.T) {
	t.Parallel()
	a := acNewTree(t, map[string]string{"one.html": "1"}, acDay(1))
	out := t.TempDir()
	site := siteOf(t, a, a, out, acDay(2))
	site.Sets = site.Sets[:1]
	site.Sets[0].Describedby = acBase + "about/articles.html"
	mustBuildSite(t, site)
	_, sd := testenv.ReadDoc(t, filepath.Join(out, stage.WellKnownFile))
	if len(sd) != 1 || sd[0].Link("describedby") != acBase+"about/articles.html" {
		t.Errorf("the Source Description lists %+v", sd)
	}
}

// TestBuildSiteAllOrNothing: a set that fails leaves the output as the
// previous build published it, every set's documents included.
func TestBuildSiteAllOrNothing(t *testing.T) {
	t.Parallel()
	a := acNewTree(t, map[string]string{"one.html": "1"}, acDay(1))
	d := acNewTree(t, map[string]string{"x.csv": "x"}, acDay(1))
	out := t.TempDir()
	mustBuildSite(t, siteOf(t, a, d, out, acDay(2)))
	before := testenv.Snapshot(t, out)

	a.write("new.html", "n", acDay(2))
	d.remove("x.csv") // data is now empty: refused (KindEmptySource)
	_, err := BuildSite(context.Background(), siteOf(t, a, d, out, acDay(3)))
	var se *Error
	if !errors.As(err, &se) || se.Kind != KindEmptySource || se.Set != "data" {
		t.Fatalf("BuildSite with data empty: %v, want KindEmptySource of the set data", err)
	}
	testenv.SameSnapshot(t, "the output", testenv.Snapshot(t, out), before)
	testenv.NoStage(t, out)
}

// TestSiteValidate names the field of each mistake, in the set it is in.
func TestSiteValidate(t *testing.T) {
	t.Parallel()
	a := acNewTree(t, map[string]string{"one.html": "1"}, acDay(1))
	out := t.TempDir()
	for _, tc := range []struct {
		name  string
		edit  func(s *Site)
		field string
		kind  error
	}{
		{"no sets", func(s *Site) { s.Sets = nil }, "Sets", errRequired},
		{"more sets than a Source Description holds", func(s *Site) {
			for len(s.Sets) <= 50000 {
				c := s.Sets[0]
				c.Set = fmt.Sprintf("s%d", len(s.Sets))
				s.Sets = append(s.Sets, c)
			}
		}, "Sets", errOutOfRange},
		{"no name", func(s *Site) { s.Sets[1].Set = "" }, "Sets[1].Set", errRequired},
		{"bad name", func(s *Site) { s.Sets[1].Set = "Data/x" }, "Sets[1].Set", errInvalid},
		{"same name", func(s *Site) { s.Sets[1].Set = "articles" }, "Sets[1].Set", errSame},
		{"same cache", func(s *Site) { s.Sets[0].Cache, s.Sets[1].Cache = "c", "c" }, "Sets[1].Cache", errSame},
		{"other out", func(s *Site) { s.Sets[1].Out = "elsewhere" }, "Sets[1].Out", errConflict},
		{"other previous", func(s *Site) { s.Sets[1].Changes.Previous = "elsewhere" }, "Sets[1].Changes.Previous", errConflict},
		{"hosts", func(s *Site) { s.Sets[0].Hosts = []string{"nginx"} }, "Sets[0].Hosts", errConflict},
		{"a docs URL a host cannot serve", func(s *Site) {
			s.Hosts, s.DocsURL = []string{"apache"}, mustBaseURL(t, "https://example.org/a/%2E%2E/b/")
		}, "Hosts", errInvalid},
		{"a base URL _headers reads as a pattern", func(s *Site) {
			s.Hosts = []string{"netlify"}
			s.Sets[1].BaseURL = mustBaseURL(t, strings.TrimSuffix(s.DocsURL.String(), "/")+"/a*b/")
		}, "Hosts", errInvalid},
		{"a set's own field", func(s *Site) { s.Sets[1].Limits.MaxEntries = 60000 }, "Sets[1].Limits.MaxEntries", errOutOfRange},
		{"remove a set built", func(s *Site) { s.RemoveSets = []string{"data"} }, "RemoveSets", errConflict},
		{"a topic of another set's", func(s *Site) {
			s.Sets[0].Notification.Hub, s.Sets[1].Notification.Hub = "https://hub.example.org/", "https://hub.example.org/"
			s.Sets[0].Notification.ChangeTopic = acBase + "resourcesync/data/changelist-notification"
		}, "Sets[1].Notification.ChangeTopic", errSame},
		{"remove a bad name", func(s *Site) { s.RemoveSets = []string{"../x"} }, "RemoveSets", errInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := siteOf(t, a, a, out, acDay(2))
			tc.edit(&s)
			err := s.Validate()
			var fe *FieldError
			found := false
			for _, e := range FieldErrors(err) {
				if e.Field == tc.field && errors.Is(e, tc.kind) {
					found = true
				}
			}
			if !found || !errors.As(err, &fe) {
				t.Errorf("Validate: %v; want %s %v", err, tc.field, tc.kind)
			}
			if _, err := BuildSite(context.Background(), s); err == nil {
				t.Error("BuildSite took it")
			}
		})
	}
	if err := siteOf(t, a, a, out, acDay(2)).Validate(); err != nil {
		t.Errorf("a good site: %v", err)
	}
}

// TestSetDocsURL: a set's documents have the URLs of its directory, and
// its Capability List leads up to the one Source Description.
func TestSetDocsURL(t *testing.T) {
	t.Parallel()
	a := acNewTree(t, map[string]string{"one.html": "1"}, acDay(1))
	out := t.TempDir()
	mustBuildSite(t, siteOf(t, a, a, out, acDay(2)))
	_, caps := testenv.ReadDoc(t, filepath.Join(out, docsDir, "data", "capabilitylist.xml"))
	for _, e := range caps {
		if !strings.HasPrefix(e.Loc, acBase+"resourcesync/data/") {
			t.Errorf("the data set's Capability List lists %s", e.Loc)
		}
	}
	doc, _ := testenv.ReadDoc(t, filepath.Join(out, docsDir, "data", "capabilitylist.xml"))
	if doc.Link("up") != acBase+stage.WellKnownFile {
		t.Errorf("up %s", doc.Link("up"))
	}
}

// The upload script of a site uploads the sets' files only if each set's
// files are in the output directory, served where their place in it says:
// a set whose base URL is elsewhere would have its files uploaded under
// keys their URLs do not have. A record export has no files to upload.
func TestSiteS3Content(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		base string // of the set "b", whose source is out/b
		here bool
	}{
		{"in place", "https://example.org/b/", true},
		{"another path", "https://example.org/data/", false},
		{"another host", "https://cdn.example.org/b/", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			for _, f := range []string{"a/one.html", "b/x.csv"} {
				p := filepath.Join(out, filepath.FromSlash(f))
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			records := filepath.Join(t.TempDir(), "r.jsonl")
			if err := os.WriteFile(records, []byte(`{"loc": "r1", "lastmod": "2024-05-01T00:00:00Z"}`+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			set := func(name, src, base string) Config {
				return Config{Set: name, Source: src, BaseURL: mustBaseURL(t, base), At: acDay(2), FixedTime: true}
			}
			ex := Config{Set: "records", Export: records, BaseURL: mustBaseURL(t, acBase+"records/"), At: acDay(2), FixedTime: true}
			site := Site{Out: out, DocsURL: mustBaseURL(t, acBase), Hosts: []string{"s3"},
				Sets: []Config{set("a", filepath.Join(out, "a"), acBase+"a/"), set("b", filepath.Join(out, "b"), tc.base), ex}}
			mustBuildSite(t, site)
			script, err := os.ReadFile(filepath.Join(out, "resourcesync-s3.sh"))
			if err != nil {
				t.Fatal(err)
			}
			if here := strings.Contains(string(script), "aws s3 sync . "); here != tc.here {
				t.Errorf("the script uploads the files: %v, want %v\n%s", here, tc.here, script)
			}
		})
	}
}

// A site of sets has a landing page in its documents directory, listing
// every set with its counts and links, and a chart of the changes its
// Change Lists list; a page of the user's at the top of the output is
// never touched, and the landing page is rsgen's own at the next build.
func TestBuildSiteLandingPage(t *testing.T) {
	t.Parallel()
	a := acNewTree(t, map[string]string{"one.html": "1", "two.html": "2"}, acDay(1))
	d := acNewTree(t, map[string]string{"x.csv": "x"}, acDay(1))
	out := t.TempDir()
	theirs := testenv.WriteFile(t, out, "index.html", "<p>the user's own page</p>")
	mustBuildSite(t, siteOf(t, a, d, out, acDay(2)))
	page := func() string {
		b, err := os.ReadFile(filepath.Join(out, "resourcesync", "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	first := page()
	for _, want := range []string{`<a href="articles/index.html">articles</a></td><td class="n">2</td>`, `<a href="data/index.html">data</a></td><td class="n">1</td>`,
		`href="articles/capabilitylist.xml"`, `href="data/resourcelist.xml"`, "its first build", "No Change List is published yet"} {
		if !strings.Contains(first, want) {
			t.Errorf("the landing page lacks %q:\n%s", want, first)
		}
	}
	a.write("three.html", "3", acDay(3))
	mustBuildSite(t, siteOf(t, a, d, out, acDay(3)))
	second := page()
	for _, want := range []string{"1 created, 0 updated, 0 deleted", `<svg class="chart"`, "1 created, 0 updated, 0 deleted</title>"} {
		if !strings.Contains(second, want) {
			t.Errorf("the landing page after a change lacks %q:\n%s", want, second)
		}
	}
	if b, err := os.ReadFile(theirs); err != nil || string(b) != "<p>the user's own page</p>" {
		t.Errorf("the user's index.html: %q, %v", b, err)
	}
}
