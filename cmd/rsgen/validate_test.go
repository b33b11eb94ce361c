package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rsgen/rsgen/validate"
)

const corpus = "../../validate/testdata/"

func TestValidateCommand(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // a substring, if not ""
		stderr string
	}{
		{"spec examples", []string{"validate", corpus + "examples"}, 0, "[up, §10-§13]", "rsgen: valid: 30 documents, 0 errors, 6 warnings"},
		{"spec examples, strict", []string{"validate", "--strict", corpus + "examples"}, 1, "warning:", "NOT valid"},
		{"quiet", []string{"validate", "-q", corpus + "examples/resourcesync_ex_12.xml"}, 0, "", ""},
		{"a broken document", []string{"validate", corpus + "broken/hash.xml"}, 1, "hash.xml:9: error: <rs:md>: hash token", "NOT valid: 1 document, 1 error, 0 warnings"},
		{"example 27", []string{"validate", corpus + "resourcesync_ex_27-nonhex-hash.xml"}, 1, "[hash, §7]", ""},
		{"example 27, lenient", []string{"validate", "--lenient-hash", corpus + "resourcesync_ex_27-nonhex-hash.xml"}, 0, "warning:", "valid"},
		{"several targets", []string{"validate", corpus + "broken/up.xml", corpus + "broken/rel.xml"}, 0, "rel.xml", "2 documents, 0 errors, 2 warnings"},
		{"audit", []string{"validate", "--resources", corpus + "broken-sites/audit-hash/resources", corpus + "broken-sites/audit-hash"}, 1, "[audit-hash, §7]", "1 resource audited"},
		{"audit out of reach", []string{"validate", "--resources", corpus + "broken-sites/audit-unreached/resources", corpus + "broken-sites/audit-unreached"}, 1,
			"1 of the listed resources could not be audited", "rsgen: hint: --resources-url URL"},
		{"missing path", []string{"validate", "no/such/dir"}, 1, "no/such/dir: error: cannot read", ""},
		{"rules", []string{"validate", "--rules"}, 0, "index-until", ""},
		{"no target", []string{"validate"}, 2, "", "rsgen: error: nothing to validate"},
		{"bad format", []string{"validate", "--format", "yaml", "x"}, 2, "", "--format"},
		{"bad max-documents", []string{"validate", "--max-documents", "0", "x"}, 2, "", "--max-documents"},
		{"bad base URL", []string{"validate", "--base-url", "example.org", corpus + "examples"}, 2, "", `the base URL "example.org": give an absolute http or https URL`},
		{"base URL of another scheme", []string{"validate", "--base-url", "file:///etc/passwd", corpus + "examples"}, 2, "", `the base URL "file:///etc/passwd": give an absolute http or https URL`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, t.Context(), tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			if !strings.Contains(stdout, tt.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdout, stdout)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
		})
	}
}

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

func TestBuildThenValidate(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := runCLI(t, t.Context(), "build", "-q", "--base-url", "https://example.org/", "--out", out, "--host", "netlify,nginx", "--at", "2024-06-01T00:00:00Z", "../../testdata/site")
	if code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	for _, name := range []string{"_headers", "resourcesync.nginx.conf", "resourcesync/index.html", "resourcesync/robots.txt", "resourcesync/head.html"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("build --host netlify,nginx: %v", err)
		}
	}
	code, stdout, stderr := runCLI(t, t.Context(), "validate", "--strict", "--resources", "../../testdata/site", out)
	if code != 0 || !strings.Contains(stderr, "valid: 3 documents, 0 errors, 0 warnings, 9 resources audited") {
		t.Errorf("validate: exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestBuildHostErrors(t *testing.T) {
	out := t.TempDir()
	headers := filepath.Join(out, "_headers")
	if err := os.WriteFile(headers, []byte("/*\n  X-Frame-Options: DENY\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"their _headers", []string{"--host", "netlify"}, 1, "rsgen: hint: move that file away"},
		{"unknown host", []string{"--host", "vercel"}, 2, `unknown host "vercel"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"build", "--base-url", "https://example.org/", "--out", out}, tt.args...)
			code, _, stderr := runCLI(t, t.Context(), append(args, "../../testdata/site")...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, want %d; stderr lacks %q:\n%s", code, tt.code, tt.stderr, stderr)
			}
			if _, err := os.Stat(filepath.Join(out, "resourcesync")); err == nil {
				t.Error("something was published")
			}
			if data, _ := os.ReadFile(headers); !strings.HasPrefix(string(data), "/*") {
				t.Error("their _headers changed")
			}
		})
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
