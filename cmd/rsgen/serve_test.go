package main

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/testenv"
)

// TestListenAddr: a bare port, or a port without a host, listens on this
// machine only; other machines are reached only when asked for by name.
func TestListenAddr(t *testing.T) {
	for in, want := range map[string]string{
		"8003":           "127.0.0.1:8003",
		":8003":          "127.0.0.1:8003",
		"0":              "127.0.0.1:0",
		"127.0.0.1:8000": "127.0.0.1:8000",
		"localhost:8003": "localhost:8003",
		"0.0.0.0:8003":   "0.0.0.0:8003",
		"[::1]:8003":     "[::1]:8003",
		"[::]:8003":      "[::]:8003",
		"":               "",
		"localhost":      "",
		"127.0.0.1":      "",
		"99999":          "",
		":http":          "",
		"8003:":          "",
	} {
		got, err := listenAddr(in)
		if want == "" && err == nil || want != "" && (err != nil || got != want) {
			t.Errorf("listenAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestServeContent: built with --out apart from SOURCE, the build says so
// and names the command that previews both; serve --content then serves
// the files the documents list, and --addr takes a bare port.
func TestServeContent(t *testing.T) {
	clearEnv(t)
	src := testenv.CopySite(t, siteMtime)
	out := filepath.Join(t.TempDir(), "public")
	code, _, stderr := runCLI(t, context.Background(), "build", "--base-url", "http://127.0.0.1:8000/", "--out", out, src)
	hint := "rsgen: notice: " + out + " holds the documents, not the files of " + src + "; to preview both: rsgen serve --content " + src + " " + out + "\n"
	if code != exitOK || !strings.Contains(stderr, hint) {
		t.Fatalf("build: exit %d, want 0 and %q:\n%s", code, hint, stderr)
	}
	if _, _, stderr := runCLI(t, context.Background(), "build", "--base-url", "http://127.0.0.1:8000/", src); strings.Contains(stderr, "holds the documents") {
		t.Errorf("a build into SOURCE says it holds no files:\n%s", stderr)
	}
	if code, _, stderr := runCLI(t, context.Background(), "serve", "--content", filepath.Join(src, "nope"), out); code != exitUsage || !strings.Contains(stderr, "--content") {
		t.Errorf("--content of a missing directory: exit %d:\n%s", code, stderr)
	}
	if code, _, stderr := runCLI(t, context.Background(), "serve", "--addr", "localhost", out); code != exitUsage || !strings.Contains(stderr, "rsgen: hint: for example --addr 8001") {
		t.Errorf("--addr without a port: exit %d:\n%s", code, stderr)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, serr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"rsgen", "serve", "--addr", "0", "--content", src, out}, &stdout, &serr)
	}()
	addr := regexp.MustCompile(`serving .* at (http://127\.0\.0\.1:\d+/)`)
	var base string
	for i := 0; i < 500 && base == ""; i++ {
		if m := addr.FindStringSubmatch(serr.String()); m != nil {
			base = m[1]
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if base == "" {
		t.Fatalf("serve did not start: %s", serr.String())
	}
	for path, want := range map[string]string{"articles/first-article.html": "<", "resourcesync/capabilitylist.xml": "capabilitylist", "": "<html"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			t.Errorf("GET /%s: HTTP %d, want 200 with %q", path, resp.StatusCode, want)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit %d after Ctrl-C: %s", code, serr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
}
