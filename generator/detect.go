package generator

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/display"
	"github.com/rsgen/rsgen/internal/previous"
	"github.com/rsgen/rsgen/internal/rsxml"
)

// A verdict is what comparing a resource with its previous entry says.
type verdict uint8

const (
	unchanged verdict = iota
	changed
	unknown // no digest in common: the file must be read for the previous build's
)

// detectChanges compares the scanned resources with the previous build's
// Resource List, by content: a new URI is created, a URI gone is deleted,
// a digest (or length) that differs is updated. An unchanged resource
// keeps the lastmod it was published with, whatever its mtime says now:
// the resources are spooled again with their lastmods, and the spool of
// the scan is closed.
//
// The previous build's entries are not held: they stream from
// previous.Site.ResourceIter in the order of their paths, which is the
// order of resources, and the two are merged as they come.
func (b *build) detectChanges(ctx context.Context, resources *spill.ResourceSpool) (*spill.ResourceSpool, error) {
	prev := b.across.prev
	if prev == nil {
		return resources, nil
	}
	since := prev.At
	out, changes, reread, err := b.joinPrevious(ctx, resources)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if errors.Is(err, spill.ErrSpool) || errors.Is(err, ErrPrevious) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", ErrPrevious, err)
	}
	resources.Close()
	if len(reread) > 0 {
		verdicts := make([]verdict, len(reread)) // unchanged: an archive cannot be read again
		if b.archive != nil {
			b.notice(fmt.Sprintf("the previous build published other digests than this one, and an archive cannot be read again for them: %d members of unchanged length count as unchanged", len(reread)))
		} else {
			var err error
			if verdicts, err = b.reread(ctx, reread); err != nil {
				return nil, err
			}
			b.across.report.Reread = len(reread)
		}
		for k := range reread {
			job := &reread[k]
			r := &job.res
			if verdicts[k] == unchanged {
				keepLastmod(r, &job.prev)
			} else {
				c := b.newChange(r, &job.prev, rsxml.ChangeUpdated, since)
				if err := changes.Add(&c); err != nil {
					return nil, err
				}
			}
			out.Patch(job.i, r.Modified) // it was spooled before its verdict
		}
	}
	if err := changes.Finish(&b.spill); err != nil {
		return nil, err
	}
	b.across.changes = changes
	if changes.Len() > 0 && !since.Before(b.at) {
		return nil, fmt.Errorf("%w: %w", ErrPrevious, &SnapshotTimeError{Previous: since, At: b.at, Changes: changes.Len()})
	}
	b.countChanges()
	return out, b.checkDeletes(out.Len()) // before the dumps are packed; again once they are (run)
}

