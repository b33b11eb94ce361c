package previous

import (
	"cmp"
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// keyUnder returns the Key of a build whose base URL is base: the path
// under it, decoded.
func keyUnder(base string) func(string) (string, bool) {
	return func(loc string) (string, bool) {
		rel, ok := strings.CutPrefix(loc, base)
		if !ok || rel == "" {
			return "", false
		}
		p, err := url.PathUnescape(rel)
		return p, err == nil
	}
}

// streamed is an entry as a ResourceIter returned it.
type streamed struct {
	Resource
	key     string
	foreign bool
}

// iterate reads every entry of site with opt.
func iterate(t testing.TB, site *Site, opt IterOptions) ([]streamed, *ResourceIter, error) {
	t.Helper()
	it, err := site.ResourceIter(context.Background(), opt)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err := it.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	var out []streamed
	for it.Next() {
		out = append(out, current(it))
	}
	return out, it, it.Err()
}

// current copies the entry of it.
func current(it *ResourceIter) streamed {
	r := *it.Resource()
	r.Hash = slices.Clone(r.Hash)
	return streamed{r, it.Key(), it.Foreign()}
}

// sortedByKey is what an iterator must return for the entries Read
// loaded: those with a key by key, then the others by loc.
func sortedByKey(rs []Resource, key func(string) (string, bool)) []streamed {
	var out []streamed
	for _, r := range rs {
		k, ok := key(r.Loc)
		out = append(out, streamed{r, k, !ok})
	}
	for i := range out {
		if out[i].foreign {
			out[i].key = ""
		}
	}
	slices.SortStableFunc(out, func(a, b streamed) int {
		if a.foreign != b.foreign {
			if a.foreign {
				return 1
			}
			return -1
		}
		if a.foreign {
			return strings.Compare(a.Loc, b.Loc)
		}
		return strings.Compare(a.key, b.key)
	})
	return out
}

func sameEntries(t *testing.T, got, want []streamed) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.key != w.key || g.foreign != w.foreign || g.Loc != w.Loc || !g.Lastmod.Equal(w.Lastmod) ||
			g.Length != w.Length || g.Type != w.Type || !reflect.DeepEqual(g.Hash, w.Hash) {
			t.Errorf("entry %d is %+v, want %+v", i, g, w)
		}
	}
}

// Every previous build of the package's test data streams the entries
// Read loads, sorted by key, on both paths (in published order and
// sorted): testdata/good, whose Resource List is an index of three, and
// testdata/dump, whose is one document. (The spec's examples, in every
// role, are compared so by TestSeedCorpus.)
func TestResourceIterMatchesRead(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"good", "dump"} {
		for _, key := range []struct {
			name string
			fn   func(string) (string, bool)
		}{
			{"under the base URL", keyUnder("https://example.org/")},
			{"under a directory", keyUnder("https://example.org/data/")},
			{"by loc", nil},
		} {
			t.Run(name+"/"+key.name, func(t *testing.T) {
				docs := loadDocs(t, filepath.Join("testdata", name))
				loaded, err := readMemAll(docs, Options{})
				if err != nil {
					t.Fatal(err)
				}
				site, err := readMem(docs, Options{})
				if err != nil {
					t.Fatal(err)
				}
				fn := key.fn
				if fn == nil {
					fn = func(loc string) (string, bool) { return loc, true }
				}
				want := sortedByKey(loaded.Resources, fn)
				for _, sorted := range []bool{false, true} {
					got, _, err := iterate(t, site, IterOptions{Key: key.fn, Sort: sorted, SpillDir: t.TempDir(), Memory: 4096})
					if err != nil {
						t.Fatalf("sort %v: %v", sorted, err)
					}
					sameEntries(t, got, want)
				}
			})
		}
	}
}

