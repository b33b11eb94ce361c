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
	dirs, files := unread.Dirs, unread.Files
	if len(dirs)+len(files) == 0 {
		return found, Kept{}, nil
	}
	out, kept, err := j.mergeUnread(ctx, found, dirs, files)
	if err != nil {
		found.Close()
		if ctx.Err() != nil {
			return nil, kept, context.Cause(ctx)
		}
		return nil, kept, err
	}
	if kept.N == 0 {
		out.Close()
		return found, kept, nil
	}
	found.Close()
	return out, kept, nil
}

// mergeUnread streams the previous build's entries (see join) beside the
// resources the scan found, and spools them all with the previous entries
// of the files that could not be read or lie under a directory that could
// not be, which the scan did not find.
func (j *Join) mergeUnread(ctx context.Context, found *spill.ResourceSpool, dirs, files []string) (out *spill.ResourceSpool, kept Kept, err error) {
	it, err := j.Previous.iter(ctx)
	if err != nil {
		return nil, kept, err
	}
	scan, err := found.Iter()
	if err != nil {
		return nil, kept, err
	}
	if out, err = j.Spill.Resources(); err != nil {
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
	for it.Next() {
		if it.Cur.Foreign {
			break // keyless entries come last: none is a file
		}
		rel := it.Cur.Key
		if !unreadFile[rel] && !under(rel) {
			continue
		}
		if isFound, err := pass(rel, false); err != nil || isFound {
			if err != nil {
				return nil, kept, err
			}
			continue
		}
		p := &it.Cur.Resource
		r := spill.Resource{Path: rel, Loc: p.Loc, Length: p.Length, Modified: p.Lastmod, Hash: p.Hash, Type: p.Type, Kept: true}
		if err := out.Add(&r); err != nil {
			return nil, kept, err
		}
		if kept.N++; kept.N == 1 {
			kept.First = rel
		}
	}
	if err := it.Err(); err != nil {
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
