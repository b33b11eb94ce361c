package detect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
)

// A Join finds the changes of a build since the previous one.
type Join struct {
	Previous *Previous   // the previous build's entries (SpoolPrevious)
	Since    time.Time   // the previous build's snapshot time
	At       time.Time   // this build's, after Since unless nothing changed
	Hashes   hashing.Set // the digests this build publishes
	Jobs     int         // workers reading files again; hashing.DefaultWorkers if 0 or less

	// ReadAgain gives the hashing job that reads the file at a path again,
	// for the previous build's digests this build does not publish. Nil
	// for an archive, whose members are not read twice: equal lengths
	// then count as unchanged, and Notice says so.
	ReadAgain func(path string) hashing.Job

	Spill    *spill.Area
	Problems *report.Problems     // files that changed while they were read again
	Report   *report.ChangeReport // Created, Updated, Deleted and Reread are set; may be nil
	Notice   func(string)
}

// Run compares the resources with the previous build's entries, by
// content: a new path is created, a path gone is deleted, a digest (or
// length) that differs is updated. An unchanged resource keeps the lastmod
// it was published with, whatever its mtime says now. Run returns the
// resources spooled again (resources is closed) and the changes, in
// chronological order. A failure to read the previous entries is a
// docs.ErrPrevious.
func (j *Join) Run(ctx context.Context, resources *spill.ResourceSpool) (*spill.ResourceSpool, *spill.ChangeSet, error) {
	out, changes, reread, err := j.join(ctx, resources)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, nil, context.Cause(ctx)
	case err != nil && !errors.Is(err, spill.ErrSpool) && !errors.Is(err, docs.ErrPrevious):
		return nil, nil, fmt.Errorf("%w: %w", docs.ErrPrevious, err)
	case err != nil:
		return nil, nil, err
	}
	resources.Close()
	if err := j.settle(ctx, reread, out, changes); err != nil {
		return nil, nil, err
	}
	if err := j.finish(changes); err != nil {
		return nil, nil, err
	}
	return out, changes, nil
}

// join returns the resources spooled again with the lastmods the join
// gives them, the changes it can tell, and the resources it cannot tell
// without reading them again.
func (j *Join) join(ctx context.Context, resources *spill.ResourceSpool) (out *spill.ResourceSpool, changes *spill.ChangeSet, reread []rereadJob, err error) {
	if changes, err = j.Spill.Changes(); err != nil {
		return nil, nil, nil, err
	}
	out, err = j.walk(ctx, resources, func(e *prevEntry, r *spill.Resource, out *spill.ResourceSpool) error {
		var c spill.Change
		switch {
		case r == nil:
			c = j.deleted(e.Resource.Loc)
		case e == nil:
			c = j.newChange(r, nil, rsxml.ChangeCreated)
		case r.Kept: // its previous entry: it could not be read
			return nil
		default:
			return j.match(r, &e.Resource, out.Len(), changes, &reread)
		}
		return changes.Add(&c)
	})
	if err != nil {
		changes.Close()
		return nil, nil, nil, err
	}
	return out, changes, reread, nil
}

