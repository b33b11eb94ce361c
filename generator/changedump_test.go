package generator

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/changelists"
	"github.com/rsgen/rsgen/generator/internal/dumps"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/internal/text/units"
)

// acDumpConfig is acConfig for a build with --previous out and --change-dump.
func acDumpConfig(src, out string, at time.Time) Config {
	cfg := acConfig(src, out, at)
	cfg.Changes.Previous = out
	cfg.Changes.Dump = true
	return cfg
}

// acCheckChangeDump reads back the Change Dump in out and every package it
// lists, and checks them against the Change Lists and the source: each
// package's manifest.xml is the copy beside it, covers what its entry
// says, lists exactly the changes of the Change Lists in that interval,
// and every bitstream is the file's bytes. It returns the packages' names
// and intervals ("name from until").
func acCheckChangeDump(t *testing.T, tr *acTree, out string) []string {
	t.Helper()
	docs := filepath.Join(out, docsDir)
	doc, pkgs := testenv.ReadDoc(t, filepath.Join(docs, dumps.ChangeDumpName))
	if doc.Index || doc.MD.Capability != rsxml.CapChangeDump || doc.Link("up") == "" {
		t.Fatalf("the Change Dump is %+v", doc)
	}
	// The changes of the Change Lists since the dump starts, in order: the
	// manifests must list the same, in the same order.
	cl, lists := testenv.ReadDoc(t, filepath.Join(docs, changelists.IndexName))
	var changes, listed []*rsxml.Entry
	for _, l := range lists {
		switch {
		case !cl.Index && l.MD.Datetime > doc.MD.From:
			changes = append(changes, l) // the open changelist.xml
		case cl.Index && l.MD.From >= doc.MD.From:
			_, entries := testenv.ReadDoc(t, filepath.Join(docs, strings.TrimPrefix(l.Loc, acBase+docsDir+"/")))
			changes = append(changes, entries...)
		}
	}
	var lines []string
	for i, e := range pkgs {
		name := strings.TrimPrefix(e.Loc, acBase+docsDir+"/")
		if i == 0 && e.MD.From != doc.MD.From || i == len(pkgs)-1 && e.MD.Until != doc.MD.Until || i > 0 && e.MD.From != pkgs[i-1].MD.Until {
			t.Errorf("%s: from %s until %s does not follow on (the dump is from %s until %s)", name, e.MD.From, e.MD.Until, doc.MD.From, doc.MD.Until)
		}
		data, err := os.ReadFile(filepath.Join(docs, name))
		if err != nil {
			t.Fatal(err)
		}
		if e.MD.Type != "application/zip" || e.MD.Length != itoa(int64(len(data))) || e.MD.Hash != acSHA(string(data)) {
			t.Errorf("%s: entry %+v, package of %d bytes, %s", name, e.MD, len(data), acSHA(string(data)))
		}
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files := map[string][]byte{}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if _, err := b.ReadFrom(rc); err != nil {
				t.Fatalf("%s: %s: %v", name, f.Name, err)
			}
			rc.Close()
			files[f.Name] = b.Bytes()
		}
		manifest := files["manifest.xml"]
		copied, err := os.ReadFile(filepath.Join(docs, strings.TrimPrefix(e.Link("contents"), acBase+docsDir+"/")))
		if err != nil || !bytes.Equal(manifest, copied) {
			t.Errorf("%s: the manifest copy differs from manifest.xml (%v)", name, err)
		}
		mdoc, mentries, err := rsxml.ReadAll(bytes.NewReader(manifest), rsxml.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: manifest.xml: %v", name, err)
		}
		if mdoc.MD.Capability != rsxml.CapChangeDumpManifest || mdoc.MD.From != e.MD.From || mdoc.MD.Until != e.MD.Until || mdoc.Link("up") == "" {
			t.Errorf("%s: manifest root %+v", name, mdoc.MD)
		}
		bitstreams := 0
		for _, m := range mentries {
			if m.MD.Datetime < e.MD.From || m.MD.Datetime > e.MD.Until {
				t.Errorf("%s: %s at %s, outside its package's interval", name, m.Loc, m.MD.Datetime)
			}
			listed = append(listed, m)
			if m.MD.Change == rsxml.ChangeDeleted {
				if m.MD.Path != "" {
					t.Errorf("%s: deleted %s has a path", name, m.Loc)
				}
				continue
			}
			bitstreams++
			b, ok := files[strings.TrimPrefix(m.MD.Path, "/")]
			if !ok || acSHA(string(b)) != m.MD.Hash {
				t.Errorf("%s: %s at %q is not in the package with its digest", name, m.Loc, m.MD.Path)
			}
		}
		if len(files) != bitstreams+1 {
			t.Errorf("%s holds %d files for %d bitstreams and its manifest", name, len(files), bitstreams)
		}
		if unzip, err := exec.LookPath("unzip"); err == nil {
			if out, err := exec.Command(unzip, "-t", "-qq", filepath.Join(docs, name)).CombinedOutput(); err != nil {
				t.Errorf("unzip -t %s: %v\n%s", name, err, out)
			}
		}
		lines = append(lines, name+" "+e.MD.From+" "+e.MD.Until)
	}
	if len(listed) != len(changes) {
		t.Errorf("%d changes in the manifests, %d in the Change Lists since %s", len(listed), len(changes), doc.MD.From)
	}
	for k := range min(len(listed), len(changes)) {
		m, w := listed[k], changes[k]
		if m.Loc != w.Loc || m.MD.Change != w.MD.Change || m.MD.Datetime != w.MD.Datetime || m.MD.Hash != w.MD.Hash || m.MD.Length != w.MD.Length || m.MD.Type != w.MD.Type || m.Lastmod != w.Lastmod {
			t.Errorf("change %d: manifest %s %s, Change List %s %s", k, m.MD.Change, m.Loc, w.MD.Change, w.Loc)
		}
	}
	if !slices.Contains(acCapabilities(t, out), rsxml.CapChangeDump) {
		t.Error("the Capability List does not advertise the Change Dump")
	}
	return lines
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}

