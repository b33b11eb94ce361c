package validate_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/validate"
)

// oddNames are file names whose URLs are easy to get wrong: a "?" or "#"
// that would start a query or fragment, a "%" that starts no escape, a
// control character, sub-delimiters, non-ASCII and a space.
var oddNames = []string{"new\nline.txt", "what?.txt", "a#b.txt", "p%zz.txt", "tab\t.txt", "a+b=c&d$e:f@g.txt", "café é.txt", "plain.txt"}

// oddSite builds a site of oddNames in place, with its documents.
func oddSite(t *testing.T, base string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range oddNames {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("content of "+n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := generator.ParseBaseURL(base)
	if err != nil {
		t.Fatal(err)
	}
	cfg := generator.Config{Source: dir, BaseURL: b, At: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), FixedTime: true}
	if _, err := generator.Build(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	return dir
}

// checkAuditedAll fails unless rep audited every one of oddNames and
// found nothing wrong.
func checkAuditedAll(t *testing.T, rep *validate.Report) {
	t.Helper()
	for _, f := range rep.Findings {
		if f.Rule != validate.RuleAuditType { // Go's types depend on the machine's mime.types
			t.Errorf("finding %s", f)
		}
	}
	if rep.Audited != len(oddNames) {
		t.Errorf("%d resources audited, want %d", rep.Audited, len(oddNames))
	}
}

// TestAuditOddNamesInDirectory: --resources finds each file by the URL
// the build gave it (issue 12, item 2: "?" and "#" were reported missing).
func TestAuditOddNamesInDirectory(t *testing.T) {
	t.Parallel()
	dir := oddSite(t, "https://example.org/")
	rep, err := validate.Path(context.Background(), dir, validate.Options{Resources: dir})
	if err != nil {
		t.Fatal(err)
	}
	checkAuditedAll(t, rep)
}

// TestAuditOddNamesOverHTTP: --fetch requests each resource (issue 12,
// item 3: "%zz" and a tab were skipped without a request).
func TestAuditOddNamesOverHTTP(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String() + "/"
	dir := oddSite(t, base)
	h, err := hosting.NewHandler(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv.Config.Handler = h
	srv.Start()
	defer srv.Close()
	rep, err := validate.Site(context.Background(), base, validate.Options{Fetch: true})
	if err != nil {
		t.Fatal(err)
	}
	checkAuditedAll(t, rep)
}
