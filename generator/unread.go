package generator

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/hashing"
)

// keepUnread adds to the resources found by the scan the previous build's
// entries of what could not be read this time: the files under a directory
// that could not be read (dirs, published paths; "" for the root) and the
// files that could not be read or hashed. The scan did not find them, but
// they are not gone: each is kept as it was published, unchanged, rather
// than announced as deleted, which would make Destinations delete their
// copies. The problems are reported already, so the build exits with the
// partial status. A Resource Dump must package every resource of the
// Resource List, and these cannot be read: with one, such a build fails.
func (b *build) keepUnread(ctx context.Context, found *spill.ResourceSpool, dirs, files []string) (*spill.ResourceSpool, error) {
	prev := b.across.prev
	if prev == nil || len(dirs)+len(files) == 0 {
		return found, nil
	}
	out, kept, err := b.mergeUnread(ctx, found, dirs, files)
	if err != nil {
		found.Close()
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	if kept.n == 0 {
		out.Close()
		return found, nil
	}
	found.Close()
	if b.cfg.Dump.Enabled {
		out.Close()
		return nil, fmt.Errorf("%d resources published by the previous build could not be read (%s, …): the Resource Dump cannot package them, and leaving them out would announce them as deleted; publish again once they can be read",
			kept.n, printable(kept.first))
	}
	b.notice(fmt.Sprintf("%d resources that could not be read keep their entries of the previous build, unchanged", kept.n))
	return out, nil
}

// keptCount counts the resources keepUnread kept, and names the first.
type keptCount struct {
	n     int
	first string
}

// mergeUnread streams the previous build's entries (see joinPrevious)
// beside the resources the scan found, and spools them all with the
// previous entries of the files that could not be read or lie under a
// directory that could not be, which the scan did not find.
func (b *build) mergeUnread(ctx context.Context, found *spill.ResourceSpool, dirs, files []string) (out *spill.ResourceSpool, kept keptCount, err error) {
	it, err := b.across.prevEntries.iter(ctx)
	if err != nil {
		return nil, kept, err
	}
	scan, err := found.Iter()
	if err != nil {
		return nil, kept, err
	}
	if out, err = b.spill.Resources(); err != nil {
		return nil, kept, err
	}
	defer func() {
		if err != nil {
			out.Close()
		}
	}()
	unreadFile := make(map[string]bool, len(files))
	for _, f := range files {
		unreadFile[f] = true
	}
	under := func(rel string) bool {
		return slices.ContainsFunc(dirs, func(d string) bool { return d == "" || strings.HasPrefix(rel, d+"/") })
	}
	more := scan.Next()
	// pass spools the resources the scan found before rel, and reports
	// whether it found rel.
	pass := func(rel string, all bool) (bool, error) {
		for more && (all || scan.Cur.Path <= rel) {
			if !all && scan.Cur.Path == rel {
				return true, nil
			}
			if err := out.Add(&scan.Cur); err != nil {
				return false, err
			}
			more = scan.Next()
		}
		return false, nil
	}
	for it.next() {
		if it.foreign {
			break // keyless entries come last: none is a file
		}
		rel := it.key
		if !unreadFile[rel] && !under(rel) {
			continue
		}
		if isFound, err := pass(rel, false); err != nil || isFound {
			if err != nil {
				return nil, kept, err
			}
			continue
		}
		p := &it.res
		r := Resource{Path: rel, Loc: p.Loc, Length: p.Length, Modified: p.Lastmod, Hash: hashing.FormatTokens(p.Hash), Type: p.Type, Kept: true}
		if err := out.Add(&r); err != nil {
			return nil, kept, err
		}
		if kept.n++; kept.n == 1 {
			kept.first = rel
		}
	}
	if err := it.err(); err != nil {
		return nil, kept, err
	}
	if _, err := pass("", true); err != nil {
		return nil, kept, err
	}
	if err := scan.Err(); err != nil {
		return nil, kept, err
	}
	return out, kept, nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
