package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/notify"
	"github.com/rsgen/rsgen/internal/notify/notifytest"
	"github.com/rsgen/rsgen/internal/testenv"
)

// startWebSubHub builds and starts testdata/websubhub, a hub made of the
// go-websub library (testdata/third_party/go-websub), and returns its URL.
// Building it fetches the library's dependencies from the Go module proxy.
func startWebSubHub(t *testing.T) string {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		t.Skip("no go command to build the hub with")
	}
	bin := filepath.Join(t.TempDir(), "websubhub")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	build.Dir = filepath.Join("testdata", "websubhub")
	if out, err := build.CombinedOutput(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("building the hub: %v\n%s", err, out)
		}
		t.Skipf("the hub cannot be built here (its dependencies come from the Go module proxy): %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the hub did not say its URL: %v", err)
	}
	return strings.TrimSpace(line)
}

// waitTopics waits until the hub knows every topic: a subscription is
// registered just after its verification of intent.
func waitTopics(t *testing.T, hub string, topics ...string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var known []string
		if resp, err := http.Get(hub + "_topics"); err == nil {
			json.NewDecoder(resp.Body).Decode(&known)
			resp.Body.Close()
		}
		if !slices.ContainsFunc(topics, func(topic string) bool { return !slices.Contains(known, topic) }) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hub knows the topics %q, want %q", known, topics)
		}
	}
}

// TestNotifyRealHub runs rsgen notify against a WebSub hub that was not
// written for rsgen: go-websub's, on 127.0.0.1. A subscriber subscribes to
// both channels through it (the hub verifies its intent), and receives
// what rsgen sends after a first build and after a second with changes:
// the payloads unchanged, with the Content-Type and the Link header the
// hub sets.
func TestNotifyRealHub(t *testing.T) {
	testenv.LongTest(t, "builds a WebSub hub with dependencies from the module proxy")
	clearEnv(t)
	hub := startWebSubHub(t)
	sub := notifytest.NewSubscriber()
	defer sub.Close()
	src, out := notifySource(t), t.TempDir()
	state := filepath.Join(t.TempDir(), "notify.json")
	build := []string{"build", "-q", "--base-url", "https://example.org/", "--out", out, "--hub", hub}
	if code, _, stderr := notifyRun(append(build, "--at", "2024-06-01T00:00:00Z", src)...); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	changeTopic := "https://example.org/resourcesync/changelist-notification"
	frameworkTopic := "https://example.org/resourcesync/framework-notification"
	for _, topic := range []string{changeTopic, frameworkTopic} {
		if err := sub.Subscribe(hub, topic, 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	waitTopics(t, hub, changeTopic, frameworkTopic)
	// The hub names itself without the final slash.
	hubLink := strings.TrimSuffix(hub, "/")

	if code, _, stderr := notifyRun("notify", "--state", state, out); code != 0 {
		t.Fatalf("notify: exit %d: %s", code, stderr)
	}
	got := received(t, sub, 1)
	want := []string{"created .well-known/resourcesync description", "created resourcesync/capabilitylist.xml capabilitylist", "created resourcesync/resourcelist.xml resourcelist"}
	if e := entries(t, got[frameworkTopic], notify.CapFrameworkNotification, hubLink); strings.Join(e, "|") != strings.Join(want, "|") {
		t.Errorf("framework notification:\n%s\nwant\n%s", strings.Join(e, "\n"), strings.Join(want, "\n"))
	}

	if err := os.WriteFile(filepath.Join(src, "new.txt"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(src, "b.html")); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := notifyRun(append(build, "--previous", out, "--at", "2024-06-02T00:00:00Z", src)...); code != 0 {
		t.Fatalf("second build: exit %d: %s", code, stderr)
	}
	if code, _, stderr := notifyRun("notify", "--state", state, out); code != 0 {
		t.Fatalf("notify: exit %d: %s", code, stderr)
	}
	got = received(t, sub, 2)
	if e := entries(t, got[changeTopic], notify.CapChangeNotification, hubLink); strings.Join(e, "|") != "deleted b.html|created new.txt" {
		t.Errorf("change notification: %v", e)
	}
	fw := strings.Join(entries(t, got[frameworkTopic], notify.CapFrameworkNotification, hubLink), "|")
	if !strings.Contains(fw, "created resourcesync/changelist") {
		t.Errorf("framework notification: %s", fw)
	}

	// The library alone takes a publication only its own way (a form, or
	// a body with hub.content=body in the query): it refuses ResourceSync's
	// POST of the payload, and rsgen says so with the hub's answer and
	// exit code 4, leaving its state for the next run.
	plain := hub + "plain/"
	other := t.TempDir()
	if code, _, stderr := notifyRun("build", "-q", "--base-url", "https://example.org/", "--out", other, "--hub", plain, "--at", "2024-06-01T00:00:00Z", src); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	otherState := filepath.Join(t.TempDir(), "notify.json")
	code, _, stderr := notifyRun("notify", "--state", otherState, other)
	if code != exitHub || !strings.Contains(stderr, plain) || !strings.Contains(stderr, "400") || !strings.Contains(stderr, "invalid Content-Type") {
		t.Errorf("notify through the library alone: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(otherState); err == nil {
		t.Error("a state was saved for notifications the hub refused")
	}
}
