package treescan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/internal/spill/spilltest"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/inputs/tree"
	"github.com/rsgen/rsgen/internal/storage/hashcache"
)

// scanOf scans root with a window of window files, spilling into a stage
// of its own, and returns the resources, what was unread, the stats and
// the problems.
func scanOf(t *testing.T, root string, window int, cache *Cache) ([]spill.Resource, report.Unread, *report.Stats, []report.Problem) {
	t.Helper()
	sc := newScan(t, root, window, cache)
	found, unread, err := sc.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return spilltest.Resources(t, found), unread, sc.Stats, sc.Problems.Sorted()
}

// newScan is the Scan of scanOf, for a test to set its hooks before it
// runs.
func newScan(t *testing.T, root string, window int, cache *Cache) *Scan {
	t.Helper()
	base, err := uri.ParseBase("https://example.org/c/")
	if err != nil {
		t.Fatal(err)
	}
	area, stats := spilltest.Area(t), new(report.Stats)
	return &Scan{
		Source: &Walk{
			Root:   root,
			Filter: &tree.Filter{Exclude: []string{"skip/**"}},
			Spill:  area,
			Stats:  stats,
			Notice: func(s string) { t.Log("notice:", s) },
		},
		Jobs:     3,
		Hashes:   hashing.Set{hashing.SHA256},
		Base:     base,
		Cache:    cache,
		Spill:    area,
		Problems: new(report.Problems),
		Stats:    stats,
		Window:   window,
	}
}

// makeTree writes n files over nested directories, with names that need
// escaping, and returns their contents by path.
func makeTree(t *testing.T, root string, n int) map[string]string {
	t.Helper()
	files := map[string]string{"skip/me.txt": "not published"}
	for i := range n {
		rel := fmt.Sprintf("d%d/sub %d/file-%03d é.txt", i%3, i%5, i)
		files[rel] = strings.Repeat(fmt.Sprint(i), i%7)
	}
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	delete(files, "skip/me.txt")
	return files
}

// A scan gives every published file once, in the order of the paths
// whatever the window, with its digest, length and URL; a second scan
// with the hash cache the first one saved reads none of them and gives
// the same resources.
func TestScanOrderDigestsAndCache(t *testing.T) {
	root := t.TempDir()
	files := makeTree(t, root, 200)
	cachePath := filepath.Join(t.TempDir(), "cache")

	// Entries are saved only once the files' times are settled: a start
	// well after them has every entry saved.
	later := time.Now().Add(time.Hour)
	first := OpenCache(cachePath, root, later, func(s string) { t.Log(s) })
	got, unread, stats, problems := scanOf(t, root, 1, first)
	first.Commit()
	if len(problems) > 0 || len(unread.Dirs)+len(unread.Files) > 0 {
		t.Fatalf("problems %v, unread %+v", problems, unread)
	}
	if len(got) != len(files) || stats.Found.Load() != int64(len(files)) || stats.Cached.Load() != 0 {
		t.Fatalf("%d resources, %d found, %d cached; want %d, %d, 0", len(got), stats.Found.Load(), stats.Cached.Load(), len(files), len(files))
	}
	if !slices.IsSortedFunc(got, func(a, b spill.Resource) int { return strings.Compare(a.Path, b.Path) }) {
		t.Error("the resources are not in the order of their paths")
	}
	for _, r := range got {
		content, ok := files[r.Path]
		if !ok {
			t.Fatalf("%q published, not a file of the tree", r.Path)
		}
		sum := sha256.Sum256([]byte(content))
		if want := "sha-256:" + hex.EncodeToString(sum[:]); hashing.FormatTokens(r.Hash) != want || r.Length != int64(len(content)) {
			t.Errorf("%s: hash %s, length %d; want %s, %d", r.Path, r.Hash, r.Length, want, len(content))
		}
		if want := "https://example.org/c/" + uri.EscapePath(r.Path); r.Loc != want {
			t.Errorf("%s: loc %s, want %s", r.Path, r.Loc, want)
		}
	}

	again := OpenCache(cachePath, root, later, func(s string) { t.Log(s) })
	defer again.Abort()
	second, _, stats, _ := scanOf(t, root, 0, again)
	if stats.Cached.Load() != int64(len(files)) || stats.Bytes.Load() != 0 {
		t.Errorf("second scan: %d cached, %d bytes read; want %d, 0", stats.Cached.Load(), stats.Bytes.Load(), len(files))
	}
	if !slices.EqualFunc(got, second, func(a, b spill.Resource) bool {
		return a.Path == b.Path && a.Loc == b.Loc && reflect.DeepEqual(a.Hash, b.Hash) && a.Length == b.Length && a.Modified.Equal(b.Modified) && a.Type == b.Type
	}) {
		t.Error("the scan with the hash cache gives other resources than the one without")
	}
}

