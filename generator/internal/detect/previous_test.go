package detect

import (
	"context"
	"reflect"
	"testing"

	"github.com/rsgen/rsgen/generator/internal/spill/spilltest"
)

// A previous Resource List published in another order than its paths (and
// with a loc outside the base URL first) is spooled in the order of the
// paths, the entries with no path last.
func TestSpoolPreviousSorts(t *testing.T) {
	t.Parallel()
	area := spilltest.Area(t)
	p := spoolOf(t, area, writePrevious(t,
		entry{"https://other.example/x", published, sha("x"), 1},
		entry{"c/d.txt", published, sha("d"), 1},
		entry{"a.txt", published, sha("a"), 1},
		entry{"c.txt", published, sha("c"), 1},
		entry{"b%20c.txt", published, sha("b c"), 3},
	))
	it, err := p.iter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []prevEntry
	for it.Next() {
		got = append(got, prevEntry{Key: it.Cur.Key, Foreign: it.Cur.Foreign})
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	want := []prevEntry{{Key: "a.txt"}, {Key: "b c.txt"}, {Key: "c.txt"}, {Key: "c/d.txt"}, {Foreign: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries %+v, want %+v", got, want)
	}
	if p.Len() != 5 {
		t.Errorf("Len() = %d, want 5", p.Len())
	}
}
