package generator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/testenv"
)

// The closed Change Lists of the previous build are copied into the stage
// when they are published again, not kept from when they were read: a list
// that is no longer what was read (the previous output published again
// meanwhile) fails the build with ErrPrevious and previous.ErrChanged, and
// the output is left as it was.
func TestCarriedChangeListChangedSinceRead(t *testing.T) {
	t.Parallel()
	tr := acNewTree(t, acFiles, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	// As in TestChangeListTurnsIntoAnIndexAndBack: an index over closed
	// lists after the build of day 4.
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
	const carriedList = docsDir + "/changelist-20240603T000000Z.xml"
	if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(carriedList))); err != nil {
		t.Fatalf("no closed list to carry: %v", err)
	}
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
