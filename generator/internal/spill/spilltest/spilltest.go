package spilltest

import (
	"testing"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/internal/storage/stage"
)

// Area is a spill area in a stage of a temporary directory, both removed
// when the test ends.
func Area(t testing.TB) *spill.Area {
	t.Helper()
	stg, err := stage.New(t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stg.Discard)
	area := &spill.Area{Stage: stg}
	t.Cleanup(func() {
		if err := area.Remove(); err != nil {
			t.Error(err)
		}
	})
	return area
}

// Resources returns the resources of s, in its order; s may be read
// again (the spill area closes it).
func Resources(t testing.TB, s *spill.ResourceSpool) []spill.Resource {
	t.Helper()
	var out []spill.Resource
	if err := s.Each(func(r *spill.Resource) error { out = append(out, r.Clone()); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// Spool spools resources, sorted by path, in area.
func Spool(t testing.TB, area *spill.Area, resources []spill.Resource) *spill.ResourceSpool {
	t.Helper()
	s, err := area.Resources()
	if err != nil {
		t.Fatal(err)
	}
	for i := range resources {
		if err := s.Add(&resources[i]); err != nil {
			t.Fatal(err)
		}
	}
	return s
}
