package detect

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/text/display"
)

// A rereadJob is a resource to read again for the digests of the previous
// build, which this build does not publish.
type rereadJob struct {
	i    int // its index in the resources
	res  spill.Resource
	prev previous.Resource // its previous entry
	algs []hashing.Algorithm
}

// reread reads the files of jobs again (Join.ReadAgain) through the
// published digests and the previous build's, and says whether each is
// unchanged. The published digests must come out as the scan found them:
// a file that changed in between is reported as a problem and counted as
// updated.
func (j *Join) reread(ctx context.Context, jobs []rereadJob) ([]verdict, error) {
	set := append(hashing.Set(nil), j.Hashes...)
	for _, job := range jobs {
		for _, a := range job.algs {
			if !set.Has(a) {
				set = append(set, a)
			}
		}
	}
	verdicts := make([]verdict, len(jobs))
	byName := make(map[string]int, len(jobs))
	pending := make([]hashing.Job, len(jobs))
	for k, job := range jobs {
		byName[job.res.Path] = k
		pending[k] = j.ReadAgain(job.res.Path)
		pending[k].Name = job.res.Path
	}
	g, gctx := errgroup.WithContext(ctx)
	in := make(chan hashing.Job)
	out := make(chan hashing.Result)
	g.Go(func() error {
		defer close(in)
		for _, hj := range pending {
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
		defer close(out)
		return pool.Run(gctx, in, out)
	})
	g.Go(func() error {
		own := j.Hashes.SumSize()
		for res := range out {
			k := byName[res.Name]
			job := jobs[k]
			r := &job.res
			if res.Err != nil {
				j.Problems.Add(report.Problem{Path: res.Name, Err: fmt.Errorf("reading again for the previous build's digests: %w", display.ReadError(res.Err))})
				verdicts[k] = changed
				continue
			}
			if !j.Hashes.Holds(r.Hash, res.Sum[:own]) {
				j.Problems.Add(report.Problem{Path: res.Name, Err: errors.New("changed during the build; publish again once the tree is stable")})
				verdicts[k] = changed
				continue
			}
			verdicts[k] = unchanged
			// The previous build's digests of the algorithms this one does
			// not publish, each against this reading's.
			if _, _, bad := set[len(j.Hashes):].Differ(job.prev.Hash, res.Sum[own:]); bad {
				verdicts[k] = changed
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return verdicts, context.Cause(ctx)
}
