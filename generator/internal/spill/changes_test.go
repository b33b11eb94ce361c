package spill

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/storage/stage"
)

// The changes of a build are sorted on disk: more of them than the sort's
// memory holds, added in any order, read back in the order of a sort in
// memory, by datetime and then by URL (once the scenario of a whole build,
// generator's TestChangesSortSpills).
func TestChangeSetSortSpills(t *testing.T) {
	t.Parallel()
	kinds := []string{rsxml.ChangeCreated, rsxml.ChangeUpdated, rsxml.ChangeDeleted}
	var want []Change
	for i := range 2300 {
		c := Change{Change: kinds[i%3], Datetime: time.Date(2024, 6, 1, 0, i%50, 0, i%7, time.UTC)}
		c.Path, c.Loc, c.Length = fmt.Sprintf("d%d/f%04d.txt", i%13, i), fmt.Sprintf("https://example.org/d%d/f%04d.txt", i%13, i), int64(i)
		if c.Change != rsxml.ChangeDeleted {
			c.Hash, c.Type = []hashing.Token{{Alg: "md5", Digest: []byte{byte(i)}}}, "text/plain"
		}
		want = append(want, c)
	}
	added := slices.Clone(want)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(added), func(i, j int) { added[i], added[j] = added[j], added[i] })
	slices.SortFunc(want, func(a, b Change) int { return cmp.Or(a.Datetime.Compare(b.Datetime), cmp.Compare(a.Loc, b.Loc)) })

	for _, mem := range []int{DefaultSortMemory, 8 << 10} {
		stg, err := stage.New(t.TempDir(), false)
		if err != nil {
			t.Fatal(err)
		}
		a := &Area{Stage: stg, SortMemory: mem}
		s, err := a.Changes()
		if err != nil {
			t.Fatal(err)
		}
		for i := range added {
			if err := s.Add(&added[i]); err != nil {
				t.Fatal(err)
			}
		}
		if spilled := s.sorter.Runs() > 1; spilled != (mem < DefaultSortMemory) {
			t.Errorf("sort memory %d: %d runs on disk", mem, s.sorter.Runs())
		}
		if err := s.Finish(a); err != nil {
			t.Fatal(err)
		}
		var got []Change
		if err := s.Each(func(c *Change) error { got = append(got, *c); return nil }); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("sort memory %d: the changes read back differ from those sorted in memory", mem)
		}
		if s.Len() != len(want) || s.Created != 767 || s.Updated != 767 || s.Deleted != 766 || !s.Datetime(5).Equal(want[5].Datetime.Truncate(time.Second)) {
			t.Errorf("sort memory %d: %d changes (%d, %d, %d), datetime %v", mem, s.Len(), s.Created, s.Updated, s.Deleted, s.Datetime(5))
		}
		a.Remove()
		stg.Discard()
	}
}
