package archivescan

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/internal/spill/spilltest"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/inputs/tree"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/zipdump"
)

// newScan is a scan of the archive at src, spilling into a stage of its
// own, with the default digests and a worker per core.
func newScan(t testing.TB, src string) *Scan {
	t.Helper()
	base, err := uri.ParseBase("https://example.org/")
	if err != nil {
		t.Fatal(err)
	}
	return &Scan{
		Archive:  &Archive{Path: src, Kind: KindOf(src)},
		Filter:   &tree.Filter{},
		Base:     base,
		Hashes:   hashing.DefaultSet,
		Spill:    spilltest.Area(t),
		Problems: new(report.Problems),
		Stats:    new(report.Stats),
		Notice:   func(string) {},
	}
}

// resources runs sc and returns the resources it spooled.
func resources(t testing.TB, sc *Scan, ctx context.Context) []spill.Resource {
	t.Helper()
	s, _, err := sc.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return spilltest.Resources(t, s)
}

// The members a Resource Dump reads again (OpenMembers) are the bytes of
// exactly the published members, in the order of the archive; a tar's
// must be opened in that order, a zip's in any.
func TestMembersReadAgain(t *testing.T) {
	members := []testenv.Member{
		{Name: "b.txt", Body: "bee"},
		{Name: "dir/", Typeflag: tar.TypeDir},
		{Name: "./dir/a b.txt", Body: "spaces"},
		{Name: "../evil", Body: "refused"},
		{Name: "dup", Body: "one"},
		{Name: "dup", Body: "two"},
		{Name: "a.txt", Body: "ay"},
		{Name: "empty", Body: ""},
		{Name: "x", Body: "a file"}, // and a directory: neither is published
		{Name: "x/y", Body: "under the file"},
	}
	published := map[string]string{"b.txt": "bee", "dir/a b.txt": "spaces", "a.txt": "ay", "empty": ""}
	for _, name := range []string{"site.tar", "site.tar.gz", "site.tgz", "SITE.ZIP"} {
		t.Run(name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), name)
			testenv.WriteArchive(t, src, members)
			sc := newScan(t, src)
			sc.Index = true
			out := resources(t, sc, context.Background())
			var paths []string
			for _, r := range out {
				paths = append(paths, r.Path)
			}
			if want := []string{"a.txt", "b.txt", "dir/a b.txt", "empty"}; !slices.Equal(paths, want) {
				t.Fatalf("resources %q, want %q", paths, want)
			}
			if p := sc.Problems.Sorted(); len(p) != 4 || p[0].Path != "../evil" || p[1].Path != "dup" || p[2].Path != "x" || p[3].Path != "x/y" {
				t.Errorf("problems %v, want ../evil, dup, x and x/y", p)
			}
			m, err := sc.Archive.OpenMembers()
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			zipped := strings.HasSuffix(name, ".ZIP")
			if m.Sequential() == zipped {
				t.Errorf("Sequential: %v", m.Sequential())
			}
			inOrder := slices.Clone(paths)
			slices.SortFunc(inOrder, func(x, y string) int {
				i, _ := sc.Archive.Index(x)
				j, _ := sc.Archive.Index(y)
				return i - j
			})
			if want := []string{"b.txt", "dir/a b.txt", "a.txt", "empty"}; !slices.Equal(inOrder, want) {
				t.Errorf("the order of the archive: %q, want %q", inOrder, want)
			}
			for _, p := range inOrder {
				r, err := m.Open(&zipdump.Item{Name: p, Size: int64(len(published[p]))})
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				data, err := io.ReadAll(r)
				r.Close()
				if err != nil || string(data) != published[p] {
					t.Errorf("%s read again: %q, %v; want %q", p, data, err, published[p])
				}
			}
			for _, name := range []string{"dup", "x", "x/y"} {
				if _, ok := sc.Archive.Index(name); ok {
					t.Errorf("%s, not published, is indexed", name)
				}
			}
			if _, err := m.Open(&zipdump.Item{Name: "dup", Size: 3}); err == nil {
				t.Error("a member of a name the archive holds twice was opened")
			}
			if _, err := m.Open(&zipdump.Item{Name: "b.txt", Size: 3}); (err == nil) != zipped {
				t.Errorf("b.txt opened again after the members past it: %v", err)
			}
		})
	}
}

