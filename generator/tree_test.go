package generator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/internal/testenv"
)

// siteFiles are the files of testdata/site a default build publishes.
var siteFiles = []string{
	"articles/café & crème.html",
	"articles/first-article.html",
	"data/empty.txt",
	"data/holdings.csv",
	"data/records.jsonl",
	"docs/annual report/README",
	"images/logo.png",
	"images/photo #1.png",
	"index.html",
}

// buildAndRead builds cfg and reads the result back as a Destination does.
func buildAndRead(t *testing.T, cfg Config) (*Report, *published) {
	t.Helper()
	rep := mustBuild(t, cfg)
	return rep, readBack(t, cfg)
}

func readBack(t *testing.T, cfg Config) *published {
	t.Helper()
	out := cfg.Out
	if out == "" {
		out = cfg.Source
	}
	docs := cfg.DocsURL
	if docs.IsZero() {
		docs = cfg.BaseURL
	}
	limits := cfg.Limits
	if limits.MaxEntries == 0 {
		limits.MaxEntries = defaultLimits.MaxEntries
	}
	if limits.MaxBytes == 0 {
		limits.MaxBytes = defaultLimits.MaxBytes
	}
	return discover(t, fileFetcher(out, docs), docs.String()+stage.WellKnownFile, limits)
}

// relPaths returns the paths of the entries, decoded from their URLs.
func relPaths(t *testing.T, base BaseURL, entries []*rsxml.Entry) []string {
	t.Helper()
	var paths []string
	for _, e := range entries {
		rel, ok := base.base.RelPath(e.Loc)
		if !ok {
			t.Fatalf("%s is not under %s", e.Loc, base)
		}
		paths = append(paths, rel)
	}
	return paths
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// problemPaths returns the paths of the report's problems.
func problemPaths(rep *Report) []string {
	var p []string
	for _, pr := range rep.Problems {
		p = append(p, pr.Path)
	}
	return p
}

// noticeLog collects the notices of a build.
type noticeLog struct {
	mu   sync.Mutex
	msgs []string
}

func (n *noticeLog) add(msg string) { n.mu.Lock(); n.msgs = append(n.msgs, msg); n.mu.Unlock() }

func (n *noticeLog) has(sub string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.ContainsFunc(n.msgs, func(m string) bool { return strings.Contains(m, sub) })
}

func TestAwkwardNames(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	long := strings.Repeat("a", 251) + ".txt"      // 255 bytes, the longest name Linux allows
	longUTF8 := strings.Repeat("é", 127) + "x"     // 255 bytes, 763 characters once encoded
	deep := strings.Repeat("d/", 100) + "deep.txt" // 100 levels
	names := append(slices.Clone(awkwardNames), long, longUTF8, deep, "empty-dir-sibling/zero")
	for i, name := range names {
		testenv.WriteFile(t, src, name, strings.Repeat("x", i%3))
	}
	os.MkdirAll(filepath.Join(src, "empty-dir"), 0o755)
	fixMtimes(t, src)
	cfg := testConfig(t, src, t.TempDir())
	rep, pub := buildAndRead(t, cfg)
	if len(rep.Problems) != 0 {
		t.Errorf("problems: %v", rep.Problems)
	}
	want := expectedFiles(t, src, false)
	if len(want) != len(names) {
		t.Fatalf("the tree holds %d files, %d written", len(want), len(names))
	}
	checkPublishesExactly(t, pub.entries, cfg.BaseURL, src, want, hashing.DefaultSet)

	locs := map[string]bool{}
	for _, e := range pub.entries {
		locs[e.Loc] = true
	}
	for _, loc := range []string{
		"https://example.org/with%20space.txt",
		"https://example.org/punct%20%23%3F%25%26%2B%3B%3D%2C%27%21%24%28%29%2A%40%5B%5D%3A.txt",
		"https://example.org/%C3%A9t%C3%A9.txt",   // NFC
		"https://example.org/e%CC%81te%CC%81.txt", // NFD: another file, another URL
		"https://example.org/%E6%97%A5%E6%9C%AC%E8%AA%9E/%E3%83%95%E3%82%A1%E3%82%A4%E3%83%AB.txt",
		"https://example.org/tab%09here.txt",
		"https://example.org/new%0Aline.txt",
		"https://example.org/percent%2541.txt",
		"https://example.org/plus%2Band~tilde-_.txt",
		"https://example.org/" + long,
		"https://example.org/" + strings.Repeat("%C3%A9", 127) + "x",
		"https://example.org/" + deep,
	} {
		if !locs[loc] {
			t.Errorf("no entry with <loc>%s</loc>", loc)
		}
	}
	for _, e := range pub.entries {
		if e.MD.Length == "0" && e.MD.Hash != "sha-256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
			t.Errorf("%s: an empty file has hash %s", e.Loc, e.MD.Hash)
		}
	}
}

