package validate_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/internal/text/units"
	"github.com/rsgen/rsgen/validate"
)

// An archived Resource List describes the snapshot of its time, not
// today's files: --resources checks it as a document and audits only the
// live list (issue 22, item 15: every archived list failed the audit
// once a file had changed). A real mismatch in the live list still fails.
func TestAuditLeavesArchivedListsAlone(t *testing.T) {
	t.Parallel()
	src, out := t.TempDir(), t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(src, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "alpha")
	write("b.txt", "beta")
	base, err := generator.ParseBaseURL("https://example.org/")
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	build := func(at time.Time, previous string) {
		t.Helper()
		cfg := generator.Config{Source: src, Out: out, BaseURL: base, At: at, FixedTime: true, Jobs: 2,
			Changes: generator.Changes{Keep: units.Duration(30 * 24 * time.Hour)}}
		if previous != "" {
			cfg.Changes.Previous = previous
			cfg.Changes.Archive.Keep = units.Duration(365 * 24 * time.Hour)
			cfg.Changes.Archive.ResourceLists = units.Duration(time.Second)
		}
		if _, err := generator.Build(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
	}
	build(day, "")
	write("a.txt", "alpha, changed")
	build(day.Add(24*time.Hour), out)
	write("b.txt", "beta, changed")
	build(day.Add(48*time.Hour), out)
	archived, _ := filepath.Glob(filepath.Join(out, "resourcesync", "archive", "resourcelist-*.xml"))
	if len(archived) != 2 {
		t.Fatalf("%d archived Resource Lists, want 2: %v", len(archived), archived)
	}

	rep, err := validate.Path(context.Background(), out, validate.Options{Resources: src})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Rule != validate.RuleAuditType { // Go's types depend on the machine's mime.types
			t.Errorf("finding %s", f)
		}
	}
	if rep.Audited != 2 {
		t.Errorf("%d resources audited, want the 2 of the live Resource List", rep.Audited)
	}

	write("a.txt", "alpha, changed after the build")
	// An archive that names the live list too does not take it out of
	// the audit.
	archive := filepath.Join(out, "resourcesync", "resourcelist-archive.xml")
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	live := "  <url>\n    <loc>https://example.org/resourcesync/resourcelist.xml</loc>\n    <rs:md at=\"2024-06-03T00:00:00Z\"/>\n  </url>\n</urlset>"
	forged := strings.Replace(string(data), "</urlset>", live, 1)
	if err := os.WriteFile(archive, []byte(forged), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = validate.Path(context.Background(), out, validate.Options{Resources: src})
	if err != nil {
		t.Fatal(err)
	}
	var audit []string
	for _, f := range rep.Findings {
		if strings.HasPrefix(string(f.Rule), "audit-") && f.Rule != validate.RuleAuditType {
			audit = append(audit, f.String())
		}
	}
	if len(audit) == 0 || !strings.Contains(strings.Join(audit, "\n"), "resourcesync/resourcelist.xml") {
		t.Errorf("a file changed after the build: want a finding of the audit in resourcelist.xml, got %q", audit)
	}
	for _, a := range audit {
		if strings.Contains(a, "archive/") {
			t.Errorf("an archived list was audited against today's files: %s", a)
		}
	}
}
