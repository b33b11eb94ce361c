package detect

import (
	"context"
	"slices"
	"strings"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
)

// Kept counts the resources KeepUnread kept, and names the first.
type Kept struct {
	N     int
	First string // its path
}

// KeepUnread adds to the resources found by the scan the previous build's
// entries of what could not be read this time: the files under a
// directory that could not be read (dirs, published paths; "" for the
// root) and the files that could not be read or hashed. The scan did not
// find them, but they are not gone: each is kept as it was published,
// unchanged (Resource.Kept, which Run leaves as it is), rather than
// announced as deleted, which would make Destinations delete their copies.
//
// It returns the resources, found or a new spool with the kept ones (found
// is closed then), and what it kept. On an error found is closed.
func (j *Join) KeepUnread(ctx context.Context, found *spill.ResourceSpool, unread report.Unread) (*spill.ResourceSpool, Kept, error) {
	if len(unread.Dirs)+len(unread.Files) == 0 {
		return found, Kept{}, nil
	}
	unreadFile := make(map[string]bool, len(unread.Files))
	for _, f := range unread.Files {
		unreadFile[f] = true
	}
	under := func(rel string) bool {
		return slices.ContainsFunc(unread.Dirs, func(d string) bool { return d == "" || strings.HasPrefix(rel, d+"/") })
	}
	var kept Kept
	out, err := j.walk(ctx, found, func(e *prevEntry, r *spill.Resource, out *spill.ResourceSpool) error {
		if r != nil || e.Foreign || !unreadFile[e.Key] && !under(e.Key) {
			return nil
		}
		p := &e.Resource
		if kept.N++; kept.N == 1 {
			kept.First = e.Key
		}
		return out.Add(&spill.Resource{Path: e.Key, Loc: p.Loc, Length: p.Length, Modified: p.Lastmod, Hash: p.Hash, Type: p.Type, Kept: true})
	})
	switch {
	case err != nil:
		found.Close()
		if ctx.Err() != nil {
			return nil, kept, context.Cause(ctx)
		}
		return nil, kept, err
	case kept.N == 0:
		out.Close()
		return found, kept, nil
	}
	found.Close()
	return out, kept, nil
}
