package archivescan

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"golang.org/x/sync/errgroup"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/uri"
)

// scanZip hashes the members of a zip file with a pool of workers, and
// spools them in the order of their paths through the same sort as a
// tar's (spoolSorted).
func (sc *Scan) scanZip(ctx context.Context, a *Archive) (*spill.ResourceSpool, error) {
	zr, err := zip.OpenReader(a.Path)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", a.Path, err)
	}
	defer zr.Close()
	if maxMembers := limit(sc.maxZip, MaxMembers); len(zr.File) > maxMembers {
		return nil, fmt.Errorf("source %s: %w: %d, more than the %d rsgen holds in memory", a.Path, ErrTooManyMembers, len(zr.File), maxMembers)
	}
	var pending []int
	names := make([]string, len(zr.File))
	for i, f := range zr.File {
		if names[i] = sc.admit(member{raw: f.Name, mode: f.Mode()}); names[i] != "" {
			pending = append(pending, i)
			if a.members != nil {
				a.members[names[i]] = i
			}
			sc.Stats.Found.Add(1)
		}
	}
	if err := checkOverlap(zr.File, pending); err != nil {
		return nil, fmt.Errorf("reading the archive %s: %w", a.Path, damaged(err))
	}
	sc.Stats.WalkDone.Store(true)

	sorter, err := sc.sorter()
	if err != nil {
		return nil, err
	}
	defer sorter.Close()
	jobs := make(chan hashing.Job, 256)
	done := make(chan hashing.Result, 256)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(jobs)
		for _, i := range pending {
			f := zr.File[i]
			// ctx, not gctx: an interrupt stops the member under way.
			open := func() (io.ReadCloser, error) {
				rc, err := openZipMember(f)
				if err != nil {
					return nil, err
				}
				return struct {
					io.Reader
					io.Closer
				}{ctxReader{ctx, rc}, rc}, nil
			}
			job := hashing.Job{Name: names[i], Seq: uint64(i), Sniff: true, Open: open}
			select {
			case jobs <- job:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	pool := &hashing.Pool{Set: sc.Hashes, Workers: sc.Jobs}
	g.Go(func() error {
		defer close(done)
		return pool.Run(gctx, jobs, done)
	})
	g.Go(func() error {
		var rec []byte
		for res := range done {
			if res.Err == nil {
				sc.Stats.Hashed.Add(1)
				sc.Stats.Bytes.Add(res.Info.Size)
			}
			r, err := sc.member(res, zr.File[res.Seq].FileInfo())
			switch {
			case errors.Is(err, uri.ErrLocTooLong): // never published: its name is not needed whole
				sc.problem(report.Problem{Path: clipName(res.Name), Err: err})
				rec = rec[:0] // not published, but a name the archive holds
			case errors.Is(err, zip.ErrAlgorithm): // its previous entry is kept by its name
				sc.problem(report.Problem{Path: res.Name, Err: err})
				rec = rec[:0]
			case err != nil:
				return fmt.Errorf("reading the archive %s: %s: %w", a.Path, res.Name, damaged(err))
			default:
				rec = spill.AppendResource(rec[:0], &spill.Resource{}, &r)
			}
			if err := sorter.Add([]byte(res.Name), rec); err != nil {
				return fmt.Errorf("%w: %w", spill.ErrSpool, err)
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return sc.spoolSorted(sorter)
}

// member makes the Resource of a zip member the hashing pool read.
func (sc *Scan) member(res hashing.Result, info fs.FileInfo) (spill.Resource, error) {
	if res.Err != nil {
		return spill.Resource{}, fmt.Errorf("reading from the archive: %w", res.Err)
	}
	return sc.resource(res.Name, res.Info.Size, res.Sum, res.Head, info)
}