// joinPrevious merges the resources, sorted by path, with the previous
// build's entries in the same order (prevEntries), and returns the
// resources spooled again with the lastmods the join gives them, the
// changes it can tell, and the resources it cannot tell without reading
// them again. It counts the previous build's resources into
// b.across.prevResources.
func (b *build) joinPrevious(ctx context.Context, resources *spill.ResourceSpool) (out *spill.ResourceSpool, changes *spill.ChangeSet, reread []rereadJob, err error) {
	since := b.across.prev.At
	it, err := b.across.prevEntries.iter(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	scan, err := resources.Iter()
	if err != nil {
		return nil, nil, nil, err
	}
	if out, err = b.spill.Resources(); err != nil {
		return nil, nil, nil, err
	}
	if changes, err = b.spill.Changes(); err != nil {
		out.Close()
		return nil, nil, nil, err
	}
	defer func() {
		if err != nil {
			out.Close()
			changes.Close()
		}
	}()
	deleted := func(loc string) error {
		return changes.Add(&Change{Resource: Resource{Loc: loc, Length: -1}, Change: rsxml.ChangeDeleted, Datetime: b.at})
	}
	more := scan.Next()
	// pass spools the resource at the head of the scan and moves on.
	pass := func() error {
		err := out.Add(&scan.Cur)
		more = scan.Next()
		return err
	}
	created := func() error {
		c := b.newChange(&scan.Cur, nil, rsxml.ChangeCreated, since)
		if err := changes.Add(&c); err != nil {
			return err
		}
		return pass()
	}
	b.across.prevResources = b.across.prevEntries.n
	for it.next() {
		p := &it.res
		if it.foreign {
			// not a file under the base URL: none of this build's
			if err := deleted(p.Loc); err != nil {
				return nil, nil, nil, err
			}
			continue
		}
		key := it.key
		for more && scan.Cur.Path < key {
			if err := created(); err != nil {
				return nil, nil, nil, err
			}
		}
		if !more || scan.Cur.Path != key {
			if err := deleted(p.Loc); err != nil {
				return nil, nil, nil, err
			}
			continue
		}
		r := &scan.Cur
		if r.Kept {
			// its previous entry, kept: it could not be read
		} else {
			switch v, extra := compare(r, p, b.cfg.Hashes); v {
			case unchanged:
				keepLastmod(r, p)
			case changed:
				c := b.newChange(r, p, rsxml.ChangeUpdated, since)
				if err := changes.Add(&c); err != nil {
					return nil, nil, nil, err
				}
			case unknown:
				job := rereadJob{i: out.Len(), res: r.Clone(), prev: *p, algs: extra}
				job.prev.Hash = slices.Clone(p.Hash) // the iterator reuses it
				reread = append(reread, job)
			}
		}
		if err := pass(); err != nil {
			return nil, nil, nil, err
		}
	}
	if err := it.err(); err != nil {
		return nil, nil, nil, err
	}
	for more {
		if err := created(); err != nil {
			return nil, nil, nil, err
		}
	}
	if err := scan.Err(); err != nil {
		return nil, nil, nil, err
	}
	return out, changes, reread, nil
}

// previousSortMemory is the memory of the sort of a previous Resource List
// that was not published in the order of its paths.
const previousSortMemory = 32 << 20

func (b *build) countChanges() {
	rep, c := b.across.report, b.across.changes
	if c == nil {
		rep.Created, rep.Updated, rep.Deleted = 0, 0, 0
		return
	}
	rep.Created, rep.Updated, rep.Deleted = c.Created, c.Updated, c.Deleted
}

// reconcileChanges makes the changes agree with the resources that are
// published in the end: a file left out after the changes were found
// (the Resource Dump leaves out a file that changed after it was hashed;
// b.across.dropped) is not in the Resource List, so for a Destination it
// is gone: deleted if it was published before, not created if it was not.
// A dropped resource without a change was unchanged, so published before.
func (b *build) reconcileChanges() error {
	if len(b.across.dropped) == 0 || b.across.changes == nil {
		return nil
	}
	dropped := make(map[string]bool, len(b.across.dropped))
	for _, loc := range b.across.dropped {
		dropped[loc] = true
	}
	next, err := b.spill.Changes()
	if err != nil {
		return err
	}
	seen := map[string]bool{} // the dropped locs that have a change
	err = b.across.changes.Each(func(c *Change) error {
		if !dropped[c.Loc] {
			return next.Add(c)
		}
		seen[c.Loc] = true
		switch c.Change {
		case rsxml.ChangeCreated:
			return nil
		case rsxml.ChangeUpdated:
			return next.Add(&Change{Resource: Resource{Loc: c.Loc, Length: -1}, Change: rsxml.ChangeDeleted, Datetime: b.at})
		}
		return next.Add(c)
	})
	if err != nil {
		return err
	}
	for _, loc := range b.across.dropped {
		if !seen[loc] {
			if err := next.Add(&Change{Resource: Resource{Loc: loc, Length: -1}, Change: rsxml.ChangeDeleted, Datetime: b.at}); err != nil {
				return err
			}
		}
	}
	if err := next.Finish(&b.spill); err != nil {
		return err
	}
	b.across.changes.Close()
	b.across.changes = next
	b.countChanges()
	return nil
}

// compare compares a scanned resource with its previous entry. Digests are
// compared for every algorithm both have, and lengths always. With no
// algorithm in common, it returns unknown and the previous build's
// algorithms rsgen can compute, if it has any; else equal lengths count as
// unchanged.
func compare(r *Resource, p *previous.Resource, set hashing.Set) (verdict, []hashing.Algorithm) {
	if p.Length >= 0 && r.Length >= 0 && p.Length != r.Length {
		return changed, nil
	}
	shared := false
	var extra []hashing.Algorithm
	for _, t := range p.Hash {
		a, err := hashing.ParseAlgorithm(t.Alg)
		if err != nil {
			continue // an algorithm rsgen does not know cannot be compared
		}
		if !set.Has(a) {
			extra = append(extra, a)
			continue
		}
		shared = true
		if d, _ := hashing.AttrDigest(r.Hash, a); d != t.Digest {
			return changed, nil
		}
	}
	switch {
	case shared:
		return unchanged, nil
	case len(extra) > 0:
		return unknown, extra
	}
	return unchanged, nil
}

// keepLastmod gives an unchanged resource the lastmod it was published
// with, so that Destinations comparing lastmod do not fetch it again after
// a checkout reset its mtime.
func keepLastmod(r *Resource, p *previous.Resource) {
	if !p.Lastmod.IsZero() {
		r.Modified = p.Lastmod
	}
}

// changeTime is the datetime of a change to a file last modified at mod,
// found between the previous snapshot (since) and this one: mod if it lies
// in between, else this snapshot's time, the latest the change can have
// happened. A deletion leaves no mtime and always gets the snapshot time.
func (b *build) changeTime(mod, since time.Time) time.Time {
	if mod.After(since) && !mod.After(b.at) {
		return mod.Truncate(time.Second)
	}
	return b.at
}

// newChange makes the change of r. An updated resource whose mtime is not
// after the lastmod it was published with (an older copy put back, a
// checkout that kept times) gets the datetime of the change as lastmod,
// in its Resource List entry too, so that Destinations comparing lastmod
// see it as newer.
func (b *build) newChange(r *Resource, p *previous.Resource, kind string, since time.Time) Change {
	dt := b.changeTime(r.Modified, since)
	if kind == rsxml.ChangeUpdated && p != nil && !p.Lastmod.IsZero() && !r.Modified.Truncate(time.Second).After(p.Lastmod) {
		r.Modified = dt
	}
	return Change{Resource: r.Clone(), Change: kind, Datetime: dt}
}

// A rereadJob is a resource to read again for the digests of the previous
// build, which this build does not publish.
type rereadJob struct {
	i    int // its index in the resources
	res  Resource
	prev previous.Resource // its previous entry
	algs []hashing.Algorithm
}

// reread reads the files of jobs again through the published digests and
// the previous build's, and says whether each is unchanged. The published
// digests must come out as the scan found them: a file that changed in
// between is reported as a problem and counted as updated.
func (b *build) reread(ctx context.Context, jobs []rereadJob) ([]verdict, error) {
	set := append(hashing.Set(nil), b.cfg.Hashes...)
	for _, j := range jobs {
		for _, a := range j.algs {
			if !set.Has(a) {
				set = append(set, a)
			}
		}
	}
	verdicts := make([]verdict, len(jobs))
	byName := make(map[string]int, len(jobs))
	var pending []hashing.Job
	for k, j := range jobs {
		r := &j.res
		path := filepath.Join(b.root, filepath.FromSlash(r.Path))
		if b.cfg.FollowSymlinks {
			if resolved, err := filepath.EvalSymlinks(path); err == nil {
				path = resolved
			}
		}
		byName[r.Path] = k
		pending = append(pending, hashing.Job{Name: r.Path, Path: path})
	}
	if len(pending) == 0 {
		return verdicts, nil
	}
	g, gctx := errgroup.WithContext(ctx)
	in := make(chan hashing.Job)
	out := make(chan hashing.Result)
	g.Go(func() error {
		defer close(in)
		for _, j := range pending {
			select {
			case in <- j:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	pool := &hashing.Pool{Set: set, Workers: b.cfg.Jobs}
	g.Go(func() error {
		defer close(out)
		return pool.Run(gctx, in, out)
	})
	g.Go(func() error {
		own := b.cfg.Hashes.SumSize()
		for res := range out {
			k := byName[res.Name]
			j := jobs[k]
			r := &j.res
			if res.Err != nil {
				b.problems.Add(Problem{Path: res.Name, Err: fmt.Errorf("reading again for the previous build's digests: %w", display.ReadError(res.Err))})
				verdicts[k] = changed
				continue
			}
			if !b.cfg.Hashes.IsAttr(r.Hash, res.Sum[:own]) {
				b.problems.Add(Problem{Path: res.Name, Err: errors.New("changed during the build; publish again once the tree is stable")})
				verdicts[k] = changed
				continue
			}
			verdicts[k] = unchanged
			rest := res.Sum[own:]
			for _, a := range set[len(b.cfg.Hashes):] {
				d := rest[:a.Size()]
				rest = rest[a.Size():]
				if !slices.Contains(j.algs, a) {
					continue
				}
				if !prevDigestIs(&j.prev, a, d) {
					verdicts[k] = changed
				}
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return verdicts, context.Cause(ctx)
}

// prevDigestIs reports whether the previous entry's digest by a is d.
func prevDigestIs(p *previous.Resource, a hashing.Algorithm, d []byte) bool {
	for _, t := range p.Hash {
		if pa, err := hashing.ParseAlgorithm(t.Alg); err == nil && pa == a {
			return hashing.HexIs(t.Digest, d)
		}
	}
	return true
}
