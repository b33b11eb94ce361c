package generator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/changelists"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/internal/text/units"
)

// acServedConfig is acConfig for a site served at base.
func acServedConfig(t *testing.T, src, out, base string, at time.Time) Config {
	t.Helper()
	cfg := acConfig(src, out, at)
	u, err := ParseBaseURL(base)
	if err != nil {
		t.Fatal(err)
	}
	cfg.BaseURL = u
	cfg.Changes.HTTPOptions = previous.HTTPOptions{Backoff: time.Millisecond, Attempts: 2}
	return cfg
}

func TestPreviousOverHTTP(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	live := t.TempDir()
	srv := httptest.NewServer(http.FileServer(http.Dir(live)))
	defer srv.Close()
	base := srv.URL + "/"
	mustBuild(t, acServedConfig(t, tr.dir, live, base, acDay(1)))

	tr.write("new.txt", "new", acTime("2024-06-01T12:00:00Z"))
	tr.remove("b.txt")
	// From the live site into a fresh output directory, as CI does, and
	// from the directory: the same bytes.
	fromURL, fromDir := t.TempDir(), t.TempDir()
	cfg := acServedConfig(t, tr.dir, fromURL, base, acDay(2))
	cfg.Changes.Previous = srv.URL
	rep := mustBuild(t, cfg)
	if rep.Changes.Created != 1 || rep.Changes.Deleted != 1 || rep.Changes.Lists != 1 {
		t.Errorf("report %+v", rep.Changes)
	}
	cfg = acServedConfig(t, tr.dir, fromDir, base, acDay(2))
	cfg.Changes.Previous = live
	mustBuild(t, cfg)
	sameFiles(t, "from the URL and from the directory", testenv.ReadTree(t, fromURL), testenv.ReadTree(t, fromDir))

	// Publish, and go on from the live site: the history survives the
	// fresh output directory.
	if err := os.RemoveAll(live); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(live, os.DirFS(fromURL)); err != nil {
		t.Fatal(err)
	}
	tr.write("a.txt", "alpha!", acTime("2024-06-02T12:00:00Z"))
	next := t.TempDir()
	cfg = acServedConfig(t, tr.dir, next, base, acDay(3))
	cfg.Changes.Previous = srv.URL + "/"
	mustBuild(t, cfg)
	doc, entries := testenv.ReadDoc(t, filepath.Join(next, docsDir, changelists.IndexName))
	var got []string
	for _, e := range entries {
		got = append(got, e.MD.Change+" "+strings.TrimPrefix(e.Loc, base))
	}
	if doc.Index || doc.MD.From != "2024-06-01T00:00:00Z" || !slices.Equal(got, []string{"created new.txt", "deleted b.txt", "updated a.txt"}) {
		t.Errorf("changelist.xml from %s (index %v): %q", doc.MD.From, doc.Index, got)
	}
}

func TestBadPreviousPublishesNothing(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	good := t.TempDir()
	mustBuild(t, acConfig(tr.dir, good, acDay(1)))
	// A previous build broken in one document.
	broken := func(rel, content string) string {
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(good)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	}))
	defer down.Close()
	tests := []struct {
		name     string
		previous string
		at       time.Time
		kind     error
		msg      string
	}{
		{"unreachable URL", down.URL, acDay(2), previous.ErrUnreachable, "503"},
		{"missing directory", filepath.Join(good, "missing"), acDay(2), previous.ErrUnreachable, "no such file"},
		{"not ResourceSync", broken(".well-known/resourcesync", "<html></html>"), acDay(2), previous.ErrNotResourceSync, "root element is <html>"},
		{"malformed XML", broken("resourcesync/resourcelist.xml", "<?xml version=\"1.0\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n<url>"),
			acDay(2), previous.ErrMalformed, "resourcelist.xml line 3"},
		{"later snapshot", good, acTime("2024-05-31T23:00:00Z"), previous.ErrLater, "later than this build's snapshot time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			mustBuild(t, acConfig(tr.dir, out, acDay(1)))
			before := testenv.ReadTree(t, out)
			tr.write("new.txt", "new", acDay(1))
			defer tr.remove("new.txt")
			cfg := acConfig(tr.dir, out, tt.at)
			cfg.Changes.Previous = tt.previous
			cfg.Changes.HTTPOptions = previous.HTTPOptions{Backoff: time.Millisecond, Attempts: 2}
			_, err := Build(context.Background(), cfg)
			if !errors.Is(err, errPrevious) || !errors.Is(err, tt.kind) {
				t.Fatalf("error %v, want %v", err, tt.kind)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not say %q", err, tt.msg)
			}
			sameFiles(t, "the output after a failed build", testenv.ReadTree(t, out), before)
		})
	}
}

