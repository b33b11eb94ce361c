package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/published/notify/notifytest"
	"github.com/rsgen/rsgen/internal/testenv"
)

// startWebSubHub builds and starts testdata/websubhub, a hub made of the
// go-websub library (testdata/third_party/go-websub), and returns its URL.
// Building it fetches the library's dependencies from the Go module proxy.
func startWebSubHub(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "websubhub")
	build := exec.Command(goCommand(t), "build", "-o", bin, ".")
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
	if code, _, stderr := runCLI(t, t.Context(), append(build, "--at", "2024-06-01T00:00:00Z", src)...); code != 0 {
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

	notifyTwoBuilds(t, sub, build, src, out, state, hubLink)

	// The library alone takes a publication only its own way (a form, or
	// a body with hub.content=body in the query): it refuses ResourceSync's
	// POST of the payload, and rsgen says so with the hub's answer and
	// exit code 4, leaving its state for the next run.
	plain := hub + "plain/"
	other := t.TempDir()
	if code, _, stderr := runCLI(t, t.Context(), "build", "-q", "--base-url", "https://example.org/", "--out", other, "--hub", plain, "--at", "2024-06-01T00:00:00Z", src); code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	otherState := filepath.Join(t.TempDir(), "notify.json")
	code, _, stderr := runCLI(t, t.Context(), "notify", "--state", otherState, other)
	if code != exitHub || !strings.Contains(stderr, plain) || !strings.Contains(stderr, "400") || !strings.Contains(stderr, "invalid Content-Type") {
		t.Errorf("notify through the library alone: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(otherState); err == nil {
		t.Error("a state was saved for notifications the hub refused")
	}
}