// A member whose length changed since the scan is zipdump.ErrChanged.
func TestMembersReplacedSinceTheScan(t *testing.T) {
	for _, name := range []string{"site.tar", "site.zip"} {
		t.Run(name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), name)
			testenv.WriteArchive(t, src, []testenv.Member{{Name: "a", Body: "first"}})
			sc := newScan(t, src)
			sc.Index = true
			resources(t, sc, context.Background())
			testenv.WriteArchive(t, src, []testenv.Member{{Name: "a", Body: "longer than first"}})
			m, err := sc.Archive.OpenMembers()
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if _, err := m.Open(&zipdump.Item{Name: "a", Size: 5}); !errors.Is(err, zipdump.ErrChanged) {
				t.Errorf("Open: %v, want zipdump.ErrChanged", err)
			}
		})
	}
}

// Scan.Skip leaves members out without a problem; the filter prunes
// directories as the walk of a tree does.
func TestSkipAndFilter(t *testing.T) {
	src := filepath.Join(t.TempDir(), "site.zip")
	testenv.WriteArchive(t, src, []testenv.Member{
		{Name: "resourcesync/capabilitylist.xml", Body: "<old/>"}, {Name: "drafts/x.html", Body: "x"},
		{Name: ".hidden/y", Body: "y"}, {Name: "index.html", Body: "home"},
	})
	sc := newScan(t, src)
	sc.Skip = func(name string) bool { return strings.HasPrefix(name, "resourcesync/") }
	sc.Filter = &tree.Filter{Exclude: []string{"drafts/**"}}
	out := resources(t, sc, context.Background())
	if len(out) != 1 || out[0].Path != "index.html" || out[0].Loc != "https://example.org/index.html" || out[0].Type != "text/html" {
		t.Errorf("resources %+v, want index.html alone", out)
	}
	if p := sc.Problems.Sorted(); len(p) != 0 {
		t.Errorf("problems %v", p)
	}
}

// An archive of more members than the cap is an error naming it, before
// it takes the memory of the machine (issue 9 item 10).
func TestTooManyMembers(t *testing.T) {
	dir := t.TempDir()
	var members []testenv.Member
	for i := range 6 {
		members = append(members, testenv.Member{Name: strings.Repeat("m", i+1)})
	}
	for _, name := range []string{"many.tar.gz", "many.zip", "five.tar", "five.zip"} {
		src := filepath.Join(dir, name)
		m := members
		if strings.HasPrefix(name, "five") {
			m = members[:5]
		}
		testenv.WriteArchive(t, src, m)
		sc := newScan(t, src)
		sc.maxZip, sc.maxTar = 5, 5
		_, _, err := sc.Run(context.Background())
		if strings.HasPrefix(name, "five") {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if !errors.Is(err, ErrTooManyMembers) || !strings.Contains(err.Error(), src) {
			t.Errorf("%s: error %v, want ErrTooManyMembers naming it", name, err)
		}
	}
}

// The index of the members is kept only for a Resource Dump: a tar of
// many empty members costs the disk of its sort, not memory.
func TestIndexOnlyWhenAsked(t *testing.T) {
	src := filepath.Join(t.TempDir(), "empty.tar")
	testenv.WriteArchive(t, src, []testenv.Member{{Name: "a"}, {Name: "b"}, {Name: "c", Body: "x"}, {Name: "c"}})
	sc := newScan(t, src)
	found, unread, err := sc.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(unread.Dirs) != 0 || !slices.Equal(unread.Files, []string{"c"}) {
		t.Errorf("unread %+v, want the duplicate c", unread)
	}
	out := spilltest.Resources(t, found)
	if len(out) != 2 || out[0].Path != "a" || out[1].Path != "b" || hashing.FormatTokens(out[0].Hash) != hashing.FormatTokens(out[1].Hash) {
		t.Errorf("resources %+v: want a and b, with the digests of nothing", out)
	}
	if sc.Archive.members != nil {
		t.Errorf("members indexed without a dump: %v", sc.Archive.members)
	}
	if len(sc.Problems.Sorted()) != 1 {
		t.Errorf("problems %v, want the duplicate c", sc.Problems.Sorted())
	}
}

// cancelAfter is a context cancelled once its Err has been asked for
// calls times: a cancellation that comes while a member is being read.
type cancelAfter struct {
	context.Context
	mu    sync.Mutex
	calls int
	done  chan struct{}
}

func newCancelAfter(calls int) *cancelAfter {
	return &cancelAfter{Context: context.Background(), calls: calls, done: make(chan struct{})}
}

func (c *cancelAfter) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls > 0 {
		if c.calls--; c.calls == 0 {
			close(c.done)
		}
		return nil
	}
	return context.Canceled
}

