package zipdump

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/rsgen/rsgen/hashing"
)

// mixedFiles has one file of each kind that decides how it is stored,
// including files split into chunks (over chunkSize), of a length that is
// not a multiple of it.
// Made once: callers get their own map, and must clone a slice before
// they change it.
func mixedFiles() map[string][]byte {
	return maps.Clone(mixedFilesOnce())
}

var mixedFilesOnce = sync.OnceValue(func() map[string][]byte {
	return map[string][]byte{
		"empty.txt":                 {},
		"a.txt":                     []byte("hello\n"),
		"docs/report.html":          testText(1, 40<<10),
		"docs/big text.csv":         testText(2, 2*chunkSize+12345),
		"images/photo.png":          testRandom(3, 70<<10), // a compressed type: stored
		"data/noise.bin":            testRandom(4, 100<<10),
		"data/big noise.bin":        testRandom(5, 2*chunkSize+7),
		"data/small noise.bin":      testRandom(6, 3000),
		"café & crème/ünïcødé.json": testText(7, 5000),
		"exactly-one-chunk.txt":     testText(8, chunkSize),
	}
})

func TestRunRoundTrip(t *testing.T) {
	t.Parallel()
	c := newCorpus(t, hashing.DefaultSet, mixedFiles())
	want := make([]string, len(c.items))
	for i := range c.items {
		want[i] = c.items[i].Name
	}
	// The method each compression policy gives each file, Store unless
	// named. Auto stores a.txt: Deflate does not make 6 bytes smaller.
	deflated := map[Compression][]string{
		Auto:    {"docs/report.html", "docs/big text.csv", "café & crème/ünïcødé.json", "exactly-one-chunk.txt"},
		Store:   {},
		Deflate: slices.DeleteFunc(slices.Clone(want), func(n string) bool { return n == "empty.txt" }),
	}
	for _, comp := range []Compression{Auto, Store, Deflate} {
		t.Run(comp.String(), func(t *testing.T) {
			opt, out := testOptions(t, c)
			opt.Compression = comp
			if comp == Auto {
				opt.Level = 0 // defaultLevel, as a build packages
			}
			res := run(t, c.items, opt)
			if len(res.Skipped) != 0 || len(res.Packages) != 1 {
				t.Fatalf("skipped %v, %d packages", res.Skipped, len(res.Packages))
			}
			paths, methods := verifyAll(t, out, opt.Hashes, res)
			if !slices.Equal(paths, want) {
				t.Errorf("packaged %q, want %q", paths, want)
			}
			for _, n := range want {
				m := methodStore
				if slices.Contains(deflated[comp], n) {
					m = methodDeflate
				}
				if methods[n] != m {
					t.Errorf("%s stored with method %d, want %d", n, methods[n], m)
				}
			}
		})
	}
}

func TestRunSameBytesWhateverWorkers(t *testing.T) {
	t.Parallel()
	c := newCorpus(t, hashing.DefaultSet, mixedFiles())
	var first [][]byte
	for _, workers := range []int{1, 3, 8} {
		opt, out := testOptions(t, c)
		opt.Workers = workers
		opt.MaxBytes = 3 << 20 // several packages
		res := run(t, c.items, opt)
		var got [][]byte
		for _, p := range res.Packages {
			for _, name := range []string{p.Name, p.ManifestName} {
				b, err := os.ReadFile(filepath.Join(out, name))
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, b)
			}
		}
		if first == nil {
			first = got
			if len(got) < 4 {
				t.Fatalf("%d files written, want at least two packages", len(got))
			}
			continue
		}
		if len(got) != len(first) {
			t.Fatalf("%d workers: %d files, %d with 1", workers, len(got), len(first))
		}
		for i := range got {
			if !bytes.Equal(got[i], first[i]) {
				t.Errorf("%d workers: file %d differs from the one written with 1 worker", workers, i)
			}
		}
	}
}

