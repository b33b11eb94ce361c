package validate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The corpus: testdata/broken/RULE[--VARIANT].xml are single documents
// that each break RULE and nothing else that is an error;
// testdata/broken-sites/RULE/ are directories laid out as rsgen writes
// them (a resources/ directory in one makes it an audit). The spec's
// examples are in testdata/examples.

// rulesTestedElsewhere are rules a file cannot show, with the test that does.
var rulesTestedElsewhere = map[string]string{
	RuleLimitEntries:   "TestLimits",
	RuleLimitBytes:     "TestLimits",
	RuleFetch:          "TestSiteOverHTTP",
	RuleContentType:    "TestSiteOverHTTP",
	RuleWellKnown:      "TestSiteOverHTTP",
	RuleLimitDocuments: "TestSiteOverHTTP",
	RuleAuditType:      "TestSiteOverHTTP",
}

// ruleOf is the rule a corpus file or directory is named after.
func ruleOf(name string) string {
	r, _, _ := strings.Cut(strings.TrimSuffix(name, ".xml"), "--")
	return r
}

func corpusOptions(path string) Options {
	var opts Options
	if info, err := os.Stat(filepath.Join(path, "resources")); err == nil && info.IsDir() {
		opts.Resources = filepath.Join(path, "resources")
	}
	return opts
}

// checkFailsFor asserts that rep breaks rule: with its severity, and with
// no error of another rule.
func checkFailsFor(t *testing.T, rep *Report, rule string) {
	t.Helper()
	r, ok := ruleIndex[rule]
	if !ok {
		t.Fatalf("no rule %q: name corpus entries after a rule ID", rule)
	}
	found := false
	for _, f := range rep.Findings {
		if f.Rule == rule && f.Severity == r.Severity {
			found = true
		}
		if f.Severity == Error && f.Rule != rule {
			t.Errorf("unexpected error of another rule: %s", f)
		}
	}
	if !found {
		t.Errorf("no %s finding of rule %s; findings: %v", r.Severity, rule, rep.Findings)
	}
	switch r.Severity {
	case Error:
		if rep.Valid(false) {
			t.Errorf("valid, but rule %s is an error", rule)
		}
	case Warning:
		if !rep.Valid(false) || rep.Valid(true) {
			t.Errorf("a warning must pass (got %v) and fail --strict (got %v)", rep.Valid(false), rep.Valid(true))
		}
	}
}

