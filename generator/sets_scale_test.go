package generator

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/rsgen/rsgen/internal/testenv"
)

// TestSetsShareASource: sets that share a source, each including its own
// part of it, walk their part, not the whole source each: each lists its
// own directory only (the walk starts there), not the shared root, whose
// listing grows with the sets, nor the other sets' parts.
func TestSetsShareASource(t *testing.T) {
	t.Parallel()
	const n = 40
	src := t.TempDir()
	for i := range n {
		testenv.WriteFile(t, src, fmt.Sprintf("s%d/f.txt", i), fmt.Sprint(i))
	}
	out := t.TempDir()
	site := Site{Out: out, DocsURL: mustBaseURL(t, acBase)}
	var listed atomic.Int64
	for i := range n {
		c := acConfig(src, "", acDay(1))
		c.Set, c.BaseURL = fmt.Sprintf("s%d", i), mustBaseURL(t, acBase)
		c.Filter.Include = []string{fmt.Sprintf("s%d/**", i)}
		c.readDir = func(string) error { listed.Add(1); return nil }
		site.Sets = append(site.Sets, c)
	}
	rep := mustBuildSite(t, site)
	for i, r := range rep.Sets {
		if r.Files != 1 {
			t.Errorf("set %d published %d files, want 1", i, r.Files)
		}
	}
	if got := listed.Load(); got == 0 || got > n {
		t.Errorf("%d directories listed for %d sets of one directory each: want one a set, not the shared source's root too", got, n)
	}
}