func TestRunSplits(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{}
	for i := range 30 {
		files[strings.Repeat("d/", i%3)+"f"+string(rune('a'+i%26))+string(rune('a'+i/26))+".bin"] = testRandom(uint64(i), 10<<10)
	}
	files["huge.bin"] = testRandom(99, 300<<10) // larger than the limit: a package of its own
	c := newCorpus(t, hashing.DefaultSet, files)
	tests := []struct {
		name       string
		maxBytes   int64
		maxEntries int
		manifest   int64
		minPkgs    int
	}{
		{name: "bytes", maxBytes: 64 << 10, minPkgs: 6},
		{name: "entries", maxEntries: 7, minPkgs: 5},
		{name: "manifest", manifest: 2000, minPkgs: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt, out := testOptions(t, c)
			opt.MaxBytes, opt.MaxEntries, opt.MaxManifestLen = tt.maxBytes, tt.maxEntries, tt.manifest
			res := run(t, c.items, opt)
			if len(res.Packages) < tt.minPkgs {
				t.Errorf("%d packages, want at least %d", len(res.Packages), tt.minPkgs)
			}
			paths, _ := verifyAll(t, out, opt.Hashes, res)
			var want []string
			for _, it := range c.items {
				want = append(want, it.Name)
			}
			if !slices.Equal(paths, want) {
				t.Errorf("packaged %q, want %q", paths, want)
			}
			for _, p := range res.Packages {
				if tt.maxBytes > 0 && p.Size > tt.maxBytes && p.Bitstreams > 1 {
					t.Errorf("%s: %d bytes with %d bitstreams, past the limit of %d", p.Name, p.Size, p.Bitstreams, tt.maxBytes)
				}
				if tt.maxEntries > 0 && p.Bitstreams > tt.maxEntries {
					t.Errorf("%s: %d bitstreams, past the limit of %d", p.Name, p.Bitstreams, tt.maxEntries)
				}
				if tt.manifest > 0 {
					st, _ := os.Stat(filepath.Join(out, p.ManifestName))
					if st.Size() > tt.manifest {
						t.Errorf("%s: %d bytes, past the limit of %d", p.ManifestName, st.Size(), tt.manifest)
					}
				}
			}
		})
	}
}