// A file changed since the cache was saved is read again, the others are
// not.
func TestScanCacheSeesAChange(t *testing.T) {
	root := t.TempDir()
	files := makeTree(t, root, 20)
	cachePath := filepath.Join(t.TempDir(), "cache")
	later := time.Now().Add(time.Hour)
	c := OpenCache(cachePath, root, later, func(s string) { t.Log(s) })
	scanOf(t, root, 0, c)
	c.Commit()

	rel := "d1/sub 1/file-001 é.txt"
	if _, ok := files[rel]; !ok {
		t.Fatalf("%s is not in the tree", rel)
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.WriteFile(p, []byte("changed, and longer than before"), 0o644); err != nil {
		t.Fatal(err)
	}
	c = OpenCache(cachePath, root, later, func(s string) { t.Log(s) })
	defer c.Abort()
	got, _, stats, _ := scanOf(t, root, 0, c)
	if want := int64(len(files) - 1); stats.Cached.Load() != want {
		t.Errorf("%d cached, want %d", stats.Cached.Load(), want)
	}
	i := slices.IndexFunc(got, func(r spill.Resource) bool { return r.Path == rel })
	if i < 0 || got[i].Length != int64(len("changed, and longer than before")) {
		t.Errorf("%s: not scanned again (%d resources)", rel, len(got))
	}
}

// A directory that cannot be listed, and a file that cannot be read (it
// is removed between the walk and its read), are what the scan could not
// read: each is a problem and in Unread, and nothing under them is
// spooled; the rest of the tree is.
func TestScanUnread(t *testing.T) {
	root := t.TempDir()
	makeTree(t, root, 12) // d0, d1 and d2, each with files
	gone := "d2/sub 2/file-002 é.txt"
	sc := newScan(t, root, 0, nil)
	sc.Source.(*Walk).ReadDir = func(rel string) error {
		if rel == "d1" {
			return fs.ErrPermission
		}
		return nil
	}
	sc.Source.(*Walk).Listed = func(rel string) {
		if rel == gone {
			if err := os.Remove(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
				t.Error(err)
			}
		}
	}
	found, unread, err := sc.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(unread.Dirs, []string{"d1"}) || !slices.Equal(unread.Files, []string{gone}) {
		t.Errorf("unread %+v, want the directory d1 and the file %s", unread, gone)
	}
	problems := sc.Problems.Sorted()
	if len(problems) != 2 || problems[0].Path != "d1" || !problems[0].Dir || problems[1].Path != gone || problems[1].Dir {
		t.Errorf("problems %v, want one of the directory d1 and one of the file %s", problems, gone)
	}
	got := spilltest.Resources(t, found)
	for _, r := range got {
		if strings.HasPrefix(r.Path, "d1/") || r.Path == gone {
			t.Errorf("%s spooled, but it was not read", r.Path)
		}
	}
	if want := 12 - 4 - 1; len(got) != want { // d1 holds 4 of the 12 files
		t.Errorf("%d resources spooled, want %d", len(got), want)
	}
}

// A scan whose context is cancelled while it runs stops with
// context.Canceled, whatever is in flight: the walk waiting for a slot of
// the window, the workers and the collector all return, or Run would not.
func TestScanCancelled(t *testing.T) {
	root := t.TempDir()
	makeTree(t, root, 50)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sc := newScan(t, root, 1, nil) // a window of one file: the walk waits on it
	listed := 0
	sc.Source.(*Walk).Listed = func(string) {
		if listed++; listed == 3 {
			cancel()
		}
	}
	found, _, err := sc.Run(ctx)
	if !errors.Is(err, context.Canceled) || found != nil {
		t.Errorf("Run returned %v (and a spool: %t), want context.Canceled and no spool", err, found != nil)
	}
	if listed >= 50 {
		t.Errorf("the walk listed all %d files after it was cancelled", listed)
	}
}

// knownSource lists n files, two in three with their digests known at the
// listing (as a tar's members), the others read by the pool.
type knownSource struct {
	n      int
	listed func(i int) // if set, called before each file is given
}

func (k knownSource) List(ctx context.Context, emit func(*Entry) error) error {
	h := hashing.NewHasher(hashing.Set{hashing.SHA256})
	for i := range k.n {
		if k.listed != nil {
			k.listed(i)
		}
		e := &Entry{Path: fmt.Sprintf("f%05d", i), Key: hashcache.Stat{Size: 6, Mtime: 1}}
		if i%3 != 0 {
			_, e.Sum, _ = h.Sum(nil, strings.NewReader(e.Path))
		}
		if err := emit(e); err != nil {
			return err
		}
	}
	return nil
}

func (knownSource) Stat(*Entry) bool { return true }
func (knownSource) Drop(*Entry)      {}
func (knownSource) Reads(int) (int, bool) {
	return 1, false
}
func (knownSource) Job(e *Entry) hashing.Job {
	return hashing.Job{Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(e.Path)), nil }}
}

// Files of known digests go to the collector in batches, files read by
// the pool one by one, in any mix and whatever the window, smaller than a
// batch or not: all leave in order, and a cancelled scan stops.
func TestScanKnownDigests(t *testing.T) {
	t.Parallel()
	base, err := uri.ParseBase("https://example.org/")
	if err != nil {
		t.Fatal(err)
	}
	newKnown := func(src knownSource, window int) *Scan {
		return &Scan{Source: src, Jobs: 2, Hashes: hashing.Set{hashing.SHA256}, Base: base, Spill: spilltest.Area(t),
			Problems: new(report.Problems), Stats: new(report.Stats), Window: window}
	}
	for _, window := range []int{1, 2, 3, 255, 257, 0} {
		found, _, err := newKnown(knownSource{n: 1000}, window).Run(context.Background())
		if err != nil {
			t.Fatalf("window %d: %v", window, err)
		}
		got := spilltest.Resources(t, found)
		for i, r := range got {
			sum := sha256.Sum256([]byte(r.Path))
			if r.Path != fmt.Sprintf("f%05d", i) || hashing.FormatTokens(r.Hash) != "sha-256:"+hex.EncodeToString(sum[:]) {
				t.Fatalf("window %d: resource %d is %s %s", window, i, r.Path, hashing.FormatTokens(r.Hash))
			}
		}
		if len(got) != 1000 {
			t.Errorf("window %d: %d resources, want 1000", window, len(got))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src := knownSource{n: 100000, listed: func(i int) {
		if i == 600 {
			cancel()
		}
	}}
	if _, _, err := newKnown(src, 2).Run(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}
