package exports

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/storage/extsort"
	"github.com/rsgen/rsgen/zipdump"
)

// Records of one file read with different bytes (it changed between the
// reads) are not the same bitstream: all but the first are left out.
// So are records past what one manifest may list.
func TestDumpSeqGroups(t *testing.T) {
	t.Parallel()
	x := &Source{dump: extsort.New(t.TempDir(), 1<<20)}
	defer x.dump.Close()
	add := func(path string, line int, hash string) {
		r := spill.Resource{Loc: fmt.Sprintf("https://example.org/%d", line), Length: 5, Hash: []hashing.Token{{Alg: "sha-256", Digest: []byte(hash)}}, Path: path}
		key := appendKey(nil, path, line)
		if err := x.dump.Add(key, appendItem(nil, &r, 0, true)); err != nil {
			t.Fatal(err)
		}
	}
	add("b.txt", 3, "sha-256:bb")
	add("a.txt", 9, "sha-256:a2") // other bytes than line 2's
	add("a.txt", 2, "sha-256:aa")
	add("a.txt", 5, "sha-256:aa")
	add("a.txt", 7, "sha-256:aa") // past max
	add("c.txt", 1, "sha-256:cc")
	x.skipped = map[int]bool{1: true}
	s := &dumpSeq{s: x, max: 2}
	var names []string
	if err := s.Names(func(n string) bool { names = append(names, n); return true }); err != nil {
		t.Fatal(err)
	}
	var items []string
	err := s.Items(func(it *zipdump.Item) bool {
		locs := []string{it.Entry.Loc}
		for _, e := range it.Also {
			locs = append(locs, e.Loc)
		}
		items = append(items, it.Name+"="+strings.Join(locs, ","))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, l := range s.left {
		left = append(left, fmt.Sprintf("%d %v", l.line, l.err))
	}
	if !slices.Equal(names, []string{"a.txt", "b.txt"}) ||
		!slices.Equal(items, []string{"a.txt=https://example.org/2,https://example.org/5", "b.txt=https://example.org/3"}) ||
		len(left) != 2 || !strings.HasPrefix(left[0], "7 the file is that of more than 2 records") || !strings.HasPrefix(left[1], "9 changed after it was hashed: it was read with other bytes for the record at line 2") {
		t.Errorf("names %q\nitems %q\nleft %q", names, items, left)
	}
}