func TestChangeDumpChain(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))

	tr.write("new.txt", "new", acTime("2024-06-01T10:00:00Z"))
	tr.write("a.txt", "alpha, again", acTime("2024-06-01T11:00:00Z"))
	tr.remove("b.txt")
	rep := mustBuild(t, acDumpConfig(tr.dir, out, acDay(2)))
	if rep.Changes.Packages != 1 {
		t.Errorf("report %+v", rep.Changes)
	}
	first := "changedump-20240602T000000Z-00001.zip 2024-06-01T00:00:00Z 2024-06-02T00:00:00Z"
	if got := acCheckChangeDump(t, tr, out); !slices.Equal(got, []string{first}) {
		t.Errorf("packages %q", got)
	}
	acValidate(t, out)
	pkg := filepath.Join(out, docsDir, "changedump-20240602T000000Z-00001.zip")
	ino := inode(t, pkg)

	// A build where nothing changed carries the package forward.
	mustBuild(t, acDumpConfig(tr.dir, out, acDay(3)))
	if got := acCheckChangeDump(t, tr, out); !slices.Equal(got, []string{first}) {
		t.Errorf("packages %q", got)
	}
	tr.write("dir/c.txt", "charlie!", acTime("2024-06-03T12:00:00Z"))
	mustBuild(t, acDumpConfig(tr.dir, out, acDay(4)))
	second := "changedump-20240604T000000Z-00001.zip 2024-06-02T00:00:00Z 2024-06-04T00:00:00Z"
	if got := acCheckChangeDump(t, tr, out); !slices.Equal(got, []string{first, second}) {
		t.Errorf("packages %q", got)
	}
	if inode(t, pkg) != ino {
		t.Error("a carried package was copied rather than linked")
	}
	// --changes-keep drops the first package with the first list.
	tr.remove("d.html")
	cfg := acDumpConfig(tr.dir, out, acDay(9))
	cfg.Changes.Keep = units.Duration(5 * 24 * time.Hour)
	mustBuild(t, cfg)
	third := "changedump-20240609T000000Z-00001.zip 2024-06-04T00:00:00Z 2024-06-09T00:00:00Z"
	if got := acCheckChangeDump(t, tr, out); !slices.Equal(got, []string{second, third}) {
		t.Errorf("packages %q", got)
	}
	if _, err := os.Stat(pkg); err == nil {
		t.Error("a package older than --changes-keep is still published")
	}
	acValidate(t, out)
}

