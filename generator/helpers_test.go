package generator

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zeebo/blake3"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/testenv"
)

// siteDir is the example collection of the repository.
const siteDir = "../testdata/site"

// testAt is the snapshot time of the tests' builds.
var testAt = time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)

// mtimeBase is the modification time given to the i-th file of a copied
// tree (in lexical order): mtimeBase + i minutes, with nanoseconds that
// the lastmod must drop.
var mtimeBase = time.Date(2024, 5, 1, 8, 30, 15, 123456789, time.UTC)

// copySite copies the example collection into a new temporary directory
// and gives its files fixed modification times: git does not keep them.
func copySite(t testing.TB) string {
	t.Helper()
	dst := testenv.CopySite(t, time.Time{})
	fixMtimes(t, dst)
	return dst
}

// fixMtimes sets the modification time of every regular file under dir.
func fixMtimes(t testing.TB, dir string) {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	slices.Sort(files)
	for i, f := range files {
		mt := mtimeBase.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(f, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
}

// mustBaseURL parses raw, a base URL the test knows valid.
func mustBaseURL(t testing.TB, raw string) BaseURL {
	t.Helper()
	b, err := ParseBaseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testConfig is a build of src into out at testAt, published at
// https://example.org/.
func testConfig(t testing.TB, src, out string) Config {
	return Config{Source: src, Out: out, BaseURL: mustBaseURL(t, "https://example.org/"), At: testAt, FixedTime: true, Jobs: 2}
}

// mustBuild runs Build and fails the test on an error.
func mustBuild(t testing.TB, cfg Config) *Report {
	t.Helper()
	rep, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatalf("build at %s: %v", rsxml.FormatTime(cfg.At), err)
	}
	return rep
}

// fetchFunc returns the bytes at a URL, or an error.
type fetchFunc func(url string) ([]byte, error)

// fileFetcher serves the URLs under docs from the directory out, the way a
// static host would.
func fileFetcher(out string, docs BaseURL) fetchFunc {
	return func(u string) ([]byte, error) {
		rel, ok := docs.base.RelPath(u)
		if !ok {
			return nil, fmt.Errorf("%s is not under %s", u, docs)
		}
		return os.ReadFile(filepath.Join(out, filepath.FromSlash(rel)))
	}
}

// published is what a Destination finds by following the documents.
type published struct {
	sourceDesc *rsxml.Doc
	capList    *rsxml.Doc
	list       *rsxml.Doc     // the Resource List, or its index
	parts      []*rsxml.Doc   // the parts under the index, if split
	partURLs   []string       // their URLs
	entries    []*rsxml.Entry // every resource entry, in document order
	docs       int            // documents read
}

// discover reads the documents the way a Destination does, from the
// Source Description at sdURL down to every part of the Resource List, and
// checks what the spec requires of each on the way: capabilities, links,
// times, and the limits (a document of more than max entries or bytes).
func discover(t testing.TB, fetch fetchFunc, sdURL string, limits Limits) *published {
	t.Helper()
	var p published
	read := func(u string) (*rsxml.Doc, []*rsxml.Entry) {
		t.Helper()
		data, err := fetch(u)
		if err != nil {
			t.Fatalf("fetching %s: %v", u, err)
		}
		p.docs++
		if int64(len(data)) > int64(limits.MaxBytes) {
			t.Errorf("%s is %d bytes, more than the limit of %d", u, len(data), limits.MaxBytes)
		}
		doc, entries, err := rsxml.ReadAll(bytes.NewReader(data), rsxml.ReadOptions{MaxBytes: rsxml.MaxBytes})
		if err != nil {
			t.Fatalf("reading %s: %v", u, err)
		}
		if len(entries) > limits.MaxEntries {
			t.Errorf("%s has %d entries, more than the limit of %d", u, len(entries), limits.MaxEntries)
		}
		return doc, entries
	}
	sd, sdEntries := read(sdURL)
	p.sourceDesc = sd
	if sd.Index || sd.MD.Capability != rsxml.CapDescription {
		t.Fatalf("Source Description: capability %q (index %v)", sd.MD.Capability, sd.Index)
	}
	if len(sdEntries) != 1 || sdEntries[0].MD.Capability != rsxml.CapCapabilityList {
		t.Fatalf("Source Description: want one capabilitylist entry, got %d", len(sdEntries))
	}
	clURL := sdEntries[0].Loc
	cl, clEntries := read(clURL)
	p.capList = cl
	if cl.Index || cl.MD.Capability != rsxml.CapCapabilityList || cl.Link("up") != sdURL {
		t.Fatalf("Capability List: capability %q, up %q (want %q)", cl.MD.Capability, cl.Link("up"), sdURL)
	}
	if cl.MD.At != "" || cl.MD.Completed != "" {
		t.Errorf("Capability List has at/completed")
	}
	var rlURL string
	caps := map[string]bool{}
	for _, e := range clEntries {
		if caps[e.MD.Capability] {
			t.Errorf("Capability List lists %s twice", e.MD.Capability)
		}
		caps[e.MD.Capability] = true
		if e.MD.Capability == rsxml.CapResourceList {
			rlURL = e.Loc
		}
	}
	if rlURL == "" {
		t.Fatal("Capability List has no resourcelist entry")
	}
	list, listEntries := read(rlURL)
	p.list = list
	checkListRoot(t, rlURL, list, clURL)
	if list.MD.Capability != rsxml.CapResourceList {
		t.Fatalf("%s: capability %q", rlURL, list.MD.Capability)
	}
	if !list.Index {
		if list.Link("index") != "" {
			t.Errorf("%s: a whole list links to an index", rlURL)
		}
		p.entries = listEntries
		return &p
	}
	if len(listEntries) < 2 {
		t.Errorf("index %s over %d parts: a list that fits in one document is not split", rlURL, len(listEntries))
	}
	for _, ie := range listEntries {
		part, entries := read(ie.Loc)
		checkListRoot(t, ie.Loc, part, clURL)
		if part.Index {
			t.Fatalf("%s: an index lists another index", ie.Loc)
		}
		if part.MD.Capability != rsxml.CapResourceList || part.Link("index") != rlURL {
			t.Errorf("%s: capability %q, index link %q (want %q)", ie.Loc, part.MD.Capability, part.Link("index"), rlURL)
		}
		if part.MD.At != list.MD.At {
			t.Errorf("%s: at %s, the index's is %s", ie.Loc, part.MD.At, list.MD.At)
		}
		if ie.MD.At != "" && ie.MD.At != part.MD.At {
			t.Errorf("index entry for %s: at %s, the part's is %s", ie.Loc, ie.MD.At, part.MD.At)
		}
		if len(entries) == 0 {
			t.Errorf("%s: an empty part", ie.Loc)
		}
		p.parts = append(p.parts, part)
		p.partURLs = append(p.partURLs, ie.Loc)
		p.entries = append(p.entries, entries...)
	}
	return &p
}

// checkListRoot checks the root of a Resource List or index: at (and
// completed) are full UTC datetimes, completed is not before at, and it
// links up to the Capability List.
func checkListRoot(t testing.TB, u string, doc *rsxml.Doc, clURL string) {
	t.Helper()
	if doc.Link("up") != clURL {
		t.Errorf("%s: up link %q, want %q", u, doc.Link("up"), clURL)
	}
	at, err := rsxml.ParseTime(doc.MD.At)
	if err != nil || !strings.HasSuffix(doc.MD.At, "Z") {
		t.Errorf("%s: at %q: %v", u, doc.MD.At, err)
	}
	if doc.MD.Completed != "" {
		c, err := rsxml.ParseTime(doc.MD.Completed)
		if err != nil || c.Before(at) {
			t.Errorf("%s: completed %q is not a time from at %q on (%v)", u, doc.MD.Completed, doc.MD.At, err)
		}
	}
}

// expectedFiles lists, by walking src independently of the generator, the
// files a build with the default filter must publish: regular files, not
// hidden, not under a hidden directory, and not rsgen's own output at the
// root (skipOwned). Paths are slash-separated, sorted.
func expectedFiles(t testing.TB, src string, skipOwned bool) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") || skipOwned && rel == docsDir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

// newDigest returns a hash of the named algorithm, computed independently
// of the hashing package.
func newDigest(t testing.TB, alg string) hash.Hash {
	switch alg {
	case "md5":
		return md5.New()
	case "sha-1":
		return sha1.New()
	case "sha-256":
		return sha256.New()
	case "blake3":
		return blake3.New()
	}
	t.Fatalf("unknown algorithm %q", alg)
	return nil
}

// checkEntry checks one Resource List entry against content, the bytes of
// the resource: length, every digest of hashes (in order), a bare media
// type, and lastmod (if mtime is not zero).
func checkEntry(t testing.TB, e *rsxml.Entry, content []byte, hashes hashing.Set, mtime time.Time) {
	t.Helper()
	if e.MD.Length != strconv.Itoa(len(content)) {
		t.Errorf("%s: length %q, the resource has %d bytes", e.Loc, e.MD.Length, len(content))
	}
	tokens, err := hashing.ParseAttr(e.MD.Hash)
	if err != nil {
		t.Errorf("%s: %v", e.Loc, err)
		return
	}
	if len(tokens) != len(hashes) {
		t.Errorf("%s: hash %q has %d digests, want %d (%s)", e.Loc, e.MD.Hash, len(tokens), len(hashes), hashes)
		return
	}
	for i, tok := range tokens {
		if tok.Alg != hashes[i].String() {
			t.Errorf("%s: digest %d is %s, want %s", e.Loc, i, tok.Alg, hashes[i])
		}
		h := newDigest(t, tok.Alg)
		h.Write(content)
		if want := h.Sum(nil); !bytes.Equal(tok.Digest, want) {
			t.Errorf("%s: %s digest %x, the bytes give %x", e.Loc, tok.Alg, tok.Digest, want)
		}
	}
	if e.MD.Type == "" || strings.ContainsAny(e.MD.Type, "; ") || strings.Count(e.MD.Type, "/") != 1 {
		t.Errorf("%s: type %q is not a bare media type", e.Loc, e.MD.Type)
	}
	if !mtime.IsZero() {
		if want := mtime.UTC().Truncate(time.Second).Format("2006-01-02T15:04:05Z"); e.Lastmod != want {
			t.Errorf("%s: lastmod %q, want %q", e.Loc, e.Lastmod, want)
		}
	}
}

// checkPublishesExactly checks that the entries are the files of src that
// want lists, each once, in order of their paths, with the right bytes.
func checkPublishesExactly(t testing.TB, entries []*rsxml.Entry, base BaseURL, src string, want []string, hashes hashing.Set) {
	t.Helper()
	var got []string
	for _, e := range entries {
		rel, ok := base.base.RelPath(e.Loc)
		if !ok {
			t.Errorf("%s is not under the base URL %s", e.Loc, base)
			continue
		}
		got = append(got, rel)
		p := filepath.Join(src, filepath.FromSlash(rel))
		content, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s: %v", e.Loc, err)
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		checkEntry(t, e, content, hashes, info.ModTime())
	}
	if !slices.IsSorted(got) {
		t.Errorf("entries are not in order of their paths: %q", got)
	}
	if !slices.Equal(got, want) {
		t.Errorf("published %d files, want %d:\n got  %q\n want %q", len(got), len(want), got, want)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