// The Resource Lists of other implementations (validate/testdata/foreign),
// each published as the Resource List of a previous build: the iterator
// returns what Read loads, sorted by key, or fails where Read fails.
func TestResourceIterForeignCorpus(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../../validate/testdata/foreign/*.xml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no foreign corpus: %v", err)
	}
	lists := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `capability="resourcelist"`) && !strings.Contains(string(data), `capability='resourcelist'`) {
			continue
		}
		lists++
		t.Run(filepath.Base(f), func(t *testing.T) {
			docs := goodDocs(t)
			// The capability list of testdata/good points at
			// resourcelist.xml; its Change Lists, later than the lists of
			// the corpus, are left out.
			docs["https://example.org/resourcesync/resourcelist.xml"] = data
			caps := "https://example.org/resourcesync/capabilitylist.xml"
			docs[caps] = []byte(strings.Replace(string(docs[caps]), "<rs:md capability=\"changelist\"/>", "", 1))
			loaded, lerr := readMemAll(docs, Options{})
			site, err := readMem(docs, Options{})
			var got []streamed
			if err == nil {
				for _, base := range []string{"https://example.org/", "http://example.com/"} {
					for _, sorted := range []bool{false, true} {
						got, _, err = iterate(t, site, IterOptions{Key: keyUnder(base), Sort: sorted, SpillDir: t.TempDir(), Memory: 2048})
						if lerr == nil && err == nil {
							sameEntries(t, got, sortedByKey(loaded.Resources, keyUnder(base)))
						}
					}
				}
			}
			switch {
			case lerr != nil && err == nil:
				t.Errorf("Read fails (%v), the iterator does not", lerr)
			case lerr == nil && err != nil:
				t.Errorf("the iterator fails (%v), Read does not", err)
			case lerr != nil && !errors.Is(err, lerr.(*Error).Kind):
				t.Errorf("the iterator fails with %v, Read with %v", err, lerr)
			}
		})
	}
	if lists < 10 {
		t.Fatalf("only %d Resource Lists in the corpus", lists)
	}
}

// reversed returns docs with the entries of each part of testdata/good's
// Resource List in reverse order.
func reversedGood(t testing.TB) memSource {
	docs := goodDocs(t)
	for u, b := range docs {
		if !strings.Contains(u, "resourcelist-") {
			continue
		}
		s := string(b)
		head, rest, _ := strings.Cut(s, "<url>")
		body, tail, _ := strings.Cut(rest, "</urlset>")
		urls := strings.Split("<url>"+body, "<url>")[1:]
		slices.Reverse(urls)
		docs[u] = []byte(head + "<url>" + strings.Join(urls, "<url>") + "</urlset>" + tail)
	}
	return docs
}

// A list published in key order streams as it is; one that is not is
// sorted, through spill files when Memory is small, and both give the same
// entries. The spill files go with Close.
func TestResourceIterOrderPaths(t *testing.T) {
	t.Parallel()
	key := keyUnder("https://example.org/")
	good, err := readMem(goodDocs(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, it, err := iterate(t, good, IterOptions{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if it.sorter != nil || len(want) != 9 {
		t.Fatalf("rsgen's own list was sorted (%v), or %d entries", it.sorter != nil, len(want))
	}
	if !slices.IsSortedFunc(want, func(a, b streamed) int { return cmp.Compare(a.key, b.key) }) {
		t.Fatal("not in key order")
	}

	for _, big := range []bool{false, true} {
		want, docs := want, reversedGood(t)
		if big {
			docs = syntheticList(t, 20_000, true)
			in, err := readMem(syntheticList(t, 20_000, false), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if want, _, err = iterate(t, in, IterOptions{Key: key}); err != nil || len(want) != 20_000 {
				t.Fatalf("%d entries in order, %v", len(want), err)
			}
		}
		rev, err := readMem(docs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		spill := t.TempDir()
		it, err = rev.ResourceIter(context.Background(), IterOptions{Key: key, SpillDir: spill, Memory: 1})
		if err != nil {
			t.Fatal(err)
		}
		if it.sorter == nil || len(want) > 9 && it.sorter.Runs() < 2 {
			t.Errorf("a list in reverse order: sorted %v, want it sorted through spill files", it.sorter != nil)
		}
		var got []streamed
		for it.Next() {
			got = append(got, current(it))
		}
		if err := it.Err(); err != nil {
			t.Fatal(err)
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		sameEntries(t, got, want)
		if left, _ := os.ReadDir(spill); len(left) != 0 {
			t.Errorf("files left in the spill directory after Close: %v", left)
		}
	}
}

// The first document in key order, a later one not: the entries returned
// so far cannot be taken back, so the pass ends with ErrUnsorted, naming
// the document and line; Sort reads the same list.
func TestResourceIterLateInversion(t *testing.T) {
	t.Parallel()
	docs := goodDocs(t)
	// Part 3 starts before the end of part 2.
	const p3 = "https://example.org/resourcesync/resourcelist-00003.xml"
	b := string(docs[p3])
	first := b[strings.Index(b, "<loc>")+5 : strings.Index(b, "</loc>")]
	docs[p3] = []byte(strings.Replace(b, first, "https://example.org/0-first.txt", 1))
	site, err := readMem(docs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	key := keyUnder("https://example.org/")
	got, _, err := iterate(t, site, IterOptions{Key: key})
	var pe *Error
	if !errors.As(err, &pe) || !errors.Is(err, ErrUnsorted) || pe.Doc != p3 || pe.Line == 0 {
		t.Fatalf("err = %v, want an *Error of ErrUnsorted in %s with a line", err, p3)
	}
	if len(got) == 0 {
		t.Error("nothing was returned before the inversion")
	}
	got, _, err = iterate(t, site, IterOptions{Key: key, Sort: true})
	if err != nil || len(got) != 9 || got[0].Loc != "https://example.org/0-first.txt" {
		t.Errorf("sorted: %d entries, err %v", len(got), err)
	}
}

// A list in another order with a loc twice, and with two locs of one key:
// the error names the document and line of the later one, as Read's does.
func TestResourceIterDuplicates(t *testing.T) {
	t.Parallel()
	const p2 = "https://example.org/resourcesync/resourcelist-00002.xml"
	for _, tt := range []struct {
		name, old, new, msg string
		key                 func(string) (string, bool)
	}{
		{"a loc twice", "https://example.org/images/photo%20%231.png", "https://example.org/images/logo.png", "https://example.org/images/logo.png is listed twice", nil},
		{"two locs of one key", "https://example.org/images/photo%20%231.png", "https://example.org/IMAGES/logo.png", "names the same file",
			func(loc string) (string, bool) { return strings.ToLower(loc), true }},
	} {
		for _, docs := range map[string]memSource{"published order": goodDocs(t), "reversed": reversedGood(t)} {
			docs[p2] = []byte(strings.Replace(string(docs[p2]), tt.old, tt.new, 1))
			site, err := readMem(docs, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, sorted := range []bool{false, true} {
				_, _, err := iterate(t, site, IterOptions{Key: tt.key, Sort: sorted, Memory: 200, SpillDir: t.TempDir()})
				var pe *Error
				if !errors.As(err, &pe) || !errors.Is(err, ErrInvalid) || pe.Doc != p2 || !strings.Contains(err.Error(), tt.msg) {
					t.Errorf("%s, sort %v: err = %v, want %q in %s", tt.name, sorted, err, tt.msg, p2)
				}
				if _, lerr := readMemAll(docs, Options{}); tt.key == nil && (lerr == nil || lerr.(*Error).Line != pe.Line) {
					t.Errorf("%s: Read says %v, the iterator %v", tt.name, lerr, err)
				}
			}
		}
	}
}

// Locs outside the base URL have no key: they come after the others,
// sorted by loc, whatever the order they were published in.
func TestResourceIterKeyless(t *testing.T) {
	t.Parallel()
	docs := goodDocs(t)
	const p1 = "https://example.org/resourcesync/resourcelist-00001.xml"
	b := string(docs[p1])
	i := strings.Index(b, "<url>")
	extra := "<url><loc>https://mirror.example/z.txt</loc></url>\n<url><loc>https://mirror.example/a.txt</loc></url>\n"
	docs[p1] = []byte(b[:i] + extra + b[i:])
	site, err := readMem(docs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sorted := range []bool{false, true} {
		got, it, err := iterate(t, site, IterOptions{Key: keyUnder("https://example.org/"), Sort: sorted})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 11 {
			t.Fatalf("%d entries", len(got))
		}
		tail := got[9:]
		if !tail[0].foreign || !tail[1].foreign || tail[0].Loc != "https://mirror.example/a.txt" || tail[1].Loc != "https://mirror.example/z.txt" || tail[0].key != "" {
			t.Errorf("sort %v: the last entries are %+v", sorted, tail)
		}
		for _, e := range got[:9] {
			if e.foreign || e.key == "" {
				t.Errorf("sort %v: %s has no key", sorted, e.Loc)
			}
		}
		if it.tempDir != "" {
			t.Errorf("temporary directory %s left after Close", it.tempDir)
		}
	}
}

// Read's errors in the documents of the Resource List come from the
// iterator when Read streams: the same kind, document and line.
func TestResourceIterErrors(t *testing.T) {
	t.Parallel()
	const (
		part1 = "https://example.org/resourcesync/resourcelist-00001.xml"
		part2 = "https://example.org/resourcesync/resourcelist-00002.xml"
	)
	tests := []struct {
		name   string
		mutate func(m memSource)
		opts   Options
		kind   error
		doc    string
		line   int
		msg    string
	}{
		{name: "a part that is not a Resource List", mutate: func(m memSource) {
			m[part2] = []byte(strings.Replace(string(m[part2]), `capability="resourcelist"`, `capability="changelist" from="2024-06-01T00:00:00Z"`, 1))
		}, kind: ErrCapability, doc: part2, msg: `capability "changelist" where "resourcelist" was expected`},
		{name: "a part that is an index", mutate: func(m memSource) {
			m[part2] = m["https://example.org/resourcesync/resourcelist.xml"]
		}, kind: ErrInvalid, doc: part2, msg: "an index itself, listed by the index"},
		{name: "an HTML page", mutate: func(m memSource) {
			m[part1] = []byte("<!DOCTYPE html>\n<html></html>")
		}, kind: ErrNotResourceSync, doc: part1, line: 1},
		{name: "a missing part", mutate: func(m memSource) { delete(m, part2) }, kind: ErrUnreachable, doc: part2, msg: "404"},
		{name: "truncated", mutate: func(m memSource) { m[part2] = m[part2][:len(m[part2])/2] }, kind: ErrMalformed, doc: part2, line: 13},
		{name: "over the byte limit", opts: Options{maxBytes: 1000}, kind: ErrLimit, doc: part1},
		{name: "over the entry limit", opts: Options{maxEntries: 3}, kind: ErrLimit, doc: part1, line: 22, msg: "more than the 3 entries"},
		{name: "over the resource limit", opts: Options{maxResources: 5}, kind: ErrLimit, doc: part2, line: 12, msg: "more than 5 resources"},
		{name: "a malformed lastmod", mutate: func(m memSource) {
			m[part2] = []byte(strings.Replace(string(m[part2]), "<lastmod>2024-01-01T00:00:00Z", "<lastmod>2024-13-01T00:00:00Z", 1))
		}, kind: ErrInvalid, doc: part2, line: 7, msg: "lastmod"},
		{name: "a malformed hash", mutate: func(m memSource) {
			m[part2] = []byte(strings.Replace(string(m[part2]), "sha-256:40b7cd15101faf5439ae1a6892f215ebf0f789bd894d791926465355f98c9644", "sha-256:40b7", 1))
		}, kind: ErrInvalid, doc: part2, line: 12, msg: "64 hex digits"},
		{name: "a relative loc", mutate: func(m memSource) {
			m[part2] = []byte(strings.Replace(string(m[part2]), "<loc>https://example.org/", "<loc>", 1))
		}, kind: ErrInvalid, doc: part2, msg: "not an absolute URI"},
		{name: "a root <rs:md> after the first entry", mutate: func(m memSource) {
			m[part2] = []byte(strings.Replace(string(m[part2]), "</urlset>", `<rs:md capability="resourcelist" at="2024-06-03T00:00:00Z"/></urlset>`, 1))
		}, kind: ErrInvalid, doc: part2, msg: "after the first entry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, sorted := range []bool{false, true} {
				docs := goodDocs(t)
				if tt.mutate != nil {
					tt.mutate(docs)
				}
				site, err := readMem(docs, tt.opts)
				if err == nil {
					_, _, err = iterate(t, site, IterOptions{Key: keyUnder("https://example.org/"), Sort: sorted})
				}
				var pe *Error
				if !errors.As(err, &pe) || !errors.Is(err, tt.kind) || pe.Doc != tt.doc || (tt.line != 0 && pe.Line != tt.line) || !strings.Contains(err.Error(), tt.msg) {
					t.Errorf("sort %v: err = %v, want %v in %s line %d saying %q", sorted, err, tt.kind, tt.doc, tt.line, tt.msg)
				}
			}
		})
	}
}

// A sort that cannot write its files fails with an error that says so and
// names the file, not as a document of the previous build.
func TestResourceIterSpillFails(t *testing.T) {
	t.Parallel()
	site, err := readMem(syntheticList(t, 20_000, true), Options{})
	if err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(t.TempDir(), "gone")
	_, err = site.ResourceIter(context.Background(), IterOptions{Key: keyUnder("https://example.org/"), SpillDir: gone, Memory: 1})
	var pe *Error
	if err == nil || errors.As(err, &pe) || !strings.Contains(err.Error(), "sorting the previous Resource List") || !strings.Contains(err.Error(), gone) {
		t.Errorf("err = %v, want a failure to sort naming %s", err, gone)
	}
}
