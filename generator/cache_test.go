package generator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/testenv"
)

// acCachedConfig is acConfig with a hash cache, and a clock an hour ahead:
// the files a test has just written count as settled, which real files
// are once a tenth of a second old.
func acCachedConfig(src, out, cache string, at time.Time) Config {
	cfg := acConfig(src, out, at)
	cfg.Cache = cache
	cfg.now = func() time.Time { return time.Now().Add(time.Hour) }
	return cfg
}

func TestCacheGivesTheSameOutput(t *testing.T) {
	t.Parallel()
	files := map[string]string{"sniffed": "%PDF-1.4 sniffed by content", "x/page.html": "<p>page</p>"}
	for k, v := range acFiles {
		files[k] = v
	}
	tr := acNewTree(t, files, acT0)
	cache := filepath.Join(t.TempDir(), "rsgen.cache")
	var notices []string
	build := func(cfg Config) (*Report, map[string]string) {
		t.Helper()
		cfg.Notice = func(m string) { notices = append(notices, m) }
		rep := mustBuild(t, cfg)
		return rep, testenv.ReadTree(t, cfg.Out)
	}

	_, plain := build(acConfig(tr.dir, t.TempDir(), acDay(1)))
	rep, cold := build(acCachedConfig(tr.dir, t.TempDir(), cache, acDay(1)))
	if rep.Cached != 0 {
		t.Errorf("a cold build found %d files in the cache", rep.Cached)
	}
	sameFiles(t, "a cold build with --cache", cold, plain)
	rep, warm := build(acCachedConfig(tr.dir, t.TempDir(), cache, acDay(1)))
	if rep.Cached != len(files) {
		t.Errorf("a warm build found %d of %d files in the cache", rep.Cached, len(files))
	}
	sameFiles(t, "a warm build", warm, plain)

	// Another digest is not in the cache: those files are read, and the
	// cache then has both.
	cfg := acCachedConfig(tr.dir, t.TempDir(), cache, acDay(1))
	cfg.Hashes = hashing.Set{hashing.SHA256, hashing.MD5}
	if rep, _ = build(cfg); rep.Cached != 0 {
		t.Errorf("%d files found in the cache for a digest it lacks", rep.Cached)
	}
	if rep, _ = build(acCachedConfig(tr.dir, t.TempDir(), cache, acDay(1))); rep.Cached != len(files) {
		t.Errorf("%d files found in the cache after a build with more digests", rep.Cached)
	}
	cfg = acCachedConfig(tr.dir, t.TempDir(), cache, acDay(1))
	cfg.Hashes = hashing.Set{hashing.MD5}
	if rep, _ = build(cfg); rep.Cached != len(files) {
		t.Errorf("%d files found in the cache by their md5", rep.Cached)
	}

	// A content change that keeps the size and the mtime still changes
	// the status change time, which the cache compares.
	tr.write("a.txt", "ALPHA", acT0)
	tr.touch("x/page.html", acT0.Add(time.Second))
	rep, changed := build(acCachedConfig(tr.dir, t.TempDir(), cache, acDay(1)))
	if rep.Cached != len(files)-2 {
		t.Errorf("%d files found in the cache, want all but the two changed", rep.Cached)
	}
	_, plainChanged := build(acConfig(tr.dir, t.TempDir(), acDay(1)))
	sameFiles(t, "a warm build after a change", changed, plainChanged)
	if !strings.Contains(changed["resourcesync/resourcelist.xml"], acSHA("ALPHA")) {
		t.Error("the new digest of a.txt is not published")
	}

	// A damaged cache is reported and ignored.
	if err := os.WriteFile(cache, []byte("RSGENHC\ngarbage after the magic"), 0o644); err != nil {
		t.Fatal(err)
	}
	notices = nil
	rep, damaged := build(acCachedConfig(tr.dir, t.TempDir(), cache, acDay(1)))
	if rep.Cached != 0 || len(notices) != 1 || !strings.Contains(notices[0], ": ignored") {
		t.Errorf("%d cached, notices %q", rep.Cached, notices)
	}
	sameFiles(t, "a build with a damaged cache", damaged, plainChanged)
	if rep, _ = build(acCachedConfig(tr.dir, t.TempDir(), cache, acDay(1))); rep.Cached != len(files) {
		t.Errorf("the cache was not rewritten after a damaged one: %d cached", rep.Cached)
	}
}