func TestRunLeavesOutChangedFiles(t *testing.T) {
	t.Parallel()
	set := hashing.DefaultSet
	files := mixedFiles()
	c := newCorpus(t, set, files)
	index := map[string]int{}
	for i, it := range c.items {
		index[it.Name] = i
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(c.dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// After hashing: one file grows, one keeps its length with other
	// bytes, one vanishes, one split file changes in its last chunk, one
	// split file shrinks.
	write("a.txt", []byte("hello, world\n"))
	write("docs/report.html", bytes.ToUpper(files["docs/report.html"]))
	if err := os.Remove(filepath.Join(c.dir, "data/noise.bin")); err != nil {
		t.Fatal(err)
	}
	big := slices.Clone(files["docs/big text.csv"])
	big[len(big)-1] ^= 1
	write("docs/big text.csv", big)
	write("data/big noise.bin", files["data/big noise.bin"][:chunkSize+5])
	changed := []string{"a.txt", "data/big noise.bin", "data/noise.bin", "docs/big text.csv", "docs/report.html"}

	for _, comp := range []Compression{Auto, Store, Deflate} {
		t.Run(comp.String(), func(t *testing.T) {
			opt, out := testOptions(t, c)
			opt.Compression = comp
			res := run(t, c.items, opt)
			checkSkippedChanged(t, c, res, changed)
			paths, _ := verifyAll(t, out, opt.Hashes, res)
			for _, p := range paths {
				if slices.Contains(changed, p) {
					t.Errorf("%s changed but was packaged", p)
				}
			}
			if len(paths)+len(changed) != len(c.items) {
				t.Errorf("%d packaged + %d skipped of %d", len(paths), len(changed), len(c.items))
			}
		})
	}
}

// A split file rewritten between the reads of two chunks must not yield a
// Deflate stream built on a dictionary that is not the data before it.
func TestChunkStreamChecksDictionary(t *testing.T) {
	t.Parallel()
	p := &packer{opt: &Options{}, sem: make(chan struct{}, 4)}
	data := testText(1, 3*dictSize)
	mk := func(raw []byte, dict int, last bool) *job {
		p.sem <- struct{}{}
		b := slices.Clone(raw)
		return &job{raw: &b, dict: dict, last: last}
	}
	first := mk(data[:2*dictSize], 0, false)
	forged := slices.Concat(bytes.ToUpper(data[dictSize:2*dictSize]), data[2*dictSize:])
	second := mk(forged, dictSize, true)
	f, err := os.Create(filepath.Join(t.TempDir(), "x.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p.cur = &pkg{zw: newZipWriter(f, testAt, hashing.DefaultSet)}
	defer p.cur.zw.discard()
	p.cur.zw.begin("x", methodDeflate, int64(len(data)), deflateBound(int64(len(data))))
	s := &chunkStream{p: p, first: first, next: func() (*job, error) { return second, nil }}
	_, _, err = hashing.NewHasher(hashing.DefaultSet).Sum(nil, s)
	if !errors.Is(err, ErrChanged) || !errors.Is(s.bad, ErrChanged) {
		t.Fatalf("got %v, want ErrChanged", err)
	}
}

func TestRunNames(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"manifest.xml":       []byte("<not the manifest/>"),
		"_manifest.xml":      []byte("taken"),
		"sub/manifest.xml":   []byte("fine where it is"),
		"back\\slash.txt":    []byte("x"),
		"line\nbreak.txt":    []byte("x"),
		"carriage\rret.txt":  []byte("x"),
		"bell\a.txt":         []byte("x"),
		"tab\tis fine.txt":   []byte("x"),
		"ordinary.txt":       []byte("x"),
		"MANIFEST.XML/x.txt": []byte("a directory of that name is fine"),
	}
	c := newCorpus(t, hashing.DefaultSet, files)
	opt, out := testOptions(t, c)
	res := run(t, c.items, opt)
	var skipped []string
	for _, s := range res.Skipped {
		if !errors.Is(s.Err, ErrName) {
			t.Errorf("%q: %v, want ErrName", c.items[s.Index].Name, s.Err)
		}
		skipped = append(skipped, c.items[s.Index].Name)
	}
	wantSkipped := []string{"back\\slash.txt", "bell\a.txt", "carriage\rret.txt", "line\nbreak.txt"}
	if !slices.Equal(skipped, wantSkipped) {
		t.Errorf("skipped %q, want %q", skipped, wantSkipped)
	}
	paths, _ := verifyAll(t, out, opt.Hashes, res)
	want := []string{"MANIFEST.XML/x.txt", "__manifest.xml", "_manifest.xml", "ordinary.txt", "sub/manifest.xml", "tab\tis fine.txt"}
	slices.Sort(paths)
	if !slices.Equal(paths, want) {
		t.Errorf("packaged %q, want %q", paths, want)
	}
}

func TestCheckName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ok   bool
	}{
		{"a", true}, {"a/b/c.txt", true}, {"café & crème.html", true}, {"tab\there", true}, {"..x/y..", true},
		{"", false}, {"/abs", false}, {"a//b", false}, {"a/", false}, {"./a", false}, {"a/../b", false}, {"..", false},
		{"a\nb", false}, {"a\rb", false}, {"a\x00b", false}, {"a\x1fb", false}, {"a\\b", false}, {"\xff", false},
		{"a\uFFFEb", false}, {strings.Repeat("x", 70000), false},
	}
	for _, tt := range tests {
		t.Run(strings.ToValidUTF8(tt.name[:min(len(tt.name), 20)], "?"), func(t *testing.T) {
			err := checkName(tt.name)
			if (err == nil) != tt.ok {
				t.Errorf("checkName(%q) = %v, want ok=%v", tt.name, err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrName) {
				t.Errorf("checkName(%q) = %v, not ErrName", tt.name, err)
			}
		})
	}
}

func TestParseCompression(t *testing.T) {
	t.Parallel()
	for _, c := range []Compression{Auto, Store, Deflate} {
		var got Compression = -1
		if err := got.UnmarshalText([]byte(c.String())); err != nil || got != c {
			t.Errorf("UnmarshalText(%q) = %v, %v", c.String(), got, err)
		}
	}
	var c Compression = -1
	if err := c.UnmarshalText(nil); err != nil || c != Auto {
		t.Errorf("UnmarshalText(\"\") = %v, %v; want auto", c, err)
	}
	if err := c.UnmarshalText([]byte("zstd")); err == nil {
		t.Error("UnmarshalText(zstd) succeeded")
	}
}

// failFile is a package file on a disk that fills up after limit bytes.
type failFile struct {
	*os.File
	limit int64
	n     int64
}

func (f *failFile) Write(p []byte) (int, error) {
	if f.n+int64(len(p)) > f.limit {
		m, _ := f.File.Write(p[:f.limit-f.n])
		f.n += int64(m)
		return m, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	m, err := f.File.Write(p)
	f.n += int64(m)
	return m, err
}

func TestRunDiskFull(t *testing.T) {
	t.Parallel()
	c := newCorpus(t, hashing.DefaultSet, mixedFiles())
	for _, limit := range []int64{0, 100, 64 << 10, 1 << 20, 2 << 20} {
		opt, _ := testOptions(t, c)
		create := opt.Create
		var names []string
		opt.Create = func(name string) (File, error) {
			names = append(names, name)
			f, err := create(name)
			if err != nil {
				return nil, err
			}
			return &failFile{File: f.(*os.File), limit: limit}, nil
		}
		_, err := Run(context.Background(), c.items, opt)
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("limit %d: got %v, want ENOSPC", limit, err)
		}
		if !strings.Contains(err.Error(), "resourcedump-0000") {
			t.Errorf("limit %d: %q does not name the file", limit, err)
		}
	}
}

func TestRunCancelled(t *testing.T) {
	t.Parallel()
	c := newCorpus(t, hashing.DefaultSet, mixedFiles())
	opt, _ := testOptions(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	open := opt.Open
	var opened atomic.Int32
	opt.Open = func(it *Item) (io.ReadCloser, error) {
		if opened.Add(1) == 3 {
			cancel()
		}
		return open(it)
	}
	if _, err := Run(ctx, c.items, opt); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

func TestRunNothing(t *testing.T) {
	t.Parallel()
	c := newCorpus(t, hashing.DefaultSet, map[string][]byte{"gone.txt": []byte("x")})
	os.Remove(filepath.Join(c.dir, "gone.txt"))
	opt, out := testOptions(t, c)
	res := run(t, c.items, opt)
	if len(res.Packages) != 0 || len(res.Skipped) != 1 {
		t.Fatalf("%d packages, skipped %v", len(res.Packages), res.Skipped)
	}
	if left, _ := os.ReadDir(out); len(left) != 0 {
		t.Errorf("left %v", left)
	}
	res = run(t, nil, opt)
	if len(res.Packages) != 0 {
		t.Errorf("%d packages of nothing", len(res.Packages))
	}
}

// checkSkippedChanged checks that the files left out of res are those
// named by changed, sorted, each for having changed while it was packaged.
func checkSkippedChanged(t *testing.T, c *corpus, res *Result, changed []string) {
	t.Helper()
	var skipped []string
	for _, s := range res.Skipped {
		if !errors.Is(s.Err, ErrChanged) {
			t.Errorf("%s: %v, want ErrChanged", c.items[s.Index].Name, s.Err)
		}
		skipped = append(skipped, c.items[s.Index].Name)
	}
	slices.Sort(skipped)
	if !slices.Equal(skipped, changed) {
		t.Errorf("skipped %q, want %q", skipped, changed)
	}
	why := res.Why()
	for _, s := range res.Skipped {
		if why[s.Index] != s.Err {
			t.Errorf("Why gives %v for item %d, skipped for %v", why[s.Index], s.Index, s.Err)
		}
	}
	if len(why) != len(res.Skipped) {
		t.Errorf("Why gives %d reasons for %d items skipped", len(why), len(res.Skipped))
	}
}