func (c *cancelAfter) Done() <-chan struct{} { return c.done }

// An interrupt stops the scan inside a member too: a member of a .tar.gz
// or a zip may expand to far more than the archive holds (a sparse tar
// member of a petabyte takes a few hundred bytes), and an interrupted
// build that reads it to its end never stops.
func TestInterruptedInsideMember(t *testing.T) {
	zeros := strings.Repeat("\x00", 8<<20)
	for _, kind := range []string{"tar.gz", "zip"} {
		t.Run(kind, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "big."+kind)
			if kind == "zip" {
				var buf bytes.Buffer
				zw := zip.NewWriter(&buf)
				w, err := zw.CreateHeader(&zip.FileHeader{Name: "zeros.bin", Method: zip.Deflate, Modified: testenv.ArchiveMtime})
				if err != nil {
					t.Fatal(err)
				}
				w.Write([]byte(zeros))
				if err := zw.Close(); err != nil {
					t.Fatal(err)
				}
				os.WriteFile(src, buf.Bytes(), 0o644)
			} else {
				os.WriteFile(src, testenv.GzipBytes(t, testenv.TarBytes(t, []testenv.Member{{Name: "zeros.bin", Body: zeros}}, 0), gzip.BestCompression), 0o644)
			}
			sc := newScan(t, src)
			sc.Jobs = 1
			if _, _, err := sc.Run(newCancelAfter(3)); !errors.Is(err, context.Canceled) {
				t.Errorf("Run: %v; want context.Canceled from inside the member", err)
			}
		})
	}
}

// A zip whose central directory lists one member's bytes under several
// names (the "overlapping" zip bomb: 46 MB that expand to petabytes) is
// damaged: no zip writer shares a member's data between entries.
func TestZipOverlappingMembers(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "a.txt", Method: zip.Deflate, Modified: testenv.ArchiveMtime})
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(strings.Repeat("kernel ", 100)))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	// Copy the central directory record of a.txt as b.txt, c.txt.
	data := buf.Bytes()
	eocd := bytes.LastIndex(data, []byte("PK\x05\x06"))
	cdSize := binary.LittleEndian.Uint32(data[eocd+12:])
	cdOff := binary.LittleEndian.Uint32(data[eocd+16:])
	rec := data[cdOff : cdOff+cdSize]
	var out []byte
	out = append(out, data[:cdOff]...)
	out = append(out, rec...)
	for _, name := range []string{"b.txt", "c.txt"} {
		r := bytes.Clone(rec)
		copy(r[46:], name)
		out = append(out, r...)
	}
	end := bytes.Clone(data[eocd : eocd+22])
	binary.LittleEndian.PutUint16(end[8:], 3)
	binary.LittleEndian.PutUint16(end[10:], 3)
	binary.LittleEndian.PutUint32(end[12:], 3*cdSize)
	out = append(out, end...)

	src := filepath.Join(t.TempDir(), "overlap.zip")
	if err := os.WriteFile(src, out, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err = newScan(t, src).Run(context.Background()); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), src) {
		t.Errorf("Run: %v; want ErrDamaged naming the archive", err)
	}
}

// A member whose URL would be too long for a <loc> is skipped and
// reported, as a file of a tree is; the rest of the archive is published
// (it is not damaged).
func TestMemberURLTooLong(t *testing.T) {
	long := "d/" + strings.Repeat("x", 60<<10) // a zip name has at most 64 KiB
	for _, ext := range []string{"tar", "tar.gz", "zip"} {
		t.Run(ext, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "site."+ext)
			testenv.WriteArchive(t, src, []testenv.Member{{Name: "a.txt", Body: "a"}, {Name: long, Body: "l"}, {Name: "b.txt", Body: "b"}})
			sc := newScan(t, src)
			out := resources(t, sc, context.Background())
			if len(out) != 2 || out[0].Path != "a.txt" || out[1].Path != "b.txt" {
				t.Errorf("resources %v, want a.txt and b.txt", out)
			}
			// The name a problem keeps is clipped: a tar's names may be a
			// MiB each (PAX), which a few KiB of .tar.gz compress.
			if p := sc.Problems.Sorted(); len(p) != 1 || !strings.HasPrefix(p[0].Path, "d/xxx") || len(p[0].Path) > maxProblemName+10 || !errors.Is(p[0].Err, uri.ErrLocTooLong) {
				t.Errorf("problems %v, want the long name, clipped", p)
			}
		})
	}
}

