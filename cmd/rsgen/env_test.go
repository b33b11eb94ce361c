package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/testenv"
)

// callerEnv reports whether the environment variable k is one rsgen (or a
// library it calls) reads, so that a test must not inherit it from whoever
// runs `go test`: every RSGEN_* variable, SOURCE_DATE_EPOCH, and the proxy
// variables net/http reads for --previous URL. RSGEN_LONG_TESTS is the
// tests' own.
func callerEnv(k string) bool {
	if k == testenv.LongEnv {
		return false
	}
	if strings.HasPrefix(k, "RSGEN_") {
		return true
	}
	switch strings.ToUpper(k) {
	case envSourceDateEpoch, "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY":
		return true
	}
	return false
}

// clearCallerEnv (called by TestMain) clears the caller's environment of what rsgen reads, before any
// test runs (and before net/http caches its proxy settings); tests that
// want a variable set it with t.Setenv.
func clearCallerEnv() {
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if callerEnv(k) {
			os.Unsetenv(k)
		}
	}
}

// TestCallerEnvironmentIgnored runs this package's CLI tests again in a
// child process whose environment sets every variable rsgen reads to
// something that would break them: they must pass all the same.
func TestCallerEnvironmentIgnored(t *testing.T) {
	hostile := []string{
		"RSGEN_BASE_URL" + "=https://env.example.net/elsewhere/",
		"RSGEN_DOCS_URL" + "=https://docs.example.net/",
		"RSGEN_HASH" + "=md5",
		envSourceDateEpoch + "=1",
		"RSGEN_PREVIOUS" + "=/nonexistent",
		"RSGEN_CACHE" + "=/nonexistent/cache",
		"RSGEN_SOMETHING_NEW=1",
		"HTTP_PROXY=http://127.0.0.1:9", "HTTPS_PROXY=http://127.0.0.1:9", "http_proxy=http://127.0.0.1:9",
	}
	for _, kv := range hostile {
		k, _, _ := strings.Cut(kv, "=")
		if !callerEnv(k) {
			t.Fatalf("%s is not cleared", k)
		}
	}
	// The child does not run this test again. A sample that reads each variable: the CLI table, the environment
	// tests, --previous, --cache, a dump and an export.
	cmd := exec.Command(os.Args[0], "-test.count=1",
		"-test.run=^(TestCLI|TestCLIEnvironment|TestBuildWithPrevious|TestBuildWithCache|TestBuildFirstBuildOK|TestBuildResourceDumpFlags|TestCLIExport)$")
	cmd.Env = append(os.Environ(), hostile...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the tests fail when the caller's environment sets %q: %v\n%s", hostile, err, out)
	}
	if !strings.Contains(string(out), "PASS") {
		t.Fatalf("the child ran no tests:\n%s", out)
	}
}