func TestCacheSkipsUnsettledFiles(t *testing.T) {
	t.Parallel()
	written := time.Now()
	tr := acNewTree(t, acFiles, acT0)
	cache := filepath.Join(t.TempDir(), "rsgen.cache")
	cfg := acCachedConfig(tr.dir, t.TempDir(), cache, acDay(1))
	// Files changed a moment before the scan may change again within the
	// same timestamp: they are not cached. The scan's clock starts as the
	// files are written (their change time), however slow the machine.
	cfg.now = func() time.Time { return written }
	mustBuild(t, cfg)
	rep := mustBuild(t, acCachedConfig(tr.dir, t.TempDir(), cache, acDay(1)))
	if rep.Cached != 0 {
		t.Errorf("%d files just written were cached", rep.Cached)
	}
}

func TestCacheWithChanges(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	cache := filepath.Join(t.TempDir(), "rsgen.cache")
	out := t.TempDir()
	mustBuild(t, acCachedConfig(tr.dir, out, cache, acDay(1)))
	plainOut := t.TempDir()
	mustBuild(t, acConfig(tr.dir, plainOut, acDay(1)))

	tr.write("b.txt", "BRAVO", acT0) // same size and mtime
	tr.write("new.txt", "new", acDay(1))
	tr.touch("a.txt", acDay(1))
	cfg := acCachedConfig(tr.dir, out, cache, acDay(2))
	cfg.Changes.Previous = out
	rep := mustBuild(t, cfg)
	plain := acConfig(tr.dir, plainOut, acDay(2))
	plain.Changes.Previous = plainOut
	mustBuild(t, plain)
	sameFiles(t, "changes found with the cache", testenv.ReadTree(t, out), testenv.ReadTree(t, plainOut))
	if rep.Changes.Updated != 1 || rep.Changes.Created != 1 || rep.Cached != 2 {
		t.Errorf("report %+v, %d cached", rep.Changes, rep.Cached)
	}
}

// A cache kept inside SOURCE (--cache site/.rsgen-cache with --hidden, or
// a name that is not hidden) is rsgen's own file, rewritten after each
// build has published: never content, or the Resource List would give
// the digests of the cache before it was rewritten.
func TestCacheInsideTheSource(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"rsgen.cache", ".rsgen/cache"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tr := acNewTree(t, acFiles, acT0)
			cache := filepath.Join(tr.dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(cache), 0o755); err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			for day := 1; day <= 2; day++ {
				cfg := acCachedConfig(tr.dir, out, cache, acDay(day))
				cfg.Filter.Hidden = true
				rep := mustBuild(t, cfg)
				if rep.Files != len(acFiles) {
					t.Errorf("build %d published %d files, want %d", day, rep.Files, len(acFiles))
				}
			}
			_, entries := testenv.ReadDoc(t, filepath.Join(out, docsDir, "resourcelist.xml"))
			for _, e := range entries {
				if strings.Contains(e.Loc, "cache") {
					t.Errorf("the cache is published as %s", e.Loc)
				}
			}
		})
	}
}

// TestCacheNotACache: a cache that names a file that is not one (the
// configuration file, a file of the source) is refused before anything
// is built, and the file is left as it was; one that does not exist yet,
// inside the source, is neither published nor hashed as content.
func TestCacheNotACache(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	conf := filepath.Join(t.TempDir(), "rsgen.toml")
	testenv.WriteFile(t, filepath.Dir(conf), "rsgen.toml", "base-url = \"https://example.org/\"\n")
	for _, path := range []string{conf, filepath.Join(tr.dir, "a.txt")} {
		before, _ := os.ReadFile(path)
		out := t.TempDir()
		_, err := Build(context.Background(), acCachedConfig(tr.dir, out, path, acDay(1)))
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "Cache" || !strings.Contains(err.Error(), "not an rsgen hash cache") {
			t.Errorf("--cache %s: %v, want a usage error naming the field", path, err)
		}
		if after, _ := os.ReadFile(path); string(after) != string(before) {
			t.Errorf("%s was changed", path)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("a refused build wrote %s", entries[0].Name())
		}
	}
	// A bucket's hash cache is a tree's: a file that is not one is
	// refused the same way.
	bucketCfg := acConfig(tr.dir, t.TempDir(), acDay(1))
	bucketCfg.Source, bucketCfg.Cache = "s3://bkt/p/", conf
	if err := bucketCfg.Validate(); err == nil || !strings.Contains(err.Error(), "not an rsgen hash cache") {
		t.Errorf("a bucket's --cache %s: %v, want a usage error naming the field", conf, err)
	}
	cache := filepath.Join(tr.dir, "rsgen.cache")
	for range 2 {
		out := t.TempDir()
		mustBuild(t, acCachedConfig(tr.dir, out, cache, acDay(1)))
		if b, _ := os.ReadFile(filepath.Join(out, docsDir, "resourcelist.xml")); strings.Contains(string(b), "rsgen.cache") {
			t.Error("the cache inside the source is published")
		}
	}
}