// TestLongURL publishes a file whose URL is exactly 2,048 characters and
// skips, naming it, one whose URL is one more.
func TestLongURL(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	dir := strings.Repeat(strings.Repeat("L", 250)+"/", 8) // 2,008 bytes
	base := "https://example.org/"                         // 20
	fits := dir + strings.Repeat("f", uri.MaxLocLength-len(base)-len(dir))
	over := dir + strings.Repeat("o", uri.MaxLocLength-len(base)-len(dir)+1)
	testenv.WriteFile(t, src, fits, "fits")
	testenv.WriteFile(t, src, over, "over")
	testenv.WriteFile(t, src, "short.txt", "short")
	cfg := testConfig(t, src, t.TempDir())
	rep, pub := buildAndRead(t, cfg)
	if got := relPaths(t, cfg.BaseURL, pub.entries); !slices.Equal(got, []string{fits, "short.txt"}) {
		t.Errorf("published %q", got)
	}
	if len(pub.entries) > 0 && len(pub.entries[0].Loc) != uri.MaxLocLength {
		t.Errorf("the longest URL is %d characters, want %d", len(pub.entries[0].Loc), uri.MaxLocLength)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Path != over || !errors.Is(rep.Problems[0].Err, uri.ErrLocTooLong) {
		t.Errorf("problems %v, want %s: %v", rep.Problems, over, uri.ErrLocTooLong)
	}
}

func TestInvalidUTF8Names(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	testenv.WriteFile(t, src, "good.txt", "good")
	testenv.WriteFile(t, src, "bad\xff.txt", "bad")
	testenv.WriteFile(t, src, "bad-dir\xfe/inside.txt", "inside")
	testenv.WriteFile(t, src, "sub/also\xc3(.txt", "bad too")
	cfg := testConfig(t, src, t.TempDir())
	rep, pub := buildAndRead(t, cfg)
	if got := relPaths(t, cfg.BaseURL, pub.entries); !slices.Equal(got, []string{"good.txt"}) {
		t.Errorf("published %q, want only good.txt", got)
	}
	want := []string{`"bad-dir\xfe"`, `"bad\xff.txt"`, `"sub/also\xc3(.txt"`}
	if got := problemPaths(rep); !slices.Equal(sorted(got), want) {
		t.Errorf("problems %q, want %q", got, want)
	}
	for _, p := range rep.Problems {
		if !strings.Contains(p.Err.Error(), "UTF-8") || !strings.Contains(p.Err.Error(), "rename") {
			t.Errorf("%s: %q does not say what is wrong and what to do", p.Path, p.Err)
		}
	}
}

// TestInvalidUTF8NamesNotPublishedAnyway: a name that would not be
// published (hidden, excluded, not a regular file) is no problem, whatever
// its bytes: nothing was lost.
func TestInvalidUTF8NamesNotPublishedAnyway(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	testenv.WriteFile(t, src, "good.txt", "good")
	testenv.WriteFile(t, src, ".hidden\xff", "hidden")
	testenv.WriteFile(t, src, ".hidden-dir/bad\xff", "hidden")
	testenv.WriteFile(t, src, "skip\xff.tmp", "excluded")
	testenv.WriteFile(t, src, "excluded-dir\xff/x.txt", "excluded")
	if err := syscall.Mkfifo(filepath.Join(src, "fifo\xff"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("good.txt", filepath.Join(src, "link\xff")); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, src, t.TempDir())
	cfg.Filter.Exclude = []string{"**/*.tmp", "excluded-dir*"}
	rep, pub := buildAndRead(t, cfg)
	if got := relPaths(t, cfg.BaseURL, pub.entries); !slices.Equal(got, []string{"good.txt"}) {
		t.Errorf("published %q, want only good.txt", got)
	}
	if len(rep.Problems) != 0 {
		t.Errorf("problems %v, want none: none of these would be published", rep.Problems)
	}
}

func TestSymlinks(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	testenv.WriteFile(t, outside, "secret.txt", "outside the source")
	setup := func(t *testing.T) string {
		src := t.TempDir()
		testenv.WriteFile(t, src, "target.txt", "target")
		testenv.WriteFile(t, src, "dir/inner.txt", "inner")
		links := map[string]string{
			"link-file":     "target.txt",
			"link-dir":      "dir",
			"link-abs":      filepath.Join(src, "target.txt"),
			"link-out":      filepath.Join(outside, "secret.txt"),
			"link-out-dir":  outside,
			"link-out-rel":  "../" + filepath.Base(outside) + "/secret.txt",
			"dangling":      "nowhere",
			"loop":          ".",
			"dir/up":        "..",
			"dir/self-loop": "self-loop",
		}
		for name, target := range links {
			if err := os.Symlink(target, filepath.Join(src, filepath.FromSlash(name))); err != nil {
				t.Fatal(err)
			}
		}
		return src
	}
	for _, tc := range []struct {
		name    string
		follow  bool
		want    []string
		notices []string
	}{
		{name: "not followed", want: []string{"dir/inner.txt", "target.txt"}},
		{name: "followed inside only", follow: true,
			want:    []string{"dir/inner.txt", "link-abs", "link-dir/inner.txt", "link-file", "target.txt"},
			notices: []string{"link-out:", "link-out-dir:", "link-out-rel:", "dangling:", "loop: symbolic link loop", "dir/up: symbolic link loop", "dir/self-loop:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := setup(t)
			var notes noticeLog
			cfg := testConfig(t, src, t.TempDir())
			cfg.FollowSymlinks = tc.follow
			cfg.Notice = notes.add
			done := make(chan struct{})
			var rep *Report
			var pub *published
			go func() {
				defer close(done)
				rep, pub = buildAndRead(t, cfg)
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the build does not end: a symbolic link loop is followed forever")
			}
			if t.Failed() {
				return
			}
			got := relPaths(t, cfg.BaseURL, pub.entries)
			if !slices.Equal(got, tc.want) {
				t.Errorf("published %q, want %q", got, tc.want)
			}
			for _, e := range pub.entries {
				if strings.Contains(e.Loc, "secret") {
					t.Errorf("%s leaves the source", e.Loc)
				}
			}
			for i, e := range pub.entries {
				rel := got[i]
				want := map[string]string{"link-file": "target", "link-abs": "target", "link-dir/inner.txt": "inner"}[rel]
				if want != "" {
					checkEntry(t, e, []byte(want), hashing.DefaultSet, time.Time{})
				}
			}
			if len(rep.Problems) != 0 {
				t.Errorf("problems %v", rep.Problems)
			}
			for _, n := range tc.notices {
				if !notes.has(n) {
					t.Errorf("no notice about %q in %q", n, notes.msgs)
				}
			}
		})
	}
}

// TestSymlinkToOwnOutput: a followed link into rsgen's own output (here,
// the output is the source) does not publish the documents as content.
func TestSymlinkToOwnOutput(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	testenv.WriteFile(t, src, "a.txt", "a")
	for name, target := range map[string]string{"docs-link": docsDir, "wk-link": wellKnownDir, "sd-link": stage.WellKnownFile} {
		if err := os.Symlink(target, filepath.Join(src, name)); err != nil {
			t.Fatal(err)
		}
	}
	cfg := testConfig(t, src, "")
	cfg.FollowSymlinks = true
	cfg.Filter.Hidden = true
	mustBuild(t, cfg) // creates the output the links lead to
	_, pub := buildAndRead(t, cfg)
	if got := relPaths(t, cfg.BaseURL, pub.entries); !slices.Equal(got, []string{"a.txt"}) {
		t.Errorf("published %q, want only a.txt", got)
	}

	// A link to the folder that holds the output, inside the source.
	src = t.TempDir()
	testenv.WriteFile(t, src, "a.txt", "a")
	testenv.WriteFile(t, src, "public/b.txt", "b")
	if err := os.Symlink("public", filepath.Join(src, "pub")); err != nil {
		t.Fatal(err)
	}
	cfg = testConfig(t, src, filepath.Join(src, "public"))
	cfg.FollowSymlinks = true
	cfg.Filter.Hidden = true
	mustBuild(t, cfg)
	_, pub = buildAndRead(t, cfg)
	if got := relPaths(t, cfg.BaseURL, pub.entries); !slices.Equal(got, []string{"a.txt", "pub/b.txt", "public/b.txt"}) {
		t.Errorf("published %q, want a.txt, pub/b.txt and public/b.txt", got)
	}
}

// TestSpecialFiles: FIFOs, sockets and devices are skipped, without
// blocking on the FIFO.
func TestSpecialFiles(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	testenv.WriteFile(t, src, "a.txt", "a")
	if err := syscall.Mkfifo(filepath.Join(src, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(src, "fifo.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(src, "sock")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		// /dev/null's numbers: a character device.
		if err := syscall.Mknod(filepath.Join(src, "null"), syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
			t.Logf("no device node: %v", err)
		}
	}
	if err := os.Symlink("fifo", filepath.Join(src, "link-to-fifo")); err != nil {
		t.Fatal(err)
	}
	for _, follow := range []bool{false, true} {
		cfg := testConfig(t, src, t.TempDir())
		cfg.FollowSymlinks = follow
		done := make(chan error, 1)
		go func() {
			_, err := Build(context.Background(), cfg)
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("follow=%v: %v", follow, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("follow=%v: the build blocks (on the FIFO?)", follow)
		}
		pub := readBack(t, cfg)
		if got := relPaths(t, cfg.BaseURL, pub.entries); !slices.Equal(got, []string{"a.txt"}) {
			t.Errorf("follow=%v: published %q, want only a.txt", follow, got)
		}
	}
}

func TestHidden(t *testing.T) {
	t.Parallel()
	src := copySite(t)
	testenv.WriteFile(t, src, ".git/config", "[core]")
	testenv.WriteFile(t, src, "data/.env", "SECRET=1")
	testenv.WriteFile(t, src, ".well-known/security.txt", "Contact: x")
	fixMtimes(t, src)
	for _, hidden := range []bool{false, true} {
		cfg := testConfig(t, src, "") // the output is the source: its own files are hidden too
		cfg.Filter.Hidden = hidden
		_, pub := buildAndRead(t, cfg)
		want := slices.Clone(siteFiles)
		if hidden {
			want = append(want, ".git/config", ".hidden-note", ".well-known/security.txt", "data/.env")
		}
		slices.Sort(want)
		checkPublishesExactly(t, pub.entries, cfg.BaseURL, src, want, hashing.DefaultSet)
		testenv.NoStage(t, src)
	}
}

func TestFilter(t *testing.T) {
	t.Parallel()
	src := copySite(t)
	for _, tc := range []struct {
		name             string
		include, exclude []string
		want             []string
	}{
		{name: "include html anywhere", include: []string{"**/*.html"},
			want: []string{"articles/café & crème.html", "articles/first-article.html", "index.html"}},
		{name: "include at the root only", include: []string{"*.html"}, want: []string{"index.html"}},
		{name: "exclude a directory's contents", exclude: []string{"data/**"}, want: without(siteFiles, "data/")},
		{name: "exclude a directory by name", exclude: []string{"data"}, want: without(siteFiles, "data/")},
		{name: "exclude a directory with a slash", exclude: []string{"data/"}, want: without(siteFiles, "data/")},
		{name: "exclude a directory with a space", exclude: []string{"docs/annual report"}, want: without(siteFiles, "docs/")},
		{name: "exclude by extension", exclude: []string{"**/*.png", "**/*.csv"},
			want: without(siteFiles, "images/", "data/holdings.csv")},
		{name: "include and exclude", include: []string{"images/**", "data/*"}, exclude: []string{"**/photo*", "**/*.jsonl"},
			want: []string{"data/empty.txt", "data/holdings.csv", "images/logo.png"}},
		{name: "names with pattern characters", include: []string{"images/photo #1.png", "articles/café & crème.html"},
			want: []string{"articles/café & crème.html", "images/photo #1.png"}},
		{name: "exclude everything", exclude: []string{"**"}, want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(t, src, t.TempDir())
			cfg.Filter.Include, cfg.Filter.Exclude = tc.include, tc.exclude
			cfg.AllowEmpty = tc.want == nil // see TestEmptySource
			_, pub := buildAndRead(t, cfg)
			checkPublishesExactly(t, pub.entries, cfg.BaseURL, src, tc.want, hashing.DefaultSet)
		})
	}
	cfg := testConfig(t, src, t.TempDir())
	cfg.Filter.Exclude = []string{"[unclosed"}
	var fe *FieldError
	if _, err := Build(context.Background(), cfg); !errors.As(err, &fe) || fe.Field != "Filter.Exclude" || fe.Value != "[unclosed" || !errors.Is(err, errInvalid) {
		t.Errorf("a malformed pattern: error %v, want Filter.Exclude invalid", err)
	}
}

// without returns files minus those equal to or under each of drop.
func without(files []string, drop ...string) []string {
	var out []string
	for _, f := range files {
		if !slices.ContainsFunc(drop, func(d string) bool { return f == d || strings.HasSuffix(d, "/") && strings.HasPrefix(f, d) }) {
			out = append(out, f)
		}
	}
	return out
}

// TestEmptySource: a source with nothing to publish is refused, unless
// allowed on purpose, and then publishes an empty Resource List.
func TestEmptySource(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	cfg := testConfig(t, src, t.TempDir())
	if _, err := Build(t.Context(), cfg); kindOf(err) != KindEmptySource || !strings.Contains(err.Error(), src+" holds no file to publish; nothing was published") {
		t.Fatalf("error %v, want KindEmptySource", err)
	}
	if entries, err := os.ReadDir(cfg.Out); err != nil || len(entries) != 0 {
		t.Fatalf("after a refused build the output holds %v (%v)", entries, err)
	}
	cfg.AllowEmpty = true
	rep, pub := buildAndRead(t, cfg)
	if rep.Files != 0 || len(pub.entries) != 0 || pub.list.Index {
		t.Errorf("an empty source: %d files, %d entries, index %v", rep.Files, len(pub.entries), pub.list.Index)
	}
}

// TestOutputIsSource: with the output in the source, rsgen's documents
// and staging directories are never content, on the first build or later.
func TestOutputIsSource(t *testing.T) {
	t.Parallel()
	src := copySite(t)
	for _, hidden := range []bool{false, true} {
		cfg := testConfig(t, src, "")
		cfg.Filter.Hidden = hidden
		var lists []string
		for range 2 {
			_, pub := buildAndRead(t, cfg)
			want := slices.Clone(siteFiles)
			if hidden {
				want = append(want, ".hidden-note")
			}
			slices.Sort(want)
			checkPublishesExactly(t, pub.entries, cfg.BaseURL, src, want, hashing.DefaultSet)
			data, err := os.ReadFile(filepath.Join(src, docsDir, "resourcelist.xml"))
			if err != nil {
				t.Fatal(err)
			}
			lists = append(lists, string(data))
			testenv.NoStage(t, src)
		}
		if lists[0] != lists[1] {
			t.Errorf("hidden=%v: a second build into the source publishes another list", hidden)
		}
	}
}

// TestOutputInsideSource: with the output in a folder of the source, its
// documents are not content; other files there are.
func TestOutputInsideSource(t *testing.T) {
	t.Parallel()
	src := copySite(t)
	testenv.WriteFile(t, src, "public/extra.html", "<p>extra</p>")
	out := filepath.Join(src, "public")
	cfg := testConfig(t, src, out)
	cfg.Filter.Hidden = true
	want := sorted(append(slices.Clone(siteFiles), ".hidden-note", "public/extra.html"))
	for range 2 {
		_, pub := buildAndRead(t, cfg)
		checkPublishesExactly(t, pub.entries, cfg.BaseURL, src, want, hashing.DefaultSet)
		testenv.NoStage(t, out)
	}
	// The same through a symbolic link to the source, and with an output
	// that does not exist yet.
	src = copySite(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(src, link); err != nil {
		t.Fatal(err)
	}
	cfg = testConfig(t, link, filepath.Join(link, "public"))
	cfg.Filter.Hidden = true
	want = sorted(append(slices.Clone(siteFiles), ".hidden-note"))
	for range 2 {
		_, pub := buildAndRead(t, cfg)
		checkPublishesExactly(t, pub.entries, cfg.BaseURL, src, want, hashing.DefaultSet)
	}
}

func TestBaseURLWithPath(t *testing.T) {
	t.Parallel()
	src := copySite(t)
	cfg := testConfig(t, src, t.TempDir())
	cfg.BaseURL = mustBaseURL(t, "https://Example.ORG/my%20site")
	if got := cfg.BaseURL.String(); got != "https://example.org/my%20site/" {
		t.Fatalf("base URL %s", got)
	}
	_, pub := buildAndRead(t, cfg)
	for _, e := range pub.entries {
		if !strings.HasPrefix(e.Loc, "https://example.org/my%20site/") {
			t.Errorf("%s is not under the base URL", e.Loc)
		}
	}
	checkPublishesExactly(t, pub.entries, cfg.BaseURL, src, siteFiles, hashing.DefaultSet)
	if up := pub.capList.Link("up"); up != "https://example.org/my%20site/.well-known/resourcesync" {
		t.Errorf("the Capability List links up to %s", up)
	}

	// Documents served elsewhere (--docs-url).
	cfg.DocsURL = mustBaseURL(t, "https://docs.example.org/rs/")
	_, pub = buildAndRead(t, cfg)
	checkPublishesExactly(t, pub.entries, cfg.BaseURL, src, siteFiles, hashing.DefaultSet)
	if up := pub.list.Link("up"); up != "https://docs.example.org/rs/resourcesync/capabilitylist.xml" {
		t.Errorf("the Resource List links up to %s", up)
	}
}

// TestOutputNotYetCreatedInsideLinkedSource: an output directory that does
// not exist yet is recognised as inside the source even when the source is
// reached through a symbolic link, so that what the build stages there
// during the scan is never content.
func TestOutputNotYetCreatedInsideLinkedSource(t *testing.T) {
	t.Parallel()
	src := copySite(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(src, link); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, link, filepath.Join(link, "public", "rs"))
	b, err := newBuild(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	if b.outRel != "public/rs" {
		t.Errorf("the output is at %q under the source, want public/rs", b.outRel)
	}
	if !b.owned("public/rs/" + stagePrefix + "1-x/" + docsDir + "/resourcelist.xml") {
		t.Error("a file of the stage is not rsgen's own output")
	}
}

// TestServedDocumentsNoticedOnce: a source holding resourcesync/,
// published elsewhere at the URLs of rsgen's documents, is told once that
// it is left out, also when a walk counts ahead of the scan (which asks
// owned too). .well-known is hidden: not walked, not noticed.
func TestServedDocumentsNoticedOnce(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	testenv.WriteFile(t, src, "a.txt", "a")
	testenv.WriteFile(t, src, docsDir+"/old.xml", "<x/>")
	testenv.WriteFile(t, src, stage.WellKnownFile, "<x/>")
	for _, ahead := range []bool{false, true} {
		cfg := testConfig(t, src, t.TempDir())
		cfg.Stats = &report.Stats{CountAhead: ahead}
		var mu sync.Mutex
		var notices []string
		cfg.Notice = func(m string) { mu.Lock(); notices = append(notices, m); mu.Unlock() }
		mustBuild(t, cfg)
		want := []string{docsDir + ": not published: its URL is that of rsgen's documents, which the output directory holds"}
		if !slices.Equal(notices, want) {
			t.Errorf("counting ahead %v: notices %q, want %q", ahead, notices, want)
		}
	}
}
