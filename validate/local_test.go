package validate

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"testing"
)

// TestPathInParallel: the documents of a directory are checked several at
// once, but the report is the one of checking them in turn, and
// MaxDocuments keeps the first of them.
func TestPathInParallel(t *testing.T) {
	t.Parallel()
	const dir = "testdata/broken"
	rels, err := documentFiles(dir)
	if err != nil || len(rels) < 10 {
		t.Fatalf("%s: %d documents, %v", dir, len(rels), err)
	}
	check := func(procs, maxDocs int) *Report {
		t.Helper()
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		rep, err := Path(context.Background(), dir, Options{MaxDocuments: maxDocs})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	one := check(1, 0)
	if len(one.Documents) != len(rels) || one.Errors == 0 {
		t.Fatalf("%d documents, %d errors: the corpus is broken on purpose", len(one.Documents), one.Errors)
	}
	for _, procs := range []int{2, 4, 16} {
		if got := check(procs, 0); !reflect.DeepEqual(got, one) {
			t.Errorf("with GOMAXPROCS %d, the report differs from that of one at a time", procs)
		}
	}
	few := check(4, 5)
	if len(few.Documents) != 5 || !reflect.DeepEqual(few.Documents, one.Documents[:5]) {
		t.Errorf("MaxDocuments 5: documents %v, want %v", few.Documents, one.Documents[:5])
	}
	for _, f := range few.Findings {
		if !slices.Contains(few.Documents, f.Document) {
			t.Errorf("finding of a document left out: %s", f)
		}
	}
}

func TestSinkMerge(t *testing.T) {
	t.Parallel()
	s, o := newSink(), newSink()
	for range MaxPerRule - 3 {
		s.add("a.xml", 1, RuleLoc, "in s")
	}
	for range 5 {
		o.add("a.xml", 2, RuleLoc, "in o")
	}
	o.add("b.xml", 3, RuleUp, "a warning")
	s.merge(o)
	rep := s.report()
	if rep.Errors != MaxPerRule+2 || rep.Warnings != 1 || rep.ByRule[RuleLoc] != MaxPerRule+2 {
		t.Errorf("counts: %d errors, %d warnings, %v", rep.Errors, rep.Warnings, rep.ByRule)
	}
	// MaxPerRule findings of a.xml and the rule, a summary of the others,
	// and b.xml's.
	if len(rep.Findings) != MaxPerRule+2 {
		t.Errorf("%d findings, want %d: %v", len(rep.Findings), MaxPerRule+2, rep.Findings)
	}
}

// Document finds in one document what Path finds in it as a file, for
// every document of the broken corpus.
func TestDocumentAsPath(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/broken/*.xml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, f := range files {
		want, err := Path(context.Background(), f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		got := Document(f, r)
		r.Close()
		if !slices.Equal(got.Findings, want.Findings) || got.Errors != want.Errors {
			t.Errorf("%s: Document finds %v, Path %v", f, got.Findings, want.Findings)
		}
	}
}
