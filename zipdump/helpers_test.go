package zipdump

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/mediatype"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/testenv"
)

var testAt = time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)

// testText returns n bytes of deterministic, compressible text.
func testText(seed uint64, n int) []byte {
	words := strings.Fields("the of and to in is was for on that with as by at from his her an were which are this be or had not but first one their its new after who they have has also two been other into all more time during only over most years")
	r := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		if r.IntN(12) == 0 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.Bytes()[:n]
}

// testRandom returns n bytes that do not compress.
func testRandom(seed uint64, n int) []byte {
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8)})
	b := make([]byte, n)
	r.Read(b)
	return b
}

// corpus is a source directory and the items of its files.
type corpus struct {
	dir   string
	items []Item
}

// newCorpus writes files (name → content) under a new directory, in name
// order, and returns them as items with their digests.
func newCorpus(t testing.TB, set hashing.Set, files map[string][]byte) *corpus {
	t.Helper()
	c := &corpus{dir: t.TempDir()}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		p := filepath.Join(c.dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			t.Fatal(err)
		}
		c.items = append(c.items, c.item(t, set, n))
	}
	return c
}

// item describes the file name of c as it is now.
func (c *corpus) item(t testing.TB, set hashing.Set, name string) Item {
	t.Helper()
	f, err := os.Open(filepath.Join(c.dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, sum, err := hashing.NewHasher(set).Sum(nil, f)
	if err != nil {
		t.Fatal(err)
	}
	typ := mediatype.ByName(name)
	if typ == "" {
		typ = mediatype.Octet
	}
	return Item{Name: name, Size: n, Hash: set.Tokens(nil, sum), Entry: rsxml.Entry{
		Loc:     "https://example.org/" + name,
		Lastmod: "2024-01-02T03:04:05Z",
		MD:      rsxml.MD{Hash: set.Format(sum), Length: strconv.FormatInt(n, 10), Type: typ},
	}}
}

// open opens the file of it.
func (c *corpus) open(it *Item) (io.ReadCloser, error) {
	f, err := os.Open(filepath.Join(c.dir, filepath.FromSlash(it.Name)))
	if err != nil {
		return nil, err // not a nil *os.File in an interface
	}
	return f, nil
}

// testLevel is the Deflate level of the tests. No property they check
// depends on the level, and level 2 costs a fraction of defaultLevel's CPU
// on their corpora; it still goes the way of every level but BestSpeed
// (the level of the probes). TestRunRoundTrip packages at defaultLevel.
const testLevel = 2

// testOptions writes packages into a new directory and reads c, at
// testLevel.
func testOptions(t testing.TB, c *corpus) (Options, string) {
	t.Helper()
	out := t.TempDir()
	return Options{
		Hashes:   hashing.DefaultSet,
		Level:    testLevel,
		Stem:     "resourcedump",
		Manifest: rsxml.Doc{Links: []rsxml.Link{{Rel: "up", Href: "https://example.org/resourcesync/capabilitylist.xml"}}},
		At:       testAt,
		Open:     c.open,
		Create: func(name string) (File, error) {
			return os.OpenFile(filepath.Join(out, name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		},
		Remove: func(name string) error { return os.Remove(filepath.Join(out, name)) },
	}, out
}

func run(t testing.TB, items []Item, opt Options) *Result {
	t.Helper()
	res, err := Run(context.Background(), items, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checked is what verifyPackage found in a package.
type checked struct {
	entries []*rsxml.Entry
	methods map[string]uint16 // by path in the package
}

// verifyPackage reads back one package with archive/zip and checks it
// against its manifest, byte by byte: every bitstream is in the manifest
// with its path, length and digest, and nothing else is in the package;
// the copy of the manifest beside it is the manifest inside; its size and
// digest are those reported.
func verifyPackage(t testing.TB, dir string, set hashing.Set, p Package) checked {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, p.Name))
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) != p.Size {
		t.Errorf("%s: %d bytes, reported %d", p.Name, len(data), p.Size)
	}
	_, sum, _ := hashing.NewHasher(set).Sum(nil, bytes.NewReader(data))
	if got := set.Format(sum); got != hashing.FormatTokens(p.Hash) {
		t.Errorf("%s: digest %s, reported %s", p.Name, got, p.Hash)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("%s: archive/zip: %v", p.Name, err)
	}
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		if _, dup := files[f.Name]; dup {
			t.Errorf("%s: %q twice", p.Name, f.Name)
		}
		if !f.Modified.Equal(testAt) && !f.Modified.IsZero() {
			t.Errorf("%s: %s modified %v, want %v", p.Name, f.Name, f.Modified, testAt)
		}
		files[f.Name] = f
	}
	mf, ok := files[ManifestName]
	if !ok {
		t.Fatalf("%s has no %s at its top level", p.Name, ManifestName)
	}
	manifest := readZipFile(t, mf)
	copyBytes, err := os.ReadFile(filepath.Join(dir, p.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(manifest, copyBytes) {
		t.Errorf("%s differs from the %s inside %s", p.ManifestName, ManifestName, p.Name)
	}
	doc, entries, err := rsxml.ReadAll(bytes.NewReader(manifest), rsxml.ReadOptions{MaxBytes: rsxml.MaxBytes, MaxEntries: rsxml.MaxEntries})
	if err != nil {
		t.Fatalf("%s: manifest: %v", p.Name, err)
	}
	if doc.Index || doc.MD.Capability != rsxml.CapResourceDumpManifest || doc.MD.At == "" || doc.MD.Completed == "" || doc.Link("up") == "" {
		t.Errorf("%s: manifest root %+v, links %+v", p.Name, doc.MD, doc.Links)
	}
	paths := map[string]bool{} // resources may share a bitstream (Item.Also)
	for _, e := range entries {
		paths[e.MD.Path] = true
	}
	if len(paths) != p.Bitstreams || len(zr.File) != len(paths)+1 {
		t.Errorf("%s: %d manifest entries at %d paths, %d ZIP entries, %d bitstreams reported", p.Name, len(entries), len(paths), len(zr.File), p.Bitstreams)
	}
	out := checked{entries: entries, methods: map[string]uint16{}}
	for _, e := range entries {
		name, ok := strings.CutPrefix(e.MD.Path, "/")
		f := files[name]
		if !ok || f == nil || name == ManifestName {
			t.Errorf("%s: manifest path %q names no bitstream", p.Name, e.MD.Path)
			continue
		}
		b := readZipFile(t, f)
		_, sum, _ := hashing.NewHasher(set).Sum(nil, bytes.NewReader(b))
		if got := set.Format(sum); got != e.MD.Hash {
			t.Errorf("%s: %s: digest %s, manifest says %s", p.Name, name, got, e.MD.Hash)
		}
		if got := strconv.Itoa(len(b)); got != e.MD.Length {
			t.Errorf("%s: %s: %s bytes, manifest says %s", p.Name, name, got, e.MD.Length)
		}
		out.methods[name] = f.Method
	}
	testenv.Unzip(t, filepath.Join(dir, p.Name))
	return out
}

func readZipFile(t testing.TB, f *zip.File) []byte {
	t.Helper()
	r, err := f.Open()
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r) // checks the CRC-32 at the end
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	return b
}

// verifyAll checks every package and returns the paths of the bitstreams
// of all of them, in order.
func verifyAll(t testing.TB, dir string, set hashing.Set, res *Result) ([]string, map[string]uint16) {
	t.Helper()
	var paths []string
	methods := map[string]uint16{}
	for _, p := range res.Packages {
		c := verifyPackage(t, dir, set, p)
		for _, e := range c.entries {
			paths = append(paths, strings.TrimPrefix(e.MD.Path, "/"))
		}
		for k, v := range c.methods {
			methods[k] = v
		}
	}
	return paths, methods
}