func TestChangesDeterministic(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	prev := t.TempDir()
	mustBuild(t, acConfig(tr.dir, prev, acDay(1)))
	for i := range 20 {
		tr.write("many/"+strings.Repeat("x", i+1)+".txt", "same time", acTime("2024-06-01T06:00:00Z"))
	}
	tr.remove("a.txt")
	var first map[string]string
	for _, jobs := range []int{1, 2, 8} {
		out := t.TempDir()
		cfg := acConfig(tr.dir, out, acDay(2))
		cfg.Changes.Previous, cfg.Changes.Dump = prev, true
		cfg.Jobs = jobs
		mustBuild(t, cfg)
		got := testenv.ReadTree(t, out)
		if first == nil {
			first = got
			continue
		}
		sameFiles(t, "a second build", got, first)
	}
}

func TestPreviousWithOtherDigests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		before, now  string // --hash of each build
		reread       int
		wantUpdated  int
		mutateSource func(tr *acTree)
	}{
		{name: "no digest in common, unchanged", before: "md5", now: "sha-256", reread: 4},
		{name: "no digest in common, same length, new bytes", before: "md5", now: "sha-256", reread: 4, wantUpdated: 1,
			mutateSource: func(tr *acTree) { tr.write("a.txt", "ALPHA", acT0) }},
		{name: "no digest in common, another length", before: "blake3", now: "sha-1", reread: 3, wantUpdated: 1,
			mutateSource: func(tr *acTree) { tr.write("a.txt", "alpha, longer", acT0) }},
		{name: "one digest in common", before: "md5,blake3", now: "sha-256,md5", wantUpdated: 1,
			mutateSource: func(tr *acTree) { tr.write("b.txt", "BRAVO", acT0) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := acNewTree(t, acFiles, acT0)
			out := t.TempDir()
			cfg := acConfig(tr.dir, out, acDay(1))
			cfg.Hashes, _ = hashing.ParseSet(tt.before)
			mustBuild(t, cfg)
			if tt.mutateSource != nil {
				tt.mutateSource(tr)
			}
			cfg = acConfig(tr.dir, out, acDay(2))
			cfg.Hashes, _ = hashing.ParseSet(tt.now)
			cfg.Changes.Previous = out
			rep := mustBuild(t, cfg)
			if rep.Changes.Reread != tt.reread || rep.Changes.Updated != tt.wantUpdated || rep.Changes.Created+rep.Changes.Deleted != 0 {
				t.Errorf("report %+v, want %d read again, %d updated", rep.Changes, tt.reread, tt.wantUpdated)
			}
			if len(rep.Problems) != 0 {
				t.Errorf("problems %v", rep.Problems)
			}
		})
	}
}

func TestPreviousWithUnknownDigest(t *testing.T) {
	t.Parallel()
	// A previous Resource List (not made by rsgen) whose only digest is
	// one rsgen cannot compute: equal lengths count as unchanged.
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	rl := filepath.Join(out, docsDir, "resourcelist.xml")
	b, err := os.ReadFile(rl)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, content := range acFiles {
		s = strings.Replace(s, acSHA(content), "sha-512:"+strings.Repeat("ab", 64), 1)
	}
	if err := os.WriteFile(rl, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	tr.write("a.txt", "ALPHA", acT0)      // same length: not seen
	tr.write("b.txt", "bravo!", acDay(1)) // another length: updated
	cfg := acConfig(tr.dir, out, acDay(2))
	cfg.Changes.Previous = out
	rep := mustBuild(t, cfg)
	if rep.Changes.Updated != 1 || rep.Changes.Reread != 0 {
		t.Errorf("report %+v", rep.Changes)
	}
}

func TestPreviousOfAnArchive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tarball := filepath.Join(dir, "site.tar")
	out := filepath.Join(dir, "out")
	testenv.WriteArchive(t, tarball, []testenv.Member{{Name: "a.txt", Body: "alpha"}, {Name: "b.txt", Body: "bravo"}})
	cfg := acConfig(tarball, out, acDay(1))
	cfg.Hashes = hashing.Set{hashing.MD5}
	mustBuild(t, cfg)
	testenv.WriteArchive(t, tarball, []testenv.Member{{Name: "a.txt", Body: "ALPHA"}, {Name: "c.txt", Body: "charlie"}})

	// Against its previous build, with other digests: the archive cannot
	// be read again, so equal lengths count as unchanged, with a notice.
	cfg = acConfig(tarball, out, acDay(2))
	cfg.Changes.Previous = out
	cfg.Cache = filepath.Join(dir, "cache")
	var notices []string
	cfg.Notice = func(m string) { notices = append(notices, m) }
	rep := mustBuild(t, cfg)
	if rep.Changes.Created != 1 || rep.Changes.Deleted != 1 || rep.Changes.Updated != 0 || rep.Cached != 0 {
		t.Errorf("report %+v, %d cached", rep.Changes, rep.Cached)
	}
	want := []string{"the hash cache is for a directory tree", "the members of an archive are not read a second time"}
	if len(notices) != len(want) {
		t.Fatalf("notices %q", notices)
	}
	for i, w := range want {
		if !strings.Contains(notices[i], w) {
			t.Errorf("notice %q does not say %q", notices[i], w)
		}
	}
	cfg.Changes.Dump, cfg.Notice = true, nil
	var fe *FieldError
	if _, err := Build(context.Background(), cfg); !errors.As(err, &fe) || fe.Field != "Changes.Dump" || !errors.Is(err, errConflict) {
		t.Errorf("a Change Dump of an archive: %v, want Changes.Dump in conflict with Source", err)
	}
}

