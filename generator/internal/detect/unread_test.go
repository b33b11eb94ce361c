package detect

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/internal/spill/spilltest"
	"github.com/rsgen/rsgen/generator/report"
)

// The previous entries of the files that could not be read, or lie under
// a directory that could not be, are kept as they were published, among
// the resources found; the join then finds them unchanged.
func TestKeepUnread(t *testing.T) {
	t.Parallel()
	j := newJoin(t,
		entry{"a.txt", published, sha("a"), 1},
		entry{"b.txt", published, sha("b"), 1},
		entry{"dir/c.txt", published, sha("c"), 1},
		entry{"dir/d.txt", published, sha("d"), 1},
		entry{"e.txt", published, sha("e"), 1},
	)
	found := func() *spill.ResourceSpool {
		return spoolResources(t, j.Spill,
			spill.Resource{Path: "a.txt", Loc: base + "a.txt", Length: 1, Hash: digests(sha("a")), Modified: day2},
			spill.Resource{Path: "dir/d.txt", Loc: base + "dir/d.txt", Length: 1, Hash: digests(sha("d")), Modified: day2},
			spill.Resource{Path: "e.txt", Loc: base + "e.txt", Length: 1, Hash: digests(sha("e")), Modified: day2},
		)
	}
	in := found()
	if out, kept, err := j.KeepUnread(context.Background(), in, report.Unread{}); out != in || kept != (Kept{}) || err != nil {
		t.Fatalf("nothing unread: KeepUnread returned %p, %+v, %v; want the same spool", out, kept, err)
	}
	out, kept, err := j.KeepUnread(context.Background(), found(), report.Unread{Dirs: []string{"dir"}, Files: []string{"b.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Kept{N: 2, First: "b.txt"}); kept != want {
		t.Errorf("kept %+v, want %+v", kept, want)
	}
	type res struct {
		path     string
		modified time.Time
		kept     bool
	}
	var got []res
	for _, r := range spilltest.Resources(t, out) {
		got = append(got, res{r.Path, r.Modified, r.Kept})
	}
	want := []res{{"a.txt", day2, false}, {"b.txt", published, true}, {"dir/c.txt", published, true}, {"dir/d.txt", day2, false}, {"e.txt", day2, false}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("resources\n%v\nwant\n%v", got, want)
	}
	_, set, err := j.Run(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if set.Len() != 0 {
		t.Errorf("changes %v, want none", changes(t, set))
	}
}
