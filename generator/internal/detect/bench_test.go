package detect

import (
	"context"
	"fmt"
	"testing"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/internal/spill/spilltest"
)

// BenchmarkJoinRun joins 50,000 resources with as many previous entries:
// one in ten updated, one in a hundred created and deleted, the rest
// unchanged. Each run spools the resources again, as the scan does.
func BenchmarkJoinRun(b *testing.B) {
	const n = 50000
	entries := make([]entry, 0, n)
	rs := make([]spill.Resource, 0, n)
	for i := range n {
		path := fmt.Sprintf("dir%03d/file%06d.txt", i/500, i)
		if i%100 != 1 {
			entries = append(entries, entry{path, published, sha(path), int64(len(path))})
		}
		if i%100 == 2 {
			continue
		}
		content := path
		if i%10 == 3 {
			content += "!"
		}
		rs = append(rs, spill.Resource{Path: path, Loc: base + path, Length: int64(len(content)), Hash: digests(sha(content)), Modified: day2, Type: "text/plain"})
	}
	j := newJoin(b, entries...)
	j.Notice = func(string) {}
	if _, err := j.Previous.iter(context.Background()); err != nil { // once the spool is complete
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		out, changes, err := j.Run(context.Background(), spilltest.Spool(b, j.Spill, rs))
		if err != nil {
			b.Fatal(err)
		}
		out.Close()
		changes.Close()
	}
}