// TestPreviousInAnotherOrder: the previous build's entries are joined with
// the scan in the order of their paths; a previous Resource List written
// in another order (by another tool) gives the same changes, whether the
// first part shows it or only a later one does, and a loc with an encoded
// slash, which names no file, is a deletion.
func TestPreviousInAnotherOrder(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for _, name := range []string{"a.txt", "b-c.txt", "b/c.txt", "b0.txt", "c.txt", "d/e/f.txt", "é.txt", "z.txt"} {
		files[name] = "content of " + name
	}
	reverse := func(t *testing.T, path string) {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		first, last := strings.Index(s, "<url>"), strings.LastIndex(s, "</url>")+len("</url>")
		blocks := strings.SplitAfter(s[first:last], "</url>")
		blocks = blocks[:len(blocks)-1]
		for i := range blocks {
			blocks[i] = strings.TrimSpace(blocks[i])
		}
		slices.Reverse(blocks)
		if err := os.WriteFile(path, []byte(s[:first]+strings.Join(blocks, "\n  ")+s[last:]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		tamper func(t *testing.T, docs string)
	}{
		{"as rsgen writes it", func(*testing.T, string) {}},
		{"every part reversed", func(t *testing.T, docs string) {
			reverse(t, filepath.Join(docs, "resourcelist-00001.xml"))
			reverse(t, filepath.Join(docs, "resourcelist-00002.xml"))
			reverse(t, filepath.Join(docs, "resourcelist-00003.xml"))
		}},
		{"a later part reversed", func(t *testing.T, docs string) {
			reverse(t, filepath.Join(docs, "resourcelist-00003.xml"))
		}},
		{"a later part before an earlier one", func(t *testing.T, docs string) {
			one, two := filepath.Join(docs, "resourcelist-00001.xml"), filepath.Join(docs, "resourcelist-00002.xml")
			a, _ := os.ReadFile(one)
			b, _ := os.ReadFile(two)
			os.WriteFile(one, []byte(strings.Replace(string(b), "resourcelist-00002", "resourcelist-00001", 1)), 0o644)
			os.WriteFile(two, []byte(strings.Replace(string(a), "resourcelist-00001", "resourcelist-00002", 1)), 0o644)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := acNewTree(t, files, acT0)
			out := t.TempDir()
			cfg := acConfig(tr.dir, out, acDay(1))
			cfg.Limits.MaxEntries = 3
			mustBuild(t, cfg)
			tt.tamper(t, filepath.Join(out, docsDir))
			tr.write("b/c.txt", "changed", acT0)
			tr.remove("b0.txt")
			tr.write("b.txt", "new", acT0)
			cfg.At, cfg.Changes.Previous = acDay(2), out
			rep := mustBuild(t, cfg)
			if c := rep.Changes; c.Created != 1 || c.Updated != 1 || c.Deleted != 1 {
				t.Fatalf("changes %+v, want 1 created, 1 updated, 1 deleted", c)
			}
			_, entries := testenv.ReadDoc(t, filepath.Join(out, docsDir, "changelist.xml"))
			got := map[string]string{}
			for _, e := range entries {
				got[strings.TrimPrefix(e.Loc, acBase)] = e.MD.Change
			}
			want := map[string]string{"b.txt": "created", "b/c.txt": "updated", "b0.txt": "deleted"}
			if !maps.Equal(got, want) {
				t.Errorf("Change List %v, want %v", got, want)
			}
		})
	}
}

// TestPreviousJoinRandomTrees compares the changes of builds over random
// trees, with names chosen to sort differently as bytes, as paths and as
// URLs (a separator before and after "/", escapes, non-ASCII), with what
// comparing the two trees' sets of files says.
func TestPreviousJoinRandomTrees(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	parts := []string{"a", "a-b", "a.b", "a0", "b", "é", "z z", "%41", "+", "~x", "A"}
	name := func() string {
		n := 1 + rng.IntN(3)
		segs := make([]string, n)
		for i := range segs {
			segs[i] = parts[rng.IntN(len(parts))]
		}
		return strings.Join(segs, "/") + ".txt" // a file's name never names a directory
	}
	for round := range 12 {
		before := map[string]string{}
		for range 1 + rng.IntN(16) {
			before[name()] = fmt.Sprint("v", rng.IntN(3))
		}
		tr := acNewTree(t, before, acT0)
		out := t.TempDir()
		cfg := acConfig(tr.dir, out, acDay(1))
		cfg.Limits.MaxEntries = 4 + rng.IntN(4) // the previous list in parts under an index, or not
		mustBuild(t, cfg)

		after := maps.Clone(before)
		for rel := range before {
			switch rng.IntN(4) {
			case 0:
				tr.remove(rel)
				delete(after, rel)
			case 1:
				after[rel] = before[rel] + "+changed"
				tr.write(rel, after[rel], acT0)
			}
		}
		for range rng.IntN(6) {
			if rel := name(); after[rel] == "" && !clashes(after, rel) {
				after[rel] = "new"
				tr.write(rel, "new", acT0)
			}
		}
		want := map[string]string{}
		for rel, content := range after {
			switch old, ok := before[rel]; {
			case !ok:
				want[rel] = "created"
			case old != content:
				want[rel] = "updated"
			}
		}
		for rel := range before {
			if _, ok := after[rel]; !ok {
				want[rel] = "deleted"
			}
		}
		cfg.At, cfg.Changes.Previous = acDay(2), out
		cfg.Limits.MaxEntries = 0 // the Change List in one document
		if len(after) == 0 {
			cfg.AllowEmpty = true
		}
		limit := DeleteLimit{N: 100, Percent: true}
		cfg.MaxDelete = &limit
		mustBuild(t, cfg)
		got := map[string]string{}
		if _, err := os.Stat(filepath.Join(out, docsDir, "changelist.xml")); err == nil {
			_, entries := testenv.ReadDoc(t, filepath.Join(out, docsDir, "changelist.xml"))
			base := mustBaseURL(t, acBase)
			for _, e := range entries {
				rel, ok := base.base.RelPath(e.Loc)
				if !ok {
					t.Fatalf("round %d: %s is not under the base URL", round, e.Loc)
				}
				got[rel] = e.MD.Change
			}
		}
		if !maps.Equal(got, want) {
			t.Errorf("round %d: changes %v, want %v", round, got, want)
		}
	}
}

// clashes reports whether rel cannot be a file beside files: one of them is
// a directory of its path, or it is a directory of one of theirs.
func clashes(files map[string]string, rel string) bool {
	for f := range files {
		if strings.HasPrefix(f, rel+"/") || strings.HasPrefix(rel, f+"/") {
			return true
		}
	}
	return false
}

// A build that fails while the previous build is still being read beside
// the scan (a part of its Resource List hangs, served over HTTP) returns
// its own error at once: reading the previous build stops with it.
func TestScanFailureStopsReadingThePrevious(t *testing.T) {
	t.Parallel()
	files := map[string]string{"a.txt": "a", "b.txt": "b", "c.txt": "c", "d/e.txt": "e", "f.txt": "f"}
	tr := acNewTree(t, files, acT0)
	live := t.TempDir()
	hung := make(chan struct{})
	defer close(hung)
	fileServer := http.FileServer(http.Dir(live))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "resourcelist-00002.xml") {
			select { // until the client gives up, or the test ends
			case <-r.Context().Done():
			case <-hung:
			}
			return
		}
		fileServer.ServeHTTP(w, r)
	}))
	defer srv.Close()
	base := srv.URL + "/"
	cfg := acServedConfig(t, tr.dir, live, base, acDay(1))
	cfg.Limits.MaxEntries = 3 // two parts under an index
	mustBuild(t, cfg)

	// The second build finds nothing to publish (KindEmptySource), which
	// fails it once the scan is done, without cancelling anything.
	for rel := range files {
		tr.remove(rel)
	}
	cfg = acServedConfig(t, tr.dir, t.TempDir(), base, acDay(2))
	cfg.Limits.MaxEntries = 3
	cfg.Changes.Previous = base
	cfg.Changes.HTTPOptions.Deadline = units.Duration(time.Hour) // the hanging part would hold the build that long
	done := make(chan error, 1)
	go func() {
		_, err := Build(context.Background(), cfg)
		done <- err
	}()
	select {
	case err := <-done:
		if kindOf(err) != KindEmptySource {
			t.Errorf("error %v, want KindEmptySource", err)
		}
	case <-time.After(time.Minute): // a guard against a hang, not a measure
		t.Fatal("the build waited for the previous build it no longer needed")
	}
}