// A tar's members are sorted on disk: an archive larger than the sort's
// memory, in no order, with names that several members hold, gives the
// same resources and problems as one sorted in memory.
func TestTarSortSpills(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var members []testenv.Member
	for i := range 3000 {
		name := fmt.Sprintf("d%d/f%04d.txt", rng.IntN(9), rng.IntN(2500)) // some names twice
		members = append(members, testenv.Member{Name: name, Body: strings.Repeat("z", i%50)})
	}
	src := filepath.Join(t.TempDir(), "site.tar.gz")
	testenv.WriteArchive(t, src, members)
	var golden []spill.Resource
	var problems []report.Problem
	for _, mem := range []int{32 << 20, 16 << 10} {
		func() {
			sc := newScan(t, src)
			sc.sortMemory = mem
			got := resources(t, sc, context.Background())
			if golden == nil {
				golden, problems = got, sc.Problems.Sorted()
				if len(problems) == 0 || len(got) < 1000 {
					t.Fatalf("%d resources, %d problems: want names held twice", len(got), len(problems))
				}
				return
			}
			if fmt.Sprint(got) != fmt.Sprint(golden) {
				t.Errorf("a sort in %d bytes gives other resources", mem)
			}
			if p := sc.Problems.Sorted(); fmt.Sprint(p) != fmt.Sprint(problems) {
				t.Errorf("a sort in %d bytes: %d problems, want %d", mem, len(p), len(problems))
			}
		}()
	}
}

func TestMemberName(t *testing.T) {
	tests := []struct{ raw, want, err string }{
		{"a/b.txt", "a/b.txt", ""},
		{"./a", "a", ""},
		{"././a", "a", ""},
		{"dir/", "", ""},
		{".", "", ""},
		{"./", "", ""},
		{"..", "", ".. segment"},
		{"a/..", "", ".. segment"},
		{"/a", "", "absolute"},
		{"C:/a", "", "absolute"},
		{"c:", "", "absolute"},
		{"a\\b", "", "backslash"},
		{"a\x00b", "", "NUL"},
		{"a/./b", "", "segment"},
		{"\xc3", "", "UTF-8"},
		{"ab:c", "ab:c", ""},
	}
	for _, tc := range tests {
		got, err := memberName(tc.raw)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("memberName(%q) = %q, %v; want %q, %q", tc.raw, got, err, tc.want, tc.err)
		}
	}
}

// dirConflicts finds every file that is also a directory of a later path,
// and every path under one, once each, whatever sorts between them.
func TestDirConflicts(t *testing.T) {
	for _, tt := range []struct {
		paths []string
		want  string
	}{
		{[]string{"a", "a-b", "a.c", "a0", "b"}, ""},
		{[]string{"a", "a!", "a!/b", "a/c"}, "a! a!/b<a! a a/c<a"},
		{[]string{"x", "x/y", "x/y/z"}, "x x/y<x x/y/z<x"},
		{[]string{"x", "x\x00", "x\x01/q", "x/y"}, "x x/y<x"},
		{[]string{"d/e", "d/e!", "d/e/f", "d/e0"}, "d/e d/e/f<d/e"},
	} {
		var d dirConflicts
		for _, p := range tt.paths {
			d.add(p)
		}
		var got []string
		for _, c := range d.found {
			s := c.path
			if c.under != "" {
				s += "<" + c.under
			}
			got = append(got, s)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("%q: %q, want %q", tt.paths, strings.Join(got, " "), tt.want)
		}
	}
	// The chain holds the paths a later one may lie under, no more: 3,000
	// names each the one before it and "!" (a byte below "/").
	var d dirConflicts
	name := "n"
	for range 3000 {
		d.add(name)
		name += "!"
	}
	d.add("o")
	if len(d.chain) != 1 || len(d.found) != 0 {
		t.Errorf("chain of %d, %d found after a path past them all", len(d.chain), len(d.found))
	}
}

