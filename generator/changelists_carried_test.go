package generator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/internal/text/units"
)

// The closed Change Lists of the previous build are copied into the stage
// when they are published again, not kept from when they were read: a list
// that is no longer what was read (the previous output published again
// meanwhile) fails the build with ErrPrevious and previous.ErrChanged, and
// the output is left as it was.
func TestCarriedChangeListChangedSinceRead(t *testing.T) {
	t.Parallel()
	tr, out := closedListsToCarry(t)
	const carriedList = docsDir + "/changelist-20240603T000000Z.xml"
	tr.write("n2.txt", "two 2", acTime("2024-06-04T01:00:00Z"))
	cfg := acConfig(tr.dir, out, acDay(5))
	cfg.Changes.Previous = out
	cfg.Limits.MaxEntries = 4
	p := filepath.Join(out, filepath.FromSlash(carriedList))
	cfg.createHook = func(name string) error {
		if name == carriedList {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(p, []byte(strings.Replace(string(b), "<url>", "<url> ", 1)), 0o644)
		}
		return nil
	}
	before := testenv.ReadTree(t, out)
	_, err := Build(context.Background(), cfg)
	if !errors.Is(err, errPrevious) || !errors.Is(err, previous.ErrChanged) || !strings.Contains(err.Error(), "changelist-20240603T000000Z.xml") {
		t.Fatalf("err = %v, want ErrPrevious and previous.ErrChanged naming the list", err)
	}
	changed := testenv.ReadTree(t, out)
	if !strings.Contains(changed[carriedList], "<url> ") {
		t.Fatal("the test did not change the list")
	}
	before[carriedList] = changed[carriedList]
	sameFiles(t, "the output after the failed build", changed, before)
	// Without the change, the same build copies the list as it is.
	cfg.createHook = nil
	mustBuild(t, cfg)
	if got := testenv.ReadTree(t, out)[carriedList]; got != changed[carriedList] {
		t.Errorf("the carried list was not copied byte for byte")
	}
}

// closedListsToCarry builds, as in TestChangeListTurnsIntoAnIndexAndBack,
// a Change List Index over closed lists, after the build of day 4.
func closedListsToCarry(t *testing.T) (*acTree, string) {
	t.Helper()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	for _, step := range []struct {
		day    int
		mutate func()
	}{
		{2, func() {
			tr.write("n1.txt", "one", acTime("2024-06-01T01:00:00Z"))
			tr.write("n2.txt", "two", acTime("2024-06-01T02:00:00Z"))
		}},
		{3, func() { tr.write("a.txt", "alpha 2", acTime("2024-06-02T01:00:00Z")) }},
		{4, func() {
			tr.write("n3.txt", "three", acTime("2024-06-03T01:00:00Z"))
			tr.write("a.txt", "alpha 3", acTime("2024-06-03T02:00:00Z"))
			tr.remove("n1.txt")
		}},
	} {
		step.mutate()
		cfg := acConfig(tr.dir, out, acDay(step.day))
		cfg.Changes.Previous = out
		cfg.Limits.MaxEntries = 4
		mustBuild(t, cfg)
	}
	if _, err := os.Stat(filepath.Join(out, docsDir, "changelist-20240603T000000Z.xml")); err != nil {
		t.Fatalf("no closed list to carry: %v", err)
	}
	return tr, out
}

// A closed Change List of the previous build with an entry whose length
// or hash is bad fails the build when it is published again, as a bad
// previous build naming the list: copied as it is (past the limits), by
// the check of the stage; with its changes written again in one open
// list, when they are, naming the line and the entry too. It is not
// judged once --changes-keep drops it.
func TestCarriedChangeListBadEntry(t *testing.T) {
	t.Parallel()
	const list = "changelist-20240603T000000Z.xml"
	for _, bad := range []struct {
		was, attr  string
		maxEntries int
		want       string
	}{
		{`length="[0-9]+"`, `length="abc"`, 4, "to be published again, is not valid"},
		{`length="[0-9]+"`, `length="abc"`, 0, list + ` line 7: the entry of ` + acBase + `n1.txt: length="abc" is not an integer`},
		{`hash="[^"]+"`, `hash="md5:zz"`, 0, list + ` line 7: the entry of ` + acBase + `n1.txt: hash token "md5:zz": the digest is not hex`},
	} {
		tr, out := closedListsToCarry(t)
		p := filepath.Join(out, docsDir, list)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		edited := regexp.MustCompile(bad.was).ReplaceAllString(string(b), bad.attr)
		if edited == string(b) {
			t.Fatal("the test did not change the list")
		}
		if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		tr.write("n2.txt", "two 2", acTime("2024-06-04T01:00:00Z"))
		cfg := acConfig(tr.dir, out, acDay(5))
		cfg.Changes.Previous = out
		cfg.Limits.MaxEntries = bad.maxEntries
		before := testenv.ReadTree(t, out)
		_, err = Build(context.Background(), cfg)
		if kindOf(err) != KindPrevious || !strings.Contains(err.Error(), list) || !strings.Contains(err.Error(), bad.want) {
			t.Fatalf("%s, MaxEntries %d: err = %v, want KindPrevious naming %s and %q", bad.attr, bad.maxEntries, err, list, bad.want)
		}
		sameFiles(t, "the output after the failed build", testenv.ReadTree(t, out), before)
		cfg.Changes.Keep = units.Duration(36 * time.Hour)
		mustBuild(t, cfg)
	}
}
