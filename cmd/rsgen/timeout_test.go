package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/testenv"
)

// TestBuildTimeouts: a --previous server that sends a byte now and then,
// each in time for any per-read time-out, holds a build only as long as
// fetch-timeout (per document, a key of the configuration file) and
// --timeout (the whole build) allow; either fails the build, publishing
// nothing, with a hint naming the key or the flag.
func TestBuildTimeouts(t *testing.T) {
	clearEnv(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		for range 500 { // 10 s at most
			if _, err := w.Write([]byte(" ")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}))
	defer srv.Close()
	src := testenv.CopySite(t, siteMtime)
	config := filepath.Join(t.TempDir(), "rsgen.toml")
	if err := os.WriteFile(config, []byte("source = \""+src+"\"\nfetch-timeout = \"200ms\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		flags     []string
		err, hint string
		doc       bool // the error names the document
	}{
		{[]string{"--config", config}, "took longer than the 200ms allowed", "fetch-timeout (keys at the top of " + config + ")", true},
		{[]string{"--timeout", "200ms", src}, "the build took longer than --timeout 200ms and was stopped; nothing was published", "--timeout", false},
	}
	for _, tt := range tests {
		t.Run(tt.flags[0], func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"build", "--base-url", "https://example.org/", "--out", out, "--previous", srv.URL + "/"}, tt.flags...)
			code, _, stderr := runCLI(t, context.Background(), args...)
			if code != exitFailure {
				t.Fatalf("exit %d, want %d\n%s", code, exitFailure, stderr)
			}
			if !strings.Contains(stderr, "rsgen: error: ") || !strings.Contains(stderr, tt.err) {
				t.Errorf("stderr lacks %q:\n%s", tt.err, stderr)
			}
			if tt.doc && !strings.Contains(stderr, srv.URL+"/.well-known/resourcesync") {
				t.Errorf("stderr does not name the document:\n%s", stderr)
			}
			if !strings.Contains(stderr, "rsgen: hint: ") || !strings.Contains(stderr[strings.Index(stderr, "rsgen: hint: "):], tt.hint) {
				t.Errorf("the hint does not name %s:\n%s", tt.hint, stderr)
			}
			if entries, _ := os.ReadDir(out); len(entries) > 0 {
				t.Errorf("%d files written to --out, want none", len(entries))
			}
		})
	}
}