// A name a zip holds twice is not published even when one of its members
// cannot be read (a method of compression not supported): both count.
func TestZipDuplicateUnreadable(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, h := range []*zip.FileHeader{
		{Name: "a.txt", Method: zip.Store},
		{Name: "a.txt", Method: 99, CRC32: 1, CompressedSize64: 1, UncompressedSize64: 1},
		{Name: "b.txt", Method: zip.Store},
	} {
		h.Modified = testenv.ArchiveMtime
		var w io.Writer
		var err error
		if h.Method == 99 {
			w, err = zw.CreateRaw(h)
		} else {
			w, err = zw.CreateHeader(h)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "site.zip")
	if err := os.WriteFile(src, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sc := newScan(t, src)
	out := resources(t, sc, context.Background())
	if len(out) != 1 || out[0].Path != "b.txt" {
		t.Errorf("resources %v, want b.txt alone", out)
	}
	p := sc.Problems.Sorted()
	if len(p) != 2 || p[0].Path != "a.txt" || !errors.Is(p[0].Err, zip.ErrAlgorithm) || p[1].Path != "a.txt" || !strings.Contains(p[1].Err.Error(), "2 members of this name") {
		t.Errorf("problems %v, want a.txt unreadable, then held twice", p)
	}
}

// A tar member keeps its lastmod in any year, also where nanoseconds since
// 1970 overflow an int64 (before 1678, after 2262).
func TestTarMemberTimeAnyYear(t *testing.T) {
	t.Parallel()
	times := map[string]time.Time{
		"early.txt": time.Date(1600, 1, 2, 3, 4, 5, 0, time.UTC),
		"late.txt":  time.Date(2300, 1, 2, 3, 4, 5, 0, time.UTC),
		"now.txt":   time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC),
	}
	src := timedTar(t, times)
	out := resources(t, newScan(t, src), context.Background())
	if len(out) != len(times) {
		t.Fatalf("%d resources, want %d", len(out), len(times))
	}
	for _, r := range out {
		if !r.Modified.Equal(times[r.Path]) {
			t.Errorf("%s: lastmod %v, want %v", r.Path, r.Modified, times[r.Path])
		}
	}
}

// A member whose time has no four-digit year (a PAX header may give any
// time) is skipped and named, as a member whose URL is too long is: a
// W3C Datetime cannot write it, and the build reported it as a bug of
// rsgen when its own check of the Resource List failed.
func TestMemberTimeBeyondDatetime(t *testing.T) {
	t.Parallel()
	times := map[string]time.Time{
		"bc.txt":  time.Date(-1, 1, 2, 3, 4, 5, 0, time.UTC),
		"far.txt": time.Date(10000, 1, 2, 3, 4, 5, 0, time.UTC),
		"ok.txt":  time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
	}
	src := timedTar(t, times)
	sc := newScan(t, src)
	if out := resources(t, sc, context.Background()); len(out) != 1 || out[0].Path != "ok.txt" {
		t.Errorf("resources %v, want ok.txt", out)
	}
	p := sc.Problems.Sorted()
	if len(p) != 2 || p[0].Path != "bc.txt" || p[1].Path != "far.txt" || !errors.Is(p[0].Err, ErrTimeOutOfRange) || !errors.Is(p[1].Err, ErrTimeOutOfRange) {
		t.Errorf("problems %v, want bc.txt and far.txt, their times out of range", p)
	}
}

// A tar cut inside a block is damaged, also where the cut falls in the
// padding of its last member, which tar.Reader takes for the end of the
// archive (GNU tar: "Unexpected EOF in archive"); one cut at a block
// boundary, without the blocks that end it, is read as tar -t reads it.
func TestTarCutInsideBlock(t *testing.T) {
	t.Parallel()
	plain := testenv.TarBytes(t, []testenv.Member{{Name: "a.txt", Body: "first"}, {Name: "b.txt", Body: "second"}}, 0)
	cut := 3*512 + len("second") // b.txt's header and bytes, none of its padding
	for _, c := range []struct {
		name string
		data []byte
		bad  bool
	}{
		{"cut-in-padding.tar", plain[:cut], true},
		{"cut-in-padding.tar.gz", testenv.GzipBytes(t, plain[:cut], 6), true},
		{"cut-at-block.tar", plain[:4*512], false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			src := filepath.Join(t.TempDir(), c.name)
			if err := os.WriteFile(src, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := newScan(t, src).Run(context.Background())
			if c.bad != errors.Is(err, ErrDamaged) || !c.bad && err != nil {
				t.Errorf("Run: %v; damaged: %v", err, c.bad)
			}
		})
	}
}

// timedTar writes a tar of a member "x" of each name in times, dated so.
func timedTar(t *testing.T, times map[string]time.Time) string {
	var members []testenv.Member
	for _, name := range slices.Sorted(maps.Keys(times)) {
		members = append(members, testenv.Member{Name: name, Body: "x", Mtime: times[name]})
	}
	src := filepath.Join(t.TempDir(), "site.tar")
	if err := os.WriteFile(src, testenv.TarBytes(t, members, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	return src
}