func TestChangeDumpSplit(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	rnd := rand.New(rand.NewPCG(1, 2))
	for i, name := range []string{"p1", "p2", "p3", "p4", "p5"} {
		b := make([]byte, 2000) // random: Deflate cannot shrink it
		for k := range b {
			b[k] = byte(rnd.Uint32())
		}
		tr.write(name+".bin", string(b), acDay(1).Add(time.Duration(i+1)*time.Hour))
	}
	tr.remove("a.txt")
	cfg := acDumpConfig(tr.dir, out, acDay(2))
	cfg.Dump.MaxBytes = 5000
	mustBuild(t, cfg)
	got := acCheckChangeDump(t, tr, out)
	if len(got) < 3 {
		t.Errorf("%d packages for 10 KB of changes at 5 KB a package: %q", len(got), got)
	}
	acValidate(t, out)

	// More packages than a document may list (--max-entries): the Change
	// Dump, which is never an index, cannot hold them; the build fails
	// rather than publish a document over the limit.
	before := testenv.ReadTree(t, out)
	for i, name := range []string{"q1", "q2", "q3", "q4", "q5", "q6"} {
		b := make([]byte, 2000)
		for k := range b {
			b[k] = byte(rnd.Uint32())
		}
		tr.write(name+".bin", string(b), acDay(2).Add(time.Duration(i+1)*time.Hour))
	}
	cfg = acDumpConfig(tr.dir, out, acDay(3))
	cfg.Dump.MaxBytes = 2500
	cfg.Limits.MaxEntries = 5
	var le *Error
	if _, err := Build(context.Background(), cfg); !errors.As(err, &le) || le.Kind != KindLimit || !slices.Equal(le.Raise, []string{"Dump.MaxBytes"}) {
		t.Errorf("error %v, want one that says the Change Dump cannot list its packages", err)
	}
	sameFiles(t, "after a failed build", testenv.ReadTree(t, out), before)
}

func TestChangeDumpFromURL(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	live := t.TempDir()
	var tamper bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tamper && strings.HasSuffix(r.URL.Path, ".zip") {
			b, _ := os.ReadFile(filepath.Join(live, filepath.FromSlash(r.URL.Path)))
			b[len(b)/2] ^= 1
			w.Write(b)
			return
		}
		http.FileServer(http.Dir(live)).ServeHTTP(w, r)
	}))
	defer srv.Close()
	base := srv.URL + "/"
	mustBuild(t, acServedConfig(t, tr.dir, live, base, acDay(1)))
	tr.write("new.txt", "new", acTime("2024-06-01T10:00:00Z"))
	cfg := acServedConfig(t, tr.dir, live, base, acDay(2))
	cfg.Changes.Previous, cfg.Changes.Dump = live, true
	mustBuild(t, cfg)

	tr.write("new2.txt", "newer", acTime("2024-06-02T10:00:00Z"))
	fresh := t.TempDir()
	cfg = acServedConfig(t, tr.dir, fresh, base, acDay(3))
	cfg.Changes.Previous, cfg.Changes.Dump = srv.URL, true
	mustBuild(t, cfg)
	name := "changedump-20240602T000000Z-00001.zip"
	a, _ := os.ReadFile(filepath.Join(live, docsDir, name))
	b, _ := os.ReadFile(filepath.Join(fresh, docsDir, name))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("the package copied over HTTP differs from the one published (%d and %d bytes)", len(a), len(b))
	}

	// A package that is not what its entry says fails the build.
	tamper = true
	before := testenv.ReadTree(t, fresh)
	cfg = acServedConfig(t, tr.dir, fresh, base, acDay(3))
	cfg.Changes.Previous, cfg.Changes.Dump = srv.URL, true
	_, err := Build(context.Background(), cfg)
	if !errors.Is(err, errPrevious) || !strings.Contains(err.Error(), "sha-256 digest") {
		t.Errorf("a tampered package: %v", err)
	}
	sameFiles(t, "the output after a failure", testenv.ReadTree(t, fresh), before)
}

func TestChangeDumpTurnedOnLater(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	tr.write("new.txt", "new", acTime("2024-06-01T10:00:00Z"))
	cfg := acConfig(tr.dir, out, acDay(2))
	cfg.Changes.Previous = out
	mustBuild(t, cfg) // Change Lists, no Change Dump
	tr.write("new2.txt", "newer", acTime("2024-06-02T10:00:00Z"))
	mustBuild(t, acDumpConfig(tr.dir, out, acDay(3)))
	got := acCheckChangeDump(t, tr, out)
	if !slices.Equal(got, []string{"changedump-20240603T000000Z-00001.zip 2024-06-02T00:00:00Z 2024-06-03T00:00:00Z"}) {
		t.Errorf("packages %q", got)
	}
	// A build without --change-dump publishes none: the next Change Dump
	// starts afresh.
	tr.write("new3.txt", "newest", acTime("2024-06-03T10:00:00Z"))
	cfg = acConfig(tr.dir, out, acDay(4))
	cfg.Changes.Previous = out
	cfg.Changes.Drop = []string{"changedump"}
	mustBuild(t, cfg)
	tr.write("new4.txt", "later", acTime("2024-06-04T10:00:00Z"))
	cfg = acDumpConfig(tr.dir, out, acDay(5))
	var notices []string
	cfg.Notice = func(m string) { notices = append(notices, m) }
	mustBuild(t, cfg)
	got = acCheckChangeDump(t, tr, out)
	if !slices.Equal(got, []string{"changedump-20240605T000000Z-00001.zip 2024-06-04T00:00:00Z 2024-06-05T00:00:00Z"}) {
		t.Errorf("packages %q", got)
	}
	if len(notices) != 0 {
		t.Errorf("notices %q", notices)
	}
	acValidate(t, out)
}