// walk merges the previous build's entries with the resources, both in the
// order of their paths (the foreign entries last), into a new spool of the
// resources: it calls each with every pair of an entry and the resource
// of its path, every resource without an entry (e nil) and every entry
// without a resource (r nil); each may change r or add to out; then r is
// added to out. On an error out is closed.
func (j *Join) walk(ctx context.Context, resources *spill.ResourceSpool, each func(e *prevEntry, r *spill.Resource, out *spill.ResourceSpool) error) (out *spill.ResourceSpool, err error) {
	prev, err := j.Previous.iter(ctx)
	if err != nil {
		return nil, err
	}
	scan, err := resources.Iter()
	if err != nil {
		return nil, err
	}
	if out, err = j.Spill.Resources(); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			out.Close()
		}
	}()
	more := scan.Next()
	pass := func(e *prevEntry) error {
		if err := each(e, &scan.Cur, out); err != nil {
			return err
		}
		if err := out.Add(&scan.Cur); err != nil {
			return err
		}
		more = scan.Next()
		return nil
	}
	for prev.Next() {
		e := &prev.Cur
		for more && !e.Foreign && scan.Cur.Path < e.Key {
			if err := pass(nil); err != nil {
				return nil, err
			}
		}
		if more && !e.Foreign && scan.Cur.Path == e.Key {
			err = pass(e)
		} else {
			err = each(e, nil, out)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := prev.Err(); err != nil {
		return nil, err
	}
	for more {
		if err := pass(nil); err != nil {
			return nil, err
		}
	}
	return out, scan.Err()
}

// match compares r, at index i of the spool, with its previous entry p:
// an update is added to changes; a verdict the digests cannot give is a
// job to read r again.
func (j *Join) match(r *spill.Resource, p *previous.Resource, i int, changes *spill.ChangeSet, reread *[]rereadJob) error {
	switch changed, extra := compare(r, p, j.Hashes); {
	case changed:
		c := j.newChange(r, p, rsxml.ChangeUpdated)
		return changes.Add(&c)
	case extra != nil:
		job := rereadJob{i: i, res: r.Clone(), prev: *p, algs: extra}
		job.prev.Hash = slices.Clone(p.Hash) // the iterator reuses it
		*reread = append(*reread, job)
	default:
		keepLastmod(r, p)
	}
	return nil
}

// finish sorts the changes by their datetimes and counts them.
func (j *Join) finish(c *spill.ChangeSet) error {
	if err := c.Finish(j.Spill); err != nil {
		return err
	}
	if j.Report != nil {
		j.Report.Created, j.Report.Updated, j.Report.Deleted = c.Created, c.Updated, c.Deleted
	}
	return nil
}

// deleted is the change of a resource gone from loc: it gets the snapshot
// time, as a deletion leaves no mtime.
func (j *Join) deleted(loc string) spill.Change {
	return spill.Change{Resource: spill.Resource{Loc: loc, Length: -1}, Change: rsxml.ChangeDeleted, Datetime: j.At}
}

// Reconcile makes the changes agree with the resources published in the
// end: one left out after the changes were found (dropped, by loc: the
// Resource Dump leaves out a file that changed after it was hashed) is
// gone for a Destination: deleted if it was published before, not created
// if it was not. A dropped resource without a change was unchanged, so
// published before. It returns the changes, in a new set if any was
// dropped (changes is closed then).
func (j *Join) Reconcile(changes *spill.ChangeSet, dropped []string) (*spill.ChangeSet, error) {
	if len(dropped) == 0 || changes == nil {
		return changes, nil
	}
	seen := make(map[string]bool, len(dropped)) // each dropped loc: whether it has a change
	for _, loc := range dropped {
		seen[loc] = false
	}
	next, err := j.Spill.Changes()
	if err != nil {
		return nil, err
	}
	err = changes.Each(func(c *spill.Change) error {
		if _, ok := seen[c.Loc]; !ok {
			return next.Add(c)
		}
		seen[c.Loc] = true
		switch c.Change {
		case rsxml.ChangeCreated:
			return nil
		case rsxml.ChangeUpdated:
			d := j.deleted(c.Loc)
			return next.Add(&d)
		}
		return next.Add(c)
	})
	if err != nil {
		return nil, err
	}
	for _, loc := range dropped {
		if !seen[loc] {
			d := j.deleted(loc)
			if err := next.Add(&d); err != nil {
				return nil, err
			}
		}
	}
	if err := j.finish(next); err != nil {
		return nil, err
	}
	changes.Close()
	return next, nil
}

// Kept counts the resources KeepUnread kept, and names the first.
type Kept struct {
	N     int
	First string // its path
}

// KeepUnread adds to the resources found the previous build's entries of
// what could not be read: the files under an unread directory (dirs, ""
// for the root) and the unread files. They are not gone: each is kept as
// published (Resource.Kept, which Run leaves as it is) rather than
// announced as deleted, which would make Destinations delete their copies.
// It returns the resources, found or a new spool (found is closed then),
// and what it kept. On an error found is closed.
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

// compare reports whether r changed since p, comparing digests for every
// algorithm both have, and lengths always. With no algorithm in common it
// returns the previous build's algorithms rsgen can compute, to read the
// file again for; with none of those, equal lengths count as unchanged.
func compare(r *spill.Resource, p *previous.Resource, set hashing.Set) (changed bool, reread []hashing.Algorithm) {
	if p.Length >= 0 && r.Length >= 0 && p.Length != r.Length {
		return true, nil
	}
	shared := false
	var extra []hashing.Algorithm
	for _, t := range p.Hash {
		a, err := hashing.ParseAlgorithm(t.Alg)
		if err != nil {
			continue // unknown to rsgen: cannot be compared
		}
		if !set.Has(a) {
			extra = append(extra, a)
			continue
		}
		shared = true
		if d, _ := hashing.Find(r.Hash, a); !bytes.Equal(d, t.Digest) {
			return true, nil
		}
	}
	if shared {
		return false, nil
	}
	return false, extra
}

// keepLastmod gives an unchanged resource the lastmod it was published
// with, so that Destinations comparing lastmod do not fetch it again after
// a checkout reset its mtime.
func keepLastmod(r *spill.Resource, p *previous.Resource) {
	if !p.Lastmod.IsZero() {
		r.Modified = p.Lastmod
	}
}

// changeTime is the datetime of a change to a file last modified at mod:
// mod if it lies between the two snapshots, else this snapshot's time,
// the latest the change can have happened. Datetimes are whole seconds: a
// change within the second of the previous snapshot, after it, gets the
// next second, not a datetime the previous Change List already gave (a
// Destination resumes after it).
func (j *Join) changeTime(mod time.Time) time.Time {
	if !mod.After(j.Since) || mod.After(j.At) {
		return j.At
	}
	if t := mod.Truncate(time.Second); t.After(j.Since) {
		return t
	}
	if t := j.Since.Truncate(time.Second).Add(time.Second); t.Before(j.At) {
		return t
	}
	return j.At
}

// newChange makes the change of r, with p its previous entry (nil if
// created). An update whose mtime is not after the lastmod it was
// published with (an older copy put back) gets the change's datetime as
// lastmod, in the Resource List too, so that Destinations comparing
// lastmod see it as newer.
func (j *Join) newChange(r *spill.Resource, p *previous.Resource, kind string) spill.Change {
	dt := j.changeTime(r.Modified)
	if kind == rsxml.ChangeUpdated && p != nil && !p.Lastmod.IsZero() && !r.Modified.Truncate(time.Second).After(p.Lastmod) {
		r.Modified = dt
	}
	return spill.Change{Resource: r.Clone(), Change: kind, Datetime: dt}
}
