package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rsgen/rsgen/validate"
)

const corpus = "../../validate/testdata/"

// The command's findings, summaries and usage errors, and a build
// validated: testdata/script/validate_cli.txtar.

func TestValidateRulesListsAll(t *testing.T) {
	_, stdout, _ := runCLI(t, t.Context(), "validate", "--rules")
	for _, r := range validate.Rules() {
		if !strings.Contains(stdout, r.ID+" ") {
			t.Errorf("--rules lacks %s", r.ID)
		}
	}
}

func TestValidateJSON(t *testing.T) {
	code, stdout, stderr := runCLI(t, t.Context(), "validate", "--format", "json", corpus+"broken/chronology.xml")
	if code != 1 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var got struct {
		Valid    bool
		Errors   int
		Findings []validate.Finding
		ByRule   map[string]int `json:"by_rule"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if got.Valid || got.Errors != 1 || len(got.Findings) != 1 || got.Findings[0].Rule != validate.RuleChronology ||
		got.Findings[0].Line != 12 || got.Findings[0].Severity != validate.Error || got.ByRule[validate.RuleChronology] != 1 {
		t.Errorf("report %+v", got)
	}
	if !strings.Contains(stdout, `"severity": "error"`) {
		t.Errorf("severity is not written as a word:\n%s", stdout)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestServe(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := runCLI(t, t.Context(), "build", "-q", "--base-url", "http://127.0.0.1:8000/", "--out", out, "../../testdata/site"); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"rsgen", "serve", "--addr", "127.0.0.1:0", out}, &stdout, &stderr) }()
	addr := regexp.MustCompile(`serving .* at (http://127\.0\.0\.1:\d+/)`)
	var base string
	for i := 0; i < 200 && base == ""; i++ {
		if m := addr.FindStringSubmatch(stderr.String()); m != nil {
			base = m[1]
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if base == "" {
		t.Fatalf("serve did not start: %s", stderr.String())
	}
	resp, err := http.Get(base + ".well-known/resourcesync")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/xml" || resp.Header.Get("Link") == "" {
		t.Errorf("Content-Type %q, Link %q", ct, resp.Header.Get("Link"))
	}
	cancel() // as Ctrl-C does
	select {
	case code := <-done:
		if code != 0 || !strings.Contains(stderr.String(), "rsgen: stopped") {
			t.Errorf("exit %d after Ctrl-C: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	if code, _, stderr := runCLI(t, t.Context(), "serve", filepath.Join(out, "nothing")); code != 2 {
		t.Errorf("serve of a missing directory: exit %d: %s", code, stderr)
	}
}
