package main

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/testenv"
)

// resyncClient returns the command that runs the reference client,
// resync-sync of resync 2.0.1 (a copy in testdata/third_party/resync), or
// skips t where Python lacks what it imports; in CI, which installs it, t
// fails instead.
func resyncClient(t *testing.T) []string {
	t.Helper()
	script, err := filepath.Abs("testdata/third_party/resync/resync-sync")
	if err != nil {
		t.Fatal(err)
	}
	if err := exec.Command(testenv.Python, "-c", "import dateutil, defusedxml").Run(); err != nil {
		testenv.Need(t, testenv.Python+" with dateutil and defusedxml", "apt-get install python3-dateutil python3-defusedxml")
	}
	return []string{testenv.Python, script}
}

// TestResyncClient runs the reference client as a Destination would, from
// cron: a baseline sync from the Capability List, then incremental syncs
// from the Change List URL that rsgen advertises, across builds that
// create, update and delete files. After each sync the Destination's copy
// must equal the source. The Resource List is split into an index and
// parts, which a Destination must follow; the Change List stays one list
// (resync 2.0.1 cannot read a Change List Index: docs/CHANGES.md).
func TestResyncClient(t *testing.T) {
	clearEnv(t)
	client := resyncClient(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/"
	src, out, dst, state := t.TempDir(), filepath.Join(t.TempDir(), "public"), t.TempDir(), t.TempDir()

	files := map[string]string{
		"index.html":          "<h1>home</h1>",
		"a.txt":               "one",
		"data/b.csv":          "x,y\n1,2\n",
		"data/deep/c.json":    `{"c": 3}`,
		"docs/report (1).pdf": "%PDF-1.4 report",
		"docs/notes.md":       "# notes",
		"img/1.png":           "\x89PNG 1",
		"img/2.png":           "\x89PNG 2",
		"img/3.png":           "\x89PNG 3",
	}
	// Files older than every snapshot: resync starts its incremental sync
	// at the latest lastmod it fetched in the baseline.
	mtime := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	write := func(rel, content string) {
		t.Helper()
		writeOld(t, src, rel, content, mtime)
		files[rel] = content
	}
	remove := func(rel string) {
		t.Helper()
		if err := os.Remove(filepath.Join(src, filepath.FromSlash(rel))); err != nil {
			t.Fatal(err)
		}
		delete(files, rel)
	}
	for rel, content := range files {
		write(rel, content)
	}
	// Lists split at 7 entries: the key max-entries of a file of one set.
	config := filepath.Join(t.TempDir(), "rsgen.toml")
	if err := os.WriteFile(config, []byte("source = \""+src+"\"\nmax-entries = 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := func(at string, previous bool) {
		t.Helper()
		args := []string{"build", "-q", "--base-url", base, "--out", out, "--at", at, "--config", config}
		if previous {
			// With a Change List Archive: changelist.xml links to it,
			// and the Capability List lists it, which the client must
			// pass over.
			args = append(args, "--previous", out, "--archive", "365d")
		}
		if code, _, stderr := runCLI(t, context.Background(), args...); code != exitOK {
			t.Fatalf("build at %s: exit %d\n%s", at, code, stderr)
		}
	}
	build("2024-06-01T00:00:00Z", false)

	serveOn(t, ln, out, src)
	sync := func(args ...string) {
		t.Helper()
		resyncSync(t, client, state, base+"="+dst, args...)
		checkMirror(t, dst, files)
	}
	sync("--baseline", "--delete", "--capabilitylist", base+"resourcesync/capabilitylist.xml")

	write("a.txt", "one, changed")
	write("new file.txt", "new")
	remove("data/deep/c.json")
	build("2024-06-02T00:00:00Z", true)
	sync("--incremental", "--delete", "--changelist-uri", base+"resourcesync/changelist.xml")

	// A second incremental sync reads the Change List of both builds and
	// applies the changes after the first.
	write("data/b.csv", "x,y\n1,2\n3,4\n")
	remove("index.html")
	write("data/deep/c.json", `{"c": "back"}`)
	build("2024-06-03T00:00:00Z", true)
	sync("--incremental", "--delete", "--changelist-uri", base+"resourcesync/changelist.xml")
}

// writeOld writes content to rel under dir with the modification time
// mtime.
func writeOld(t *testing.T, dir, rel, content string, mtime time.Time) {
	t.Helper()
	p := testenv.WriteFile(t, dir, rel, content)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// serveOn serves the output out, with the files of content, on ln until
// the test ends, as rsgen serve does.
func serveOn(t *testing.T, ln net.Listener, out, content string) {
	t.Helper()
	h, err := hosting.NewHandler(out, content)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close(); h.Close() })
}

// resyncSync runs resync-sync with args for the mapping URL=DIR, in the
// directory state, where it keeps the time it synced up to.
func resyncSync(t *testing.T, client []string, state, mapping string, args ...string) {
	t.Helper()
	args = append(append(client[1:len(client):len(client)], args...), "--tries", "1", "--timeout", "10", mapping)
	cmd := exec.Command(client[0], args...)
	cmd.Dir = state
	msg, err := cmd.CombinedOutput()
	// resync exits 0 after a FatalError.
	if err != nil || strings.Contains(string(msg), "Traceback") || strings.Contains(string(msg), "Error") {
		t.Fatalf("resync-sync %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
}

// checkMirror checks that the Destination's directory dst holds exactly
// files. resync names a local copy by the path of its URL as it stands,
// percent-encoding and all ("new%20file.txt"): names are compared decoded.
func checkMirror(t *testing.T, dst string, files map[string]string) {
	t.Helper()
	got := map[string]string{}
	for rel, content := range testenv.ReadTree(t, dst) {
		name, err := url.PathUnescape(rel)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		got[name] = content
	}
	for rel, want := range files {
		if content, ok := got[rel]; !ok {
			t.Errorf("the Destination lacks %s", rel)
		} else if content != want {
			t.Errorf("the Destination's %s is %q, want %q", rel, content, want)
		}
	}
	for rel := range got {
		if _, ok := files[rel]; !ok {
			t.Errorf("the Destination keeps %s, which the source no longer has", rel)
		}
	}
}

// The reference client syncs one set of several, from its Capability
// List, baseline then incrementally from its own Change List, while the
// other set changes beside it.
func TestResyncClientSets(t *testing.T) {
	clearEnv(t)
	client := resyncClient(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/"
	dir := t.TempDir()
	src, out, dst, state := filepath.Join(dir, "src"), filepath.Join(dir, "public"), t.TempDir(), t.TempDir()
	mtime := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	articles := map[string]string{}
	write := func(rel, content string) {
		t.Helper()
		writeOld(t, src, rel, content, mtime)
		if rest, ok := strings.CutPrefix(rel, "articles/"); ok {
			articles[rest] = content
		}
	}
	for rel, content := range map[string]string{"articles/one.html": "one", "articles/two/2.html": "two", "data/x.csv": "x"} {
		write(rel, content)
	}
	config := filepath.Join(dir, "rsgen.toml")
	err = os.WriteFile(config, []byte(`out = "public"
docs-url = "`+base+`"
previous = "public"
first-build-ok = true
archive-keep = "365d"

[[set]]
name = "articles"
source = "src/articles"
base-url = "`+base+`articles/"

[[set]]
name = "data"
source = "src/data"
base-url = "`+base+`data/"
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	build := func(at string) {
		t.Helper()
		if code, _, stderr := runCLI(t, context.Background(), "build", "-q", "--config", config, "--at", at); code != exitOK {
			t.Fatalf("build at %s: exit %d\n%s", at, code, stderr)
		}
	}
	build("2024-06-01T00:00:00Z")
	serveOn(t, ln, out, src)
	sync := func(args ...string) {
		t.Helper()
		resyncSync(t, client, state, base+"articles/="+dst, args...)
		checkMirror(t, dst, articles)
	}
	sync("--baseline", "--delete", "--capabilitylist", base+"resourcesync/articles/capabilitylist.xml")

	write("articles/one.html", "one, changed")
	write("articles/three.html", "three")
	write("data/y.csv", "y")
	build("2024-06-02T00:00:00Z")
	sync("--incremental", "--delete", "--changelist-uri", base+"resourcesync/articles/changelist.xml")
}
