package hashing

import (
	"context"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// DefaultWorkers is the number of files hashed at once unless told
// otherwise.
//
// Measured on the 2-core reference machine with bench/jobs.sh (50,000 files
// of 0.5-8 KiB; docs/PERFORMANCE.md, "Choosing --jobs"), when the workers
// were the reads in flight too: with a cold page cache 8 were 2.0-2.4x
// faster than 1, with no gain past 8. With a warm cache hashing is
// CPU-bound: in BenchmarkPoolWorkers 2 to 8 workers are about twice as
// fast as 1 and within the noise of one another. On more cores, 2 per core
// keep every core busy when warm. The reads in flight are now a setting of
// their own (Pool.Reads), which a source raises above the workers.
func DefaultWorkers() int { return max(8, 2*runtime.GOMAXPROCS(0)) }

// A Job asks a Pool to hash one file.
type Job struct {
	Name  string // caller's name for the file, returned in the Result
	Path  string // file to read, or its name in Dir; a symbolic link is refused, not followed
	Sniff bool   // keep the first SniffLen bytes in Result.Head
	Seq   uint64 // caller's number for the job, returned in the Result
	Tag   any    // caller's data for the job, returned in the Result

	// Dir, if set, holds the file: Path is then a name in it, opened
	// relative to it. The Job holds Dir once; the Pool releases it when
	// the file is read (or, after Run, the caller does for the Jobs it did
	// not take).
	Dir Dir

	// Open, if set, opens what to hash in place of a file at Path: a
	// stream, such as a member of an archive, read to its end and closed.
	// Result.Info then has only the Size read.
	Open func() (io.ReadCloser, error)

	// Stored, if set, is asked first for the digests of the Set that the
	// source keeps (an object store's checksums): if it has them all
	// (ok), nothing is read and the Result is Stored.
	Stored func() (sum []byte, ok bool, err error)
}

// A Dir is a directory held open by a walk (package tree's Dir): the file
// of a Job is opened relative to it (openat), never through a symbolic
// link, so that a directory renamed or replaced meanwhile cannot lead the
// read out of the tree.
type Dir interface {
	Path() string // where it was when opened, for messages
	Fd() int      // its descriptor; -1 outside unix, where the file is opened by path
	Release()     // drops the Job's hold
}

// A Result is the outcome of one Job. A file that could not be read has
// Err set; it does not stop the pool.
type Result struct {
	Job
	Info FileInfo
	Sum  []byte // digests concatenated in the order of the Set
	Head []byte // first bytes, if the Job asked to sniff
	Err  error
	// Stored says the digests are those the source keeps (Job.Stored):
	// nothing was read.
	Stored bool
}

// A Pool hashes files with a fixed number of workers.
type Pool struct {
	Set     Set
	Workers int // files hashed at once; DefaultWorkers() if zero

	// Reads is how many reads may be in flight at once, each job read by a
	// goroutine of its own, whatever Workers is: the source chooses it (a
	// tree on a disk: enough to keep a cold disk busy; an object store:
	// tens). At most Workers of them hash at once. Workers if 0 or less.
	Reads int

	// ReadsBlock says that the reads block a thread in the kernel (files
	// on a disk) rather than wait in Go's network poller (a stream from a
	// server). A blocked read keeps its P of the Go scheduler until the
	// runtime takes it back, 20 µs to 10 ms later, so that at most about
	// GOMAXPROCS files are read at once however many goroutines wait to:
	// on 2 cores a cold first build of 50,000 small files took 3.4-4.2 s
	// with 8 readers, 2.3-2.4 s with GOMAXPROCS=8 (docs/PERFORMANCE.md,
	// "Reads in flight"). Run then raises GOMAXPROCS to Reads once Reads
	// reads have waited for the disk, until it returns: more Ps cost some
	// 6% of CPU where no read waits (a warm page cache). The hashing stays
	// bounded by Workers.
	ReadsBlock bool

	// Read, if set, is called by the workers (concurrently) with the
	// bytes of each read as they read: the progress inside a large file.
	Read func(bytes int64)
}

// Run hashes the files of jobs until jobs is closed or ctx is done, and
// sends one Result per Job on results. It does not close results. It
// returns ctx.Err() if it stopped early.
func (p *Pool) Run(ctx context.Context, jobs <-chan Job, results chan<- Result) error {
	n := p.Workers
	if n <= 0 {
		n = DefaultWorkers()
	}
	reads := p.Reads
	if reads <= 0 {
		reads = n
	}
	var hashing chan struct{} // holds a place for each worker hashing, if fewer than the readers
	if reads > n {
		hashing = make(chan struct{}, n)
	}
	var waited func()
	if p.ReadsBlock {
		var raise raised
		defer raise.restore()
		waited = func() { raise.after(reads) }
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

// raised raises GOMAXPROCS for a Pool whose reads wait for the disk
// (Pool.ReadsBlock).
type raised struct {
	waits atomic.Int64
	undo  func() // set once raised
}

// after counts a read that waited, and raises GOMAXPROCS to reads at the
// reads-th. It may be called from several goroutines.
func (r *raised) after(reads int) {
	if r.waits.Add(1) == int64(reads) {
		r.undo = raiseProcs(reads)
	}
}

func (r *raised) restore() {
	if r.undo != nil {
		r.undo()
	}
}

// procs counts the Pools that raised GOMAXPROCS (Pool.ReadsBlock), and
// keeps its value before the first, to put back after the last.
var procs struct {
	sync.Mutex
	users, saved int
}

// raiseProcs raises GOMAXPROCS to at least n, and returns the function
// that puts it back once every Pool that raised it is done.
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