func TestChangeDumpBehindTheChangeLists(t *testing.T) {
	t.Parallel()
	// A previous Change Dump that ends before its Change Lists (edited by
	// hand): its packages cannot be followed on from, and are dropped.
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	tr.write("new.txt", "new", acTime("2024-06-01T10:00:00Z"))
	mustBuild(t, acDumpConfig(tr.dir, out, acDay(2)))
	tr.write("new2.txt", "newer", acTime("2024-06-02T10:00:00Z"))
	cfg := acConfig(tr.dir, out, acDay(3))
	cfg.Changes.Previous = out
	cfg.Changes.Drop = []string{"changedump"}
	mustBuild(t, cfg)
	// Put the dump of build 2 back beside the lists of build 3.
	tr2 := acNewTree(t, acFiles, acT0)
	old := t.TempDir()
	mustBuild(t, acConfig(tr2.dir, old, acDay(1)))
	tr2.write("new.txt", "new", acTime("2024-06-01T10:00:00Z"))
	mustBuild(t, acDumpConfig(tr2.dir, old, acDay(2)))
	for _, name := range []string{dumps.ChangeDumpName, "changedump-20240602T000000Z-00001.zip", "changedump-20240602T000000Z-00001.manifest.xml"} {
		b, err := os.ReadFile(filepath.Join(old, docsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, docsDir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The manifest of build 3 does not list them: without it, the folder
	// is judged by the names of rsgen's layout, as before manifests.
	if err := os.Remove(filepath.Join(out, docsDir, stage.ManifestName)); err != nil {
		t.Fatal(err)
	}
	caps := filepath.Join(out, docsDir, "capabilitylist.xml")
	b, _ := os.ReadFile(caps)
	s := strings.Replace(string(b), "</urlset>", "  <url>\n    <loc>"+acBase+"resourcesync/changedump.xml</loc>\n    <rs:md capability=\"changedump\"/>\n  </url>\n</urlset>", 1)
	if err := os.WriteFile(caps, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}

	tr.write("new3.txt", "newest", acTime("2024-06-03T10:00:00Z"))
	cfg = acDumpConfig(tr.dir, out, acDay(4))
	var notices []string
	cfg.Notice = func(m string) { notices = append(notices, m) }
	mustBuild(t, cfg)
	if len(notices) != 1 || !strings.Contains(notices[0], "its Change Dump ends at 2024-06-02T00:00:00Z, its Change Lists at 2024-06-03T00:00:00Z") {
		t.Errorf("notices %q", notices)
	}
	got := acCheckChangeDump(t, tr, out)
	if !slices.Equal(got, []string{"changedump-20240604T000000Z-00001.zip 2024-06-03T00:00:00Z 2024-06-04T00:00:00Z"}) {
		t.Errorf("packages %q", got)
	}
}

// A previous output directory (restored from a CI cache or an artifact,
// which keep symbolic links) whose package is a symbolic link must not
// get the link's target published: hard-linking a link publishes the
// link, which a static host or 'aws s3 sync' follows, and copying it
// copies the target.
func TestChangeDumpPackageThatIsALink(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	prev := t.TempDir()
	mustBuild(t, acConfig(tr.dir, prev, acDay(1)))
	tr.write("new.txt", "new", acTime("2024-06-01T10:00:00Z"))
	mustBuild(t, acDumpConfig(tr.dir, prev, acDay(2)))

	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("not for the public"), 0o600); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(prev, docsDir, "changedump-20240602T000000Z-00001.zip")
	info, err := os.Stat(pkg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(pkg); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, pkg); err != nil {
		t.Fatal(err)
	}
	// The Change Dump gives the length of the link's target.
	cd := filepath.Join(prev, docsDir, dumps.ChangeDumpName)
	data, err := os.ReadFile(cd)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte(`length="`+itoa(info.Size())+`"`), []byte(`length="18"`), 1)
	if err := os.WriteFile(cd, data, 0o644); err != nil {
		t.Fatal(err)
	}

	out := t.TempDir()
	tr.write("new2.txt", "newer", acTime("2024-06-02T10:00:00Z"))
	cfg := acDumpConfig(tr.dir, out, acDay(3))
	cfg.Changes.Previous = prev
	_, err = Build(context.Background(), cfg)
	if !errors.Is(err, errPrevious) {
		t.Errorf("error %v, want one about the previous build", err)
	}
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type()&os.ModeSymlink != 0 {
			t.Errorf("%s is published as a symbolic link", p)
		}
		if err == nil && d.Type().IsRegular() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte("not for the public")) {
				t.Errorf("%s holds the link's target", p)
			}
		}
		return nil
	})
}
