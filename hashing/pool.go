package hashing

import (
	"context"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// DefaultWorkers is the number of files hashed at once. On 2 cores
// (bench/jobs.sh, 50,000 files of 0.5-8 KiB; docs/PERFORMANCE.md) 8 were
// 2.0-2.4x faster than 1 with a cold cache, no better past 8; warm,
// hashing is CPU-bound and 2 per core keep every core busy.
func DefaultWorkers() int { return max(8, 2*runtime.GOMAXPROCS(0)) }

// A Job asks a Pool to hash one file.
type Job struct {
	Name  string // the caller's, returned in the Result, as Seq and Tag
	Path  string // file to read, or its name in Dir; a symbolic link is refused
	Sniff bool   // keep the first SniffLen bytes in Result.Head
	Seq   uint64
	Tag   any

	// Dir, if set, holds the file. The Job holds it once; the Pool
	// releases it once read (after Run, the caller, for Jobs not taken).
	Dir Dir
	// Open, if set, opens a stream (an archive member) to hash in place of
	// Path; Result.Info then has only the Size read.
	Open func() (io.ReadCloser, error)
	// Stored, if set, is asked first for the digests the source keeps (an
	// object store's): if ok, nothing is read and the Result is Stored.
	Stored func() (sum []byte, ok bool, err error)
}

// A Dir is a directory held open by a walk (package tree's Dir), so that
// one renamed or replaced meanwhile cannot lead a read out of the tree.
type Dir interface {
	Path() string // where it was when opened, for messages
	Fd() int      // its descriptor; -1 outside unix, where the file is opened by path
	Release()     // drops the Job's hold
}

// A Result is the outcome of one Job; Err does not stop the pool.
type Result struct {
	Job
	Info   FileInfo
	Sum    []byte // digests concatenated in the order of the Set
	Head   []byte // if the Job asked to sniff
	Err    error
	Stored bool // the digests are Job.Stored's: nothing was read
}

// A Pool hashes files with a fixed number of workers.
type Pool struct {
	Set     Set
	Workers int // files hashed at once; DefaultWorkers() if zero

	// Reads is how many reads may be in flight, which the source chooses (a
	// cold disk, an object store need more); at most Workers of them hash
	// at once. Workers if 0 or less.
	Reads int

	// ReadsBlock says reads block a thread in the kernel (a disk), keeping
	// their P of the scheduler for 20 µs to 10 ms: at most GOMAXPROCS files
	// are then read at once. Run raises GOMAXPROCS to Reads once Reads
	// reads have waited, until it returns: on 2 cores a cold build of
	// 50,000 small files took 2.3-2.4 s, not 3.4-4.2 s (docs/PERFORMANCE.md,
	// "Reads in flight"); more Ps cost 6% of CPU where no read waits.
	ReadsBlock bool

	Read func(bytes int64) // if set, called concurrently with the bytes of each read
}

// Run sends one Result per Job on results until jobs is closed or ctx is
// done (then ctx.Err()). It does not close results.
func (p *Pool) Run(ctx context.Context, jobs <-chan Job, results chan<- Result) error {
	n := p.Workers
	if n <= 0 {
		n = DefaultWorkers()
	}
	reads := p.Reads
	if reads <= 0 {
		reads = n
	}
	var hashing chan struct{}
	if reads > n {
		hashing = make(chan struct{}, n)
	}
	var waited func()
	if p.ReadsBlock {
		var waits atomic.Int64
		var restore func() // set by the reads-th read that waited, before g.Wait returns
		defer func() {
			if restore != nil {
				restore()
			}
		}()
		waited = func() {
			if waits.Add(1) == int64(reads) {
				restore = raiseProcs(reads)
			}
		}
	}
	g, ctx := errgroup.WithContext(ctx)
	for range reads {
		g.Go(func() error {
			h := NewHasher(p.Set)
			defer h.release()
			h.ctx, h.read, h.hashing, h.waited = ctx, p.Read, hashing, waited
			for {
				var job Job
				var ok bool
				select {
				case <-ctx.Done():
					return ctx.Err()
				case job, ok = <-jobs:
					if !ok {
						return nil
					}
				}
				res := p.hashFile(h, job)
				select {
				case <-ctx.Done():
					return ctx.Err()
				case results <- res:
				}
			}
		})
	}
	return g.Wait()
}

func (p *Pool) hashFile(h *Hasher, job Job) Result {
	res := Result{Job: job}
	if job.Stored != nil {
		if res.Sum, res.Stored, res.Err = job.Stored(); res.Stored || res.Err != nil {
			return res
		}
	}
	switch {
	case job.Open != nil:
		res.Info, res.Sum, res.Err = openSum(h, make([]byte, 0, p.Set.SumSize()), job.Open)
	default:
		res.Info, res.Sum, res.Err = sumFile(h, make([]byte, 0, p.Set.SumSize()), job.Dir, job.Path)
	}
	if job.Dir != nil {
		job.Dir.Release()
		res.Dir = nil
	}
	if res.Err != nil {
		res.Sum = nil
		return res
	}
	if job.Sniff {
		res.Head = append([]byte(nil), h.Head()...)
	}
	return res
}

func openSum(h *Hasher, dst []byte, open func() (io.ReadCloser, error)) (FileInfo, []byte, error) {
	rc, err := open()
	if err != nil {
		return FileInfo{}, dst, err
	}
	n, sum, err := h.Sum(dst, rc)
	if cerr := rc.Close(); err == nil {
		err = cerr
	}
	return FileInfo{Size: n}, sum, err
}

// procs counts the Pools that raised GOMAXPROCS, and its value before.
var procs struct {
	sync.Mutex
	users, saved int
}

// raiseProcs raises GOMAXPROCS to at least n until every raiser is done.
func raiseProcs(n int) (restore func()) {
	procs.Lock()
	defer procs.Unlock()
	if procs.users == 0 {
		procs.saved = runtime.GOMAXPROCS(0)
	}
	procs.users++
	if n > runtime.GOMAXPROCS(0) {
		runtime.GOMAXPROCS(n)
	}
	return func() {
		procs.Lock()
		defer procs.Unlock()
		if procs.users--; procs.users == 0 && runtime.GOMAXPROCS(0) != procs.saved {
			runtime.GOMAXPROCS(procs.saved)
		}
	}
}
