package previous

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/documents/uri"
)

// memSource serves documents from memory, by URL.
type memSource map[string][]byte

func (m memSource) open(_ context.Context, u string, limit int64) (io.ReadCloser, error) {
	b, ok := m[u]
	if !ok {
		return nil, newError(u, 0, ErrUnreachable, "HTTP 404 Not Found")
	}
	if int64(len(b)) > limit {
		return nil, newError(u, 0, ErrLimit, "too large")
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

func (m memSource) fetch(ctx context.Context, u string, limit int64, fill func(io.Reader) error) error {
	r, err := m.open(ctx, u, limit)
	if err != nil {
		return err
	}
	return fill(r)
}

func (m memSource) part(_ context.Context, u string, limit int64, _ string) (io.ReadCloser, error) {
	b, ok := m[u]
	if !ok {
		return nil, newError(u, 0, ErrUnreachable, "HTTP 404 Not Found")
	}
	if int64(len(b)) > limit {
		return nil, newError(u, 0, ErrLimit, "too large")
	}
	return nopSeekCloser{bytes.NewReader(b)}, nil
}

func (m memSource) name(u string) string { return u }
func (m memSource) clone() memSource {
	c := memSource{}
	for k, v := range m {
		c[k] = v
	}
	return c
}
func readMem(m memSource, opts Options) (*Site, error) {
	r := newReader(opts)
	r.site = &Site{}
	r.src = m
	return r.read(context.Background(), "https://example.org/"+WellKnown)
}

// readMemAll is readMem, then loadAll.
func readMemAll(m memSource, opts Options) (*loadedSite, error) {
	site, err := readMem(m, opts)
	if err != nil {
		return nil, err
	}
	return loadAll(context.Background(), site)
}

// readAll is Read, then loadAll.
func readAll(ctx context.Context, location string, opts Options) (*loadedSite, error) {
	site, err := Read(ctx, location, opts)
	if err != nil {
		return nil, err
	}
	return loadAll(ctx, site)
}

// loadedSite is a site read with the entries of its Resource List.
type loadedSite struct {
	*Site
	Resources []Resource // in document order
}

// index returns the index in Resources of the entry for loc, compared in
// normal form (uri.Normalize).
func (l *loadedSite) index(loc string) (int, bool) {
	i := slices.IndexFunc(l.Resources, func(r Resource) bool { return r.Loc == uri.Normalize(loc) })
	return i, i >= 0
}

// loadAll reads every entry of the Resource List of site in document
// order, checked as an iterator checks them; a loc listed twice is an
// error.
func loadAll(ctx context.Context, site *Site) (*loadedSite, error) {
	l := &listReader{site: site, ctx: ctx}
	defer l.close()
	out := &loadedSite{Site: site}
	seen := map[string]bool{}
	for {
		ok, err := l.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, nil
		}
		if seen[l.res.Loc] {
			return nil, newError(l.name, l.line, ErrInvalid, "%s is listed twice", l.res.Loc)
		}
		seen[l.res.Loc] = true
		out.Resources = append(out.Resources, l.res)
	}
}

// goodDocs loads testdata/good as the documents of https://example.org/.
func goodDocs(tb testing.TB) memSource { return loadDocs(tb, "testdata/good") }

// loadDocs loads a previous build under testdata as the documents of
// https://example.org/.
func loadDocs(tb testing.TB, dir string) memSource {
	tb.Helper()
	m := memSource{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		m["https://example.org/"+filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// roles are the documents of a previous build (testdata/good, or
// testdata/dump for the last ones) that a fuzzed input stands in for.
var roles = []string{
	WellKnown,
	"resourcesync/capabilitylist.xml",
	"resourcesync/resourcelist.xml",
	"resourcesync/resourcelist-00002.xml",
	"resourcesync/changelist.xml",
	"resourcesync/changelist-20240603T000000Z.xml",
	"dump:resourcesync/changedump.xml",
	"dump:resourcesync/changedump-20240603T000000Z-00001.manifest.xml",
}

// withRole returns the documents of the build that role belongs to, with
// data in its place.
func withRole(good, dump memSource, role string, data []byte) memSource {
	base := good
	if r, ok := strings.CutPrefix(role, "dump:"); ok {
		base, role = dump, r
	}
	m := base.clone()
	m["https://example.org/"+role] = data
	return m
}

// seedCorpus returns the spec's examples, copied into testdata/spec. A
// corpus that matches no file fails the test rather than fuzzing nothing.
func seedCorpus(tb testing.TB) map[string][]byte {
	tb.Helper()
	files, err := filepath.Glob("testdata/spec/resourcesync_ex_*.xml")
	if err != nil {
		tb.Fatal(err)
	}
	files = append(files, filepath.Join("testdata/spec", filepath.FromSlash(WellKnown)))
	seeds := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		seeds[f] = b
	}
	if len(seeds) < 10 {
		tb.Fatalf("the seed corpus testdata/spec/resourcesync_ex_*.xml matched %d files; copy the spec's examples there", len(seeds))
	}
	return seeds
}

func TestSeedCorpus(t *testing.T) {
	t.Parallel()
	// Every example is read without a panic, and those that are of the
	// capability of a role fail only for reasons of their own.
	good, dump := goodDocs(t), loadDocs(t, "testdata/dump")
	for _, site := range []memSource{good, dump} {
		if _, err := readMemAll(site, Options{}); err != nil {
			t.Fatalf("a good site does not read: %v", err)
		}
	}
	for name, data := range seedCorpus(t) {
		for _, role := range roles {
			m := withRole(good, dump, role, data)
			site, err := readMemAll(m, Options{maxBytes: 1 << 20, maxEntries: 1000})
			streamAgrees(t, m, site, err)
			var pe *Error
			if err != nil && !errors.As(err, &pe) {
				t.Errorf("%s as %s: error %v is not an *Error", name, role, err)
			}
		}
	}
}

// streamAgrees checks that the documents m, which Read loaded as site or
// failed to read with lerr, stream the same entries sorted by loc, or
// fail too: a pass that meets ErrUnsorted is run again with Sort.
func streamAgrees(t *testing.T, m memSource, site *loadedSite, lerr error) {
	t.Helper()
	opts := Options{maxBytes: 1 << 20, maxEntries: 1000}
	streamedSite, err := readMem(m, opts)
	var got []streamed
	if err == nil {
		got, _, err = iterate(t, streamedSite, IterOptions{SpillDir: t.TempDir()})
		if errors.Is(err, ErrUnsorted) {
			got, _, err = iterate(t, streamedSite, IterOptions{SpillDir: t.TempDir(), Sort: true})
		}
	}
	if err != nil {
		var pe *Error
		if !errors.As(err, &pe) || pe.Doc == "" || pe.Kind == nil {
			t.Fatalf("streaming: error %v (%T) is not an *Error with a document and a kind", err, err)
		}
	}
	switch {
	case lerr == nil && err != nil:
		t.Fatalf("Read loads the entries, the iterator fails: %v", err)
	case lerr != nil && err == nil:
		t.Fatalf("Read fails (%v), the iterator does not", lerr)
	case lerr == nil:
		want := sortedByKey(site.Resources, func(loc string) (string, bool) { return loc, true })
		if len(got) != len(want) {
			t.Fatalf("the iterator returns %d entries, Read %d", len(got), len(want))
		}
		for i := range got {
			if got[i].Loc != want[i].Loc || got[i].Length != want[i].Length || !got[i].Lastmod.Equal(want[i].Lastmod) {
				t.Fatalf("entry %d is %+v, want %+v", i, got[i], want[i])
			}
		}
	}
}

// FuzzRead reads a previous build in which one document is the fuzzed
// input. Whatever the input, Read must not panic, must not read past its
// limits, and must fail, if it fails, with an *Error that names a
// document and its kind.
func FuzzRead(f *testing.F) {
	for _, data := range seedCorpus(f) {
		for i := range roles {
			f.Add(uint8(i), data)
		}
	}
	good, dump := goodDocs(f), loadDocs(f, "testdata/dump")
	f.Fuzz(func(t *testing.T, role uint8, data []byte) {
		m := withRole(good, dump, roles[int(role)%len(roles)], data)
		site, err := readMemAll(m, Options{maxBytes: 1 << 20, maxEntries: 1000})
		streamAgrees(t, m, site, err)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if pe.Doc == "" || pe.Kind == nil {
				t.Fatalf("error %#v names no document or kind", pe)
			}
			return
		}
		if len(site.Resources) > 1000*len(m) || site.At.IsZero() {
			t.Fatalf("read %d resources at %v", len(site.Resources), site.At)
		}
		for i := 1; i < len(site.ChangeLists); i++ {
			if site.ChangeLists[i].From.Before(site.ChangeLists[i-1].Until) {
				t.Fatalf("change lists overlap: %+v", site.ChangeLists)
			}
		}
	})
}
