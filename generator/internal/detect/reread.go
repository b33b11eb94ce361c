package detect

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/text/display"
	"github.com/rsgen/rsgen/internal/text/units"
)

// A rereadJob is a resource to read again for the previous build's digests.
type rereadJob struct {
	i       int // its index in the resources
	res     spill.Resource
	prev    previous.Resource // its previous entry
	algs    []hashing.Algorithm
	changed bool // the verdict of the reading; unchanged if it is not read
}

// settle gives the resources of jobs, spooled in out before their
// verdicts, the verdicts of reading them again.
func (j *Join) settle(ctx context.Context, jobs []rereadJob, out *spill.ResourceSpool, changes *spill.ChangeSet) error {
	if len(jobs) == 0 {
		return nil
	}
	if j.ReadAgain == nil {
		j.Notice(fmt.Sprintf("the previous build published other digests than this one, and the members of an archive are not read a second time for them: %s of unchanged length %s as unchanged",
			units.Count(len(jobs), "member"), units.Plural(len(jobs), "counts", "count")))
	} else if err := j.reread(ctx, jobs); err != nil {
		return err
	}
	for k := range jobs {
		job := &jobs[k]
		if !job.changed {
			keepLastmod(&job.res, &job.prev)
		} else {
			c := j.newChange(&job.res, &job.prev, rsxml.ChangeUpdated)
			if err := changes.Add(&c); err != nil {
				return err
			}
		}
		out.Patch(job.i, job.res.Modified)
	}
	return nil
}

// reread reads the files of jobs again for the published digests and the
// previous build's, and marks each that changed. The published ones must
// come out as the scan found them: a file that changed in between is a
// problem, counted as updated.
func (j *Join) reread(ctx context.Context, jobs []rereadJob) error {
	set := slices.Clone(j.Hashes)
	for _, job := range jobs {
		for _, a := range job.algs {
			if !set.Has(a) {
				set = append(set, a)
			}
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	in, results := make(chan hashing.Job), make(chan hashing.Result)
	g.Go(func() error {
		defer close(in)
		for k := range jobs {
			hj := j.ReadAgain(jobs[k].res.Path)
			hj.Name, hj.Seq = jobs[k].res.Path, uint64(k)
			select {
			case in <- hj:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	pool := &hashing.Pool{Set: set, Workers: j.Jobs}
	g.Go(func() error {
		defer close(results)
		return pool.Run(gctx, in, results)
	})
	g.Go(func() error {
		own := j.Hashes.SumSize()
		for res := range results {
			job := &jobs[res.Seq]
			var problem error
			switch {
			case res.Err != nil:
				problem = fmt.Errorf("reading again for the previous build's digests: %w", display.ReadError(res.Err))
			case !j.Hashes.Holds(job.res.Hash, res.Sum[:own]):
				problem = errors.New("changed during the build; publish again once the tree is stable")
			default: // the previous build's other digests, against this reading's
				_, _, job.changed = set[len(j.Hashes):].Differ(job.prev.Hash, res.Sum[own:])
				continue
			}
			j.Problems.Add(report.Problem{Path: res.Name, Err: problem})
			job.changed = true
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return err
	}
	if j.Report != nil {
		j.Report.Reread = len(jobs)
	}
	return context.Cause(ctx)
}
