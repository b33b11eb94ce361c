package main

import (
	"bytes"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/notify"
	"github.com/rsgen/rsgen/internal/published/notify/notifytest"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/validate"
)

// notifySource writes a small tree of old files.
func notifySource(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	old := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for name, content := range map[string]string{"a.txt": "alpha", "b.html": "<p>b</p>"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// received waits for n deliveries and returns them by topic.
func received(t *testing.T, sub *notifytest.Subscriber, n int) map[string]notifytest.Delivery {
	t.Helper()
	got := map[string]notifytest.Delivery{}
	for range n {
		select {
		case d := <-sub.Deliveries:
			got[d.Topic] = d
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of %d notifications arrived", len(got), n)
		}
	}
	return got
}

// entries parses a delivered payload and checks its root.
func entries(t *testing.T, d notifytest.Delivery, capability, hub string) []string {
	t.Helper()
	if d.ContentType != notify.ContentType || d.Hub != hub {
		t.Errorf("delivered as %q from hub %q", d.ContentType, d.Hub)
	}
	doc, es, err := rsxml.ReadAll(bytes.NewReader(d.Body), rsxml.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Index || doc.MD.Capability != capability || doc.Link("up") != "https://example.org/resourcesync/capabilitylist.xml" {
		t.Errorf("root %+v", doc)
	}
	// rsgen validate accepts what rsgen sends (issue 22, item 10).
	if rep := validate.Document(capability, bytes.NewReader(d.Body)); len(rep.Findings) > 0 {
		t.Errorf("the %s payload is not valid: %v", capability, rep.Findings)
	}
	var out []string
	for _, e := range es {
		s := e.MD.Change + " " + strings.TrimPrefix(e.Loc, "https://example.org/")
		if e.MD.Capability != "" {
			s += " " + e.MD.Capability
		}
		out = append(out, s)
	}
	return out
}

// subscribeBoth subscribes sub at hub to the two channels of the site at
// https://example.org/ and returns their topics, once the hub has the
// subscriptions.
func subscribeBoth(t *testing.T, hub *notifytest.Hub, sub *notifytest.Subscriber) (changeTopic, frameworkTopic string) {
	t.Helper()
	changeTopic = "https://example.org/resourcesync/changelist-notification"
	frameworkTopic = "https://example.org/resourcesync/framework-notification"
	for _, topic := range []string{changeTopic, frameworkTopic} {
		if err := sub.Subscribe(hub.URL, topic, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		if err := hub.WaitSubscribers(topic, 1, 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	return changeTopic, frameworkTopic
}

// TestNotifyEndToEnd builds a site that advertises a hub, subscribes to
// both channels at the hub, and checks what the subscriber receives
// from rsgen notify after a first build, after a second one, and when
// nothing changed.
func TestNotifyEndToEnd(t *testing.T) {
	clearEnv(t)
	hub := notifytest.NewHub()
	defer hub.Close()
	sub := notifytest.NewSubscriber()
	defer sub.Close()
	src, out := notifySource(t), t.TempDir()
	state := filepath.Join(t.TempDir(), "notify.json")
	build := []string{"build", "-q", "--base-url", "https://example.org/", "--out", out, "--hub", hub.URL}

	if code, _, stderr := runCLI(t, t.Context(), append(build, "--at", "2024-06-01T00:00:00Z", src)...); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	subscribeBoth(t, hub, sub)
	if code, _, stderr := runCLI(t, t.Context(), "validate", out); code != 0 {
		t.Fatalf("validate: exit %d: %s", code, stderr)
	}

	notifyTwoBuilds(t, sub, build, src, out, state, hub.URL)

	// Nothing new: nothing sent.
	before := hub.Published()
	code, _, stderr := runCLI(t, t.Context(), "notify", "--state", state, out)
	if code != 0 {
		t.Fatalf("notify: exit %d: %s", code, stderr)
	}
	if n := hub.Published(); n != before {
		t.Errorf("%d notifications sent when nothing changed", n-before)
	}
	if !strings.Contains(stderr, "rsgen: notified 0 changes and 0 framework changes in 0 requests") {
		t.Errorf("stderr: %s", stderr)
	}
}

func TestNotifyFailures(t *testing.T) {
	clearEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/hub"
	ln.Close()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	defer failing.Close()
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer slow.Close()
	defer close(release)

	src := notifySource(t)
	site := func(args ...string) string {
		out := t.TempDir()
		if code, _, stderr := runCLI(t, t.Context(), append([]string{"build", "-q", "--base-url", "https://example.org/", "--out", out}, append(args, src)...)...); code != 0 {
			t.Fatalf("build: exit %d: %s", code, stderr)
		}
		return out
	}
	unreachable, overloaded, silent, plain := site("--hub", closed), site("--hub", failing.URL), site("--hub", slow.URL), site()

	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"unreachable hub", []string{"--retries", "1", unreachable}, exitHub, []string{
			"rsgen: error: notifying " + closed + " of topic https://example.org/resourcesync/framework-notification: the hub is unreachable: ",
			"(2 attempts)\n", "rsgen: hint: run rsgen notify again later: the state file is unchanged"}},
		{"hub answers 503", []string{"--retries", "1", overloaded}, exitHub, []string{
			"the hub refused the notification: HTTP 503 Service Unavailable: overloaded (2 attempts)\n"}},
		{"hub times out", []string{"--retries", "0", "--timeout", "100ms", silent}, exitHub, []string{
			"the hub did not answer in time: no answer within 100ms\n"}},
		{"no channel", []string{plain}, exitFailure, []string{
			"the Capability List advertises no notification channel\n", "rsgen: hint: build with --hub URL"}},
		{"not a site", []string{t.TempDir()}, exitFailure, []string{"rsgen: error: ", "rsgen: hint: give the --out directory of rsgen build\n"}},
		{"a URL", []string{"https://example.org/"}, exitFailure, []string{"rsgen: error: https://example.org/: not a directory: give the output directory of the build\n"}},
		{"bad --hub", []string{"--hub", "ftp://example.org/", unreachable}, exitUsage, []string{`rsgen: error: --hub "ftp://example.org/" is not valid: not an absolute http(s) URL`}},
		{"bad --since", []string{"--since", "yesterday", unreachable}, exitUsage, []string{`--since "yesterday" is not an RFC 3339 time`}},
		{"two dirs", []string{unreachable, plain}, exitUsage, []string{"give one output directory (the --out of rsgen build), not 2 arguments"}},
		{"state in no directory", []string{"--state", filepath.Join(t.TempDir(), "missing", "state.json"), overloaded}, exitFailure, []string{
			"missing/state.json: the directory ", " does not exist\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "state.json")
			code, _, stderr := runCLI(t, t.Context(), append([]string{"notify", "--state", state, "--timeout", "2s"}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d: %s", code, tc.code, stderr)
			}
			for _, w := range tc.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if _, err := os.Stat(state); !os.IsNotExist(err) {
				t.Errorf("the state file was written after a failure: %v", err)
			}
		})
	}

	// The hub recovers: the same run succeeds and only then writes the state.
	hub := notifytest.NewHub()
	defer hub.Close()
	state := filepath.Join(t.TempDir(), "state.json")
	if code, _, stderr := runCLI(t, t.Context(), "notify", "--state", state, "--hub", hub.URL, unreachable); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(state); err != nil {
		t.Errorf("no state after a success: %v", err)
	}
}

// TestNotifyOfficialValidator runs the official validator (rs-validate.py,
// in ../shared/tools beside the checkout) on a site that advertises the
// channels, and the official schemas on the payloads rsgen notify sends.
func TestNotifyOfficialValidator(t *testing.T) {
	clearEnv(t)
	official := testenv.Official(t)
	if official == nil {
		t.Skip("the official validator cannot run here")
	}
	src, out := notifySource(t), t.TempDir()
	build := []string{"build", "-q", "--base-url", "https://example.org/", "--out", out, "--hub", "https://hub.example.org/"}
	if code, _, stderr := runCLI(t, t.Context(), append(build, "--at", "2024-06-01T00:00:00Z", src)...); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(src, "new.txt"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, t.Context(), append(build, "--previous", out, "--at", "2024-06-02T00:00:00Z", src)...); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	if msg, err := exec.Command(official[0], official[1], out).CombinedOutput(); err != nil {
		t.Fatalf("rs-validate.py on the site: %v\n%s", err, msg)
	}
	// The payloads, from a dry run, through the schemas: the spec-level
	// layer knows only the core capabilities, so only the XSD verdict counts.
	code, stdout, stderr := runCLI(t, t.Context(), "notify", "--dry-run", "--since", "2024-01-01T00:00:00Z", out)
	if code != 0 {
		t.Fatalf("notify --dry-run: exit %d: %s", code, stderr)
	}
	docs := strings.Split(stdout, "<?xml")[1:]
	if len(docs) != 2 {
		t.Fatalf("%d payloads, want 2:\n%s", len(docs), stdout)
	}
	dir := t.TempDir()
	var paths []string
	for i, d := range docs {
		p := filepath.Join(dir, fmt.Sprintf("payload-%d.xml", i))
		d, _, _ = strings.Cut(d, "</urlset>")
		if err := os.WriteFile(p, []byte("<?xml"+d+"</urlset>\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	msg, _ := exec.Command(official[0], append(official[1:len(official):len(official)], paths...)...).CombinedOutput()
	for _, line := range strings.Split(strings.TrimSpace(string(msg)), "\n") {
		if strings.HasPrefix(line, "OK ") {
			continue
		}
		// Past the schemas, the only finding may be the capability,
		// which the 1.1 validator does not know.
		_, findings, _ := strings.Cut(line, ": ")
		for _, f := range strings.Split(findings, "; ") {
			if !strings.Contains(f, "capability='changelist-notification' is not one of") && !strings.Contains(f, "capability='framework-notification' is not one of") {
				t.Errorf("rs-validate.py: %s", f)
			}
		}
	}
}

// A state file of another site is refused: comparing with it would
// notify every document as deleted and created again.
func TestNotifyStateOfAnotherSite(t *testing.T) {
	clearEnv(t)
	hub := notifytest.NewHub()
	defer hub.Close()
	src := notifySource(t)
	state := filepath.Join(t.TempDir(), "state.json")
	var outs []string
	for _, base := range []string{"https://example.org/", "https://example.net/"} {
		out := t.TempDir()
		if code, _, stderr := runCLI(t, t.Context(), "build", "-q", "--base-url", base, "--out", out, "--hub", hub.URL, src); code != 0 {
			t.Fatalf("build: exit %d: %s", code, stderr)
		}
		outs = append(outs, out)
	}
	if code, _, stderr := runCLI(t, t.Context(), "notify", "-q", "--state", state, outs[0]); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	before, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, t.Context(), "notify", "-q", "--state", state, outs[1])
	if code != exitFailure || !strings.Contains(stderr, "the state file is of another site") || !strings.Contains(stderr, "rsgen: hint: give each site its own --state file") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if after, _ := os.ReadFile(state); !bytes.Equal(before, after) {
		t.Error("the state file changed")
	}
}

// notifyTwoBuilds runs rsgen notify on out, built with the arguments build
// from src once already, and after a second build with a file created and
// one deleted; sub, subscribed to both channels, must receive what each
// run sends, from the hub that deliveries name hubLink.
func notifyTwoBuilds(t *testing.T, sub *notifytest.Subscriber, build []string, src, out, state, hubLink string) {
	t.Helper()
	changeTopic := "https://example.org/resourcesync/changelist-notification"
	frameworkTopic := "https://example.org/resourcesync/framework-notification"
	// First run: no Change List yet; every document is new.
	if code, _, stderr := runCLI(t, t.Context(), "notify", "--state", state, out); code != 0 {
		t.Fatalf("notify: exit %d: %s", code, stderr)
	}
	got := received(t, sub, 1)
	want := []string{"created .well-known/resourcesync description", "created resourcesync/capabilitylist.xml capabilitylist", "created resourcesync/resourcelist.xml resourcelist"}
	if e := entries(t, got[frameworkTopic], rsxml.CapFrameworkNotification, hubLink); strings.Join(e, "|") != strings.Join(want, "|") {
		t.Errorf("framework notification:\n%s\nwant\n%s", strings.Join(e, "\n"), strings.Join(want, "\n"))
	}

	// A second build with changes.
	if err := os.WriteFile(filepath.Join(src, "new.txt"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(src, "b.html")); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, t.Context(), append(build, "--previous", out, "--at", "2024-06-02T00:00:00Z", src)...); code != 0 {
		t.Fatalf("second build: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, t.Context(), "notify", "--state", state, out); code != 0 {
		t.Fatalf("notify: exit %d: %s", code, stderr)
	}
	got = received(t, sub, 2)
	if e := entries(t, got[changeTopic], rsxml.CapChangeListNotification, hubLink); strings.Join(e, "|") != "deleted b.html|created new.txt" {
		t.Errorf("change notification: %v", e)
	}
	fw := strings.Join(entries(t, got[frameworkTopic], rsxml.CapFrameworkNotification, hubLink), "|")
	for _, w := range []string{"updated resourcesync/capabilitylist.xml capabilitylist", "updated resourcesync/resourcelist.xml resourcelist", "created resourcesync/changelist"} {
		if !strings.Contains(fw, w) {
			t.Errorf("framework notification lacks %q: %s", w, fw)
		}
	}
	if strings.Contains(fw, "description") {
		t.Errorf("the Source Description did not change, yet: %s", fw)
	}
}

// A Change List Archive is a document of the framework, and so is each
// list it keeps; their changes are notified once, from changelist.xml.
func TestNotifyArchive(t *testing.T) {
	clearEnv(t)
	hub := notifytest.NewHub()
	defer hub.Close()
	sub := notifytest.NewSubscriber()
	defer sub.Close()
	src, out := notifySource(t), t.TempDir()
	build := []string{"build", "-q", "--base-url", "https://example.org/", "--out", out, "--hub", hub.URL, "--resource-dump"}
	if code, _, stderr := runCLI(t, t.Context(), append(build, "--at", "2024-06-01T00:00:00Z", src)...); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(src, "new.txt"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, t.Context(), append(build, "--previous", out, "--archive", "365d,dumps=1s", "--at", "2024-06-02T00:00:00Z", src)...); code != 0 {
		t.Fatalf("second build: exit %d: %s", code, stderr)
	}
	changeTopic, frameworkTopic := subscribeBoth(t, hub, sub)
	if code, _, stderr := runCLI(t, t.Context(), "notify", "--since", "2024-06-01T00:00:00Z", out); code != 0 {
		t.Fatalf("notify: exit %d: %s", code, stderr)
	}
	got := received(t, sub, 2)
	if e := entries(t, got[changeTopic], rsxml.CapChangeListNotification, hub.URL); strings.Join(e, "|") != "created new.txt" {
		t.Errorf("change notification: %v, want the one change once", e)
	}
	fw := strings.Join(entries(t, got[frameworkTopic], rsxml.CapFrameworkNotification, hub.URL), "|")
	for _, w := range []string{"created resourcesync/changelist-archive.xml changelist-archive", "created resourcesync/archive/changelist-20240602T000000Z.xml changelist",
		"created resourcesync/resourcedump-archive.xml resourcedump-archive", "created resourcesync/archive/resourcedump-20240602T000000Z.xml resourcedump"} {
		if !strings.Contains(fw, w) {
			t.Errorf("framework notification lacks %q: %s", w, fw)
		}
	}
}

// A site of several resource sets, built from a configuration file with a
// hub, advertises each set's channels (under the set's documents) and
// rsgen notify sends each set's notifications to its own topics, keeping
// one state file for all of them.
func TestNotifySets(t *testing.T) {
	clearEnv(t)
	hub := notifytest.NewHub()
	defer hub.Close()
	sub := notifytest.NewSubscriber()
	defer sub.Close()
	dir := t.TempDir()
	for _, s := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(dir, "src", s), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "src", s, "f.txt"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	config := filepath.Join(dir, "rsgen.toml")
	err := os.WriteFile(config, []byte(`out = "out"
docs-url = "https://example.org/"
previous = "out"
first-build-ok = true
hub = "`+hub.URL+`"
[[set]]
name = "a"
source = "src/a"
base-url = "https://example.org/a/"
[[set]]
name = "b"
source = "src/b"
base-url = "https://example.org/b/"
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	out, state := filepath.Join(dir, "out"), filepath.Join(dir, "state.json")
	if code, _, stderr := runCLI(t, t.Context(), "build", "-q", "--config", config, "--at", "2024-06-01T00:00:00Z"); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	topics := map[string]string{}
	for _, s := range []string{"a", "b"} {
		for _, ch := range []string{"changelist-notification", "framework-notification"} {
			topic := "https://example.org/resourcesync/" + s + "/" + ch
			topics[topic] = s
			if err := sub.Subscribe(hub.URL, topic, 10*time.Second); err != nil {
				t.Fatal(err)
			}
			if err := hub.WaitSubscribers(topic, 1, 10*time.Second); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The first run: each set's framework notification (the change
	// notifications of a first build are empty: not sent).
	if code, _, stderr := runCLI(t, t.Context(), "notify", "-q", "--state", state, out); code != 0 {
		t.Fatalf("notify: exit %d: %s", code, stderr)
	}
	got := received(t, sub, 2)
	for _, s := range []string{"a", "b"} {
		d, ok := got["https://example.org/resourcesync/"+s+"/framework-notification"]
		if !ok {
			t.Fatalf("set %s: no framework notification; got %v", s, slices.Collect(maps.Keys(got)))
		}
		if !strings.Contains(string(d.Body), "https://example.org/resourcesync/"+s+"/resourcelist.xml") ||
			strings.Contains(string(d.Body), "/resourcesync/"+map[string]string{"a": "b", "b": "a"}[s]+"/") {
			t.Errorf("set %s's framework notification:\n%s", s, d.Body)
		}
	}
	// A change in b only: one change notification, on b's topic.
	if err := os.WriteFile(filepath.Join(dir, "src", "b", "new.txt"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, t.Context(), "build", "-q", "--config", config, "--at", "2024-06-02T00:00:00Z"); code != 0 {
		t.Fatalf("second build: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, t.Context(), "notify", "--state", state, out); code != 0 || !strings.Contains(stderr, "notified 1 change and ") || !strings.Contains(stderr, " of 1 entry to ") {
		t.Fatalf("notify: exit %d: %s", code, stderr)
	}
	got = received(t, sub, 3) // b's change, and the framework notifications of a and b (the Source Description, b's lists)
	d, ok := got["https://example.org/resourcesync/b/changelist-notification"]
	if !ok || !strings.Contains(string(d.Body), "https://example.org/b/new.txt") {
		t.Errorf("b's change notification: %v %s", ok, d.Body)
	}
	if _, ok := got["https://example.org/resourcesync/a/changelist-notification"]; ok {
		t.Error("a change notification of a, which did not change")
	}
	// A state whose set c is of another Capability List: refused before a
	// payload is sent (a's and b's would be sent again at every run).
	bad := filepath.Join(dir, "bad.json")
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(strings.Replace(string(data), "resourcesync/b/capabilitylist.xml\",", "resourcesync/x/capabilitylist.xml\",", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, t.Context(), "notify", "--state", bad, "--since", "2024-01-01T00:00:00Z", out); code == 0 || !strings.Contains(stderr, "another site") {
		t.Fatalf("notify with a bad set state: exit %d: %s", code, stderr)
	}
	select {
	case d := <-sub.Deliveries:
		t.Fatalf("a notification was sent before the state was refused: %s", d.Topic)
	case <-time.After(500 * time.Millisecond):
	}

	// Set a removed: its documents are notified as deleted on its own
	// framework channel, and it leaves the state.
	config2 := filepath.Join(dir, "one.toml")
	cfg, _ := os.ReadFile(config)
	if err := os.WriteFile(config2, []byte(strings.SplitN(string(cfg), "[[set]]\nname = \"b\"", 2)[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, t.Context(), "build", "-q", "--config", config2, "--remove-set", "b", "--at", "2024-06-03T00:00:00Z"); code != 0 {
		t.Fatalf("build without b: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, t.Context(), "notify", "-q", "--state", state, out); code != 0 {
		t.Fatalf("notify: exit %d: %s", code, stderr)
	}
	got = received(t, sub, 2) // a's framework (the Source Description), b's deletions
	d, ok = got["https://example.org/resourcesync/b/framework-notification"]
	if !ok || !strings.Contains(string(d.Body), `change="deleted"`) || !strings.Contains(string(d.Body), "https://example.org/resourcesync/b/resourcelist.xml") ||
		strings.Contains(string(d.Body), ".well-known/resourcesync") { // still published
		t.Errorf("b's deletions: %v\n%s", ok, d.Body)
	}
	if st, _ := os.ReadFile(state); strings.Contains(string(st), `"b"`) {
		t.Errorf("the state keeps the removed set:\n%s", st)
	}

	// A state file of a build without sets is another site's.
	single := filepath.Join(dir, "single.json")
	if err := os.WriteFile(single, []byte(`{"version":1,"capability_list":"https://example.org/resourcesync/capabilitylist.xml","documents":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, t.Context(), "notify", "--state", single, "--dry-run", out); code == 0 || !strings.Contains(stderr, "another site") {
		t.Errorf("notify with the state of a build without sets: exit %d: %s", code, stderr)
	}
}
