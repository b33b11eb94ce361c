package detect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
)

// A Join finds the changes of a build since the previous one, in the
// steps the package doc names.
type Join struct {
	Previous *Previous   // the previous build's entries, spooled (SpoolPrevious)
	Since    time.Time   // the previous build's snapshot time
	At       time.Time   // this build's snapshot time, after Since unless nothing changed
	Hashes   hashing.Set // the digests this build publishes
	Jobs     int         // workers reading files again; hashing.DefaultWorkers if 0 or less

	// ReadAgain gives the job of a pool (package hashing) that reads the
	// file of a resource, by its path, again: for the digests of the
	// previous build that this build does not publish. Nil for an
	// archive, whose members are not read a second time for this: equal
	// lengths then count as unchanged, and Notice says so.
	ReadAgain func(path string) hashing.Job

	Spill    *spill.Area          // where the resources and the changes are spooled
	Problems *report.Problems     // files that changed while they were read again
	Report   *report.ChangeReport // Created, Updated, Deleted and Reread are set; may be nil
	Notice   func(string)         // tells the user what they should know; never nil
}

// Run compares the resources with the previous build's entries, by
// content: a new path is created, a path gone is deleted, a digest (or
// length) that differs is updated. An unchanged resource keeps the lastmod
// it was published with, whatever its mtime says now. Run returns the
// resources spooled again with their lastmods (resources is closed) and
// the changes, in chronological order. A failure to read the previous
// entries is a docs.ErrPrevious.
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

// join merges the resources, sorted by path, with the previous build's
// entries in the same order, and returns the resources spooled again with
// the lastmods the join gives them, the changes it can tell, and the
// resources it cannot tell without reading them again.
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
		case r.Kept: // a kept resource is its previous entry: it could not be read
			return nil
		default:
			job, err := j.match(r, &e.Resource, out.Len(), changes)
			if job != nil {
				reread = append(reread, *job)
			}
			return err
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
// order of their paths (the entries with no path, foreign, come last),
// into a new spool of the resources. For each pair of an entry and the
// resource of its path, each resource with no entry (e nil) and each
// entry with no resource (r nil), in that order, it calls each, which may
// change r or add to out; then it adds r to out. On an error it closes
// out.
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
	// pass hands the resource at the head of the scan to each, with e,
	// spools it and moves on.
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

// match compares r, the resource of the scan at index i of its spool,
// with p, its previous entry: an update is added to changes; a verdict
// the digests cannot give is a job to read r again.
func (j *Join) match(r *spill.Resource, p *previous.Resource, i int, changes *spill.ChangeSet) (*rereadJob, error) {
	switch v, extra := compare(r, p, j.Hashes); v {
	case unchanged:
		keepLastmod(r, p)
	case changed:
		c := j.newChange(r, p, rsxml.ChangeUpdated)
		return nil, changes.Add(&c)
	case unknown:
		job := &rereadJob{i: i, res: r.Clone(), prev: *p, algs: extra}
		job.prev.Hash = slices.Clone(p.Hash) // the iterator reuses it
		return job, nil
	}
	return nil, nil
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

// deleted is the change of a resource published at loc that is gone. A
// deletion leaves no mtime: it gets the snapshot time.
func (j *Join) deleted(loc string) spill.Change {
	return spill.Change{Resource: spill.Resource{Loc: loc, Length: -1}, Change: rsxml.ChangeDeleted, Datetime: j.At}
}

// Reconcile makes the changes Run found agree with the resources that are
// published in the end: a resource left out after the changes were found
// (dropped, by loc: the Resource Dump leaves out a file that changed after
// it was hashed) is not in the Resource List, so for a Destination it is
// gone: deleted if it was published before, not created if it was not. A
// dropped resource without a change was unchanged, so published before.
// It returns the changes, in a new set if any was dropped (changes is
// closed then).
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