func TestBrokenDocuments(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/broken/*.xml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in testdata/broken (%v)", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			rep, err := Path(context.Background(), f, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkFailsFor(t, rep, ruleOf(filepath.Base(f)))
		})
	}
}

func TestBrokenSites(t *testing.T) {
	t.Parallel()
	dirs, err := filepath.Glob("testdata/broken-sites/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no corpus in testdata/broken-sites (%v)", err)
	}
	for _, d := range dirs {
		t.Run(filepath.Base(d), func(t *testing.T) {
			rep, err := Path(context.Background(), d, corpusOptions(d))
			if err != nil {
				t.Fatal(err)
			}
			checkFailsFor(t, rep, ruleOf(filepath.Base(d)))
		})
	}
}

// TestCorpusCoversEveryRule fails when a rule has no broken document, site
// or test of its own: a rule nothing shows failing is a rule nobody knows
// works.
func TestCorpusCoversEveryRule(t *testing.T) {
	t.Parallel()
	covered := map[string]bool{}
	for _, pattern := range []string{"testdata/broken/*.xml", "testdata/broken-sites/*"} {
		names, _ := filepath.Glob(pattern)
		for _, n := range names {
			rule := ruleOf(filepath.Base(n))
			if _, ok := ruleIndex[rule]; !ok {
				t.Errorf("%s is named after no rule", n)
			}
			covered[rule] = true
		}
	}
	for _, r := range Rules() {
		if !covered[r.ID] && rulesTestedElsewhere[r.ID] == "" {
			t.Errorf("rule %s has no case in testdata/broken or testdata/broken-sites", r.ID)
		}
	}
}

func TestSpecExamples(t *testing.T) {
	t.Parallel()
	rep, err := Path(context.Background(), "testdata/examples", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rep.Documents); n != 30 {
		t.Errorf("%d documents checked, want the 29 examples and .well-known/resourcesync", n)
	}
	if !rep.Valid(false) {
		t.Errorf("the spec's examples fail: %v", rep.Findings)
	}
	// Examples 1-5 and 8 have no up link, which the spec requires: the one
	// kind of warning they give.
	for _, f := range rep.Findings {
		if f.Rule != RuleUp {
			t.Errorf("unexpected finding %s", f)
		}
	}
	for _, name := range []string{"resourcesync_ex_1.xml", "resourcesync_ex_2.xml", "resourcesync_ex_3.xml", "resourcesync_ex_4.xml", "resourcesync_ex_5.xml", "resourcesync_ex_8.xml"} {
		if !slices.ContainsFunc(rep.Findings, func(f Finding) bool { return filepath.Base(f.Document) == name }) {
			t.Errorf("%s: no warning for its missing up link", name)
		}
	}
}

// TestArchiveSpecExamples: the examples of ResourceSync Archives are
// valid, without a warning.
func TestArchiveSpecExamples(t *testing.T) {
	t.Parallel()
	rep, err := Path(context.Background(), "testdata/archive-examples", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rep.Documents); n != 7 || len(rep.Findings) > 0 {
		t.Errorf("%d documents checked (want 7), findings %v", n, rep.Findings)
	}
}

func TestExample27(t *testing.T) {
	t.Parallel()
	const ex27 = "testdata/resourcesync_ex_27-nonhex-hash.xml"
	rep, err := Path(context.Background(), ex27, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkFailsFor(t, rep, RuleHash)
	if rep.Errors != 4 {
		t.Errorf("%d errors, want one per digest (4)", rep.Errors)
	}
	rep, err = Path(context.Background(), ex27, Options{LenientHash: true})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Valid(false) || rep.Warnings != 4 {
		t.Errorf("with LenientHash: valid %v with %d warnings, want valid with 4: %v", rep.Valid(false), rep.Warnings, rep.Findings)
	}
}

func TestValidSiteWithAudit(t *testing.T) {
	t.Parallel()
	const site = "testdata/sites/valid"
	rep, err := Path(context.Background(), site, corpusOptions(site))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) > 0 {
		t.Errorf("findings on a valid site: %v", rep.Findings)
	}
	if rep.Audited != 2 {
		t.Errorf("%d resources audited, want 2 (a resource and a package)", rep.Audited)
	}
	if n := len(rep.Documents); n != 5 {
		t.Errorf("%d documents, want 5: %v", n, rep.Documents)
	}
}

// TestArchiveSite: a site with a Change List Archive (ResourceSync
// Archives) is followed through the archive to the lists it keeps, and is
// valid; an archived list listed for another capability is not.
func TestArchiveSite(t *testing.T) {
	t.Parallel()
	const site = "testdata/sites/archive"
	rep, err := Path(context.Background(), site, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) > 0 {
		t.Errorf("findings on a valid site: %v", rep.Findings)
	}
	if n := len(rep.Documents); n != 7 {
		t.Errorf("%d documents, want 7 (2 archived lists): %v", n, rep.Documents)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(site)); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(dir, "resourcesync", "changelist-archive.xml")
	b, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.Replace(string(b), "archive/changelist-20240102T000000Z.xml", "resourcelist.xml", 1))
	if err := os.WriteFile(archive, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Path(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(rep.Findings), "is a Resource List; a Change List Archive lists Change Lists") {
		t.Errorf("an archive listing a Resource List: %v", rep.Findings)
	}

	// The same list twice.
	b = []byte(strings.Replace(string(b), "resourcelist.xml", "archive/changelist-20240103T000000Z.xml", 1))
	if err := os.WriteFile(archive, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if rep, err = Path(context.Background(), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if rep.ByRule[RuleDuplicateLoc] != 1 {
		t.Errorf("an archive listing a list twice: %v", rep.Findings)
	}
}

// TestDocsListEveryRule keeps docs/VALIDATE.md in step with the catalogue.
func TestDocsListEveryRule(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/VALIDATE.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Rules() {
		if !strings.Contains(string(doc), "| `"+r.ID+"` | "+string(r.Severity)+" |") {
			t.Errorf("docs/VALIDATE.md does not list rule %s (%s) in its table", r.ID, r.Severity)
		}
	}
}
