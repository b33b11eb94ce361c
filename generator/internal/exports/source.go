package exports

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/inputs/records"
	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/extsort"
	"github.com/rsgen/rsgen/internal/text/display"
	"github.com/rsgen/rsgen/internal/text/units"
	"github.com/rsgen/rsgen/zipdump"
)

// DefaultChangesWindow is the trailing window of a record export's Change List.
const DefaultChangesWindow = 30 * 24 * time.Hour

// MaxReportedBad bounds the bad records a failed build names one by one
// (BadRecordsError.Problems).
const MaxReportedBad = 1000

// batchSize is the number of records a worker parses at a time.
const batchSize = 256

// BadRecordsError fails a build from an export with bad records, unless
// SkipBadRecords is set. Nothing is published.
type BadRecordsError struct {
	Name     string
	Problems []report.Problem // the first MaxReportedBad, in order of line
	Total    int
}

func (e *BadRecordsError) Error() string {
	return fmt.Sprintf("%s in %s; nothing was published", units.Count(e.Total, "bad record"), e.Name)
}

// Options are what a Source needs from its build.
type Options struct {
	Export string        // the export file; "-" for standard input
	Format string        // "jsonl" or "csv"; from the name of Export if empty
	Stdin  io.Reader     // the export "-"; os.Stdin if nil
	Window time.Duration // trailing window of the Change List; DefaultChangesWindow if zero, none if negative

	SkipBadRecords bool // bad records are problems, not a failure
	FailFast       bool // the first bad record fails the build

	Jobs   int         // workers; hashing.DefaultWorkers() if zero
	Hashes hashing.Set // the digests of the local files
	Base   uri.Base    // a relative loc or href is joined to it; zero if none is given
	At     time.Time   // the snapshot time

	SortDir string // a directory, created by Open and removed by Close, where the sorters spill
	Chunk   int    // memory of each sorter; extsort.DefaultChunkBytes/2 if zero

	Docs     *docs.Writer // writes the documents, and knows where they are served
	Stats    *report.Stats
	Problems *report.Problems

	// Dump, if not nil, has the Resource Dump packaged (but for how its
	// files are opened); BeforeDump, if not nil, is called before (a
	// test's hook).
	Dump       *zipdump.Options
	BeforeDump func()
}

// A Source is a record export being published: the open export and what
// the collector gathers from all its batches.
type Source struct {
	opt     Options
	rd      *records.Reader
	file    *os.File // the export, or os.Stdin; nil if read from Options.Stdin
	root    *os.Root // the export's directory: local files are read only inside it
	sortDir string   // Options.SortDir, once made
	closed  bool
	rep     *report.Export

	rl, ch, dump *extsort.Sorter  // by loc, time and path; dump nil without a Resource Dump
	bad          []report.Problem // bad records, when they fail the build
	hosts        map[string]int
	noTime       lineCount
	future       lineCount
	noPath       lineCount
	skipped      map[int]bool // lines of skipped duplicates, and of records left out of the dump: kept out of every list
	window       bool         // a Change List is wanted
	// noFiles is set once a listed record without a local file makes a
	// Resource Dump impossible: the files of the others are not read.
	noFiles atomic.Bool
}

// job carries one batch to a worker and its result back.
type job struct {
	batch records.Batch
	res   result
}

// result is what a worker made of a batch.
type result struct {
	buf        []byte    // keys and payloads, back to back
	adds       []sortAdd // what to put in which sorter, in order
	bad        []report.Problem
	records    int
	tombstones int
	withheld   map[string]int
	hosts      map[string]int // scheme://host of the locs, with their counts
	noTime     lineCount      // listed records without a time
	future     lineCount      // events after the snapshot
	noPath     lineCount      // with a Resource Dump: listed records without a local file
}

// sortAdd is one record for a sorter: key buf[start:keyEnd], payload
// buf[keyEnd:end], where start is the end of the previous one.
type sortAdd struct {
	to     *extsort.Sorter
	keyEnd int
	end    int
}

// lineCount counts records and remembers the first one's line.
type lineCount struct{ n, first int }

func (c *lineCount) add(line int) { c.merge(lineCount{1, line}) }

func (c *lineCount) merge(o lineCount) {
	if o.n > 0 && (c.n == 0 || o.first < c.first) {
		c.first = o.first
	}
	c.n += o.n
}

// Open opens the export of opt, reads its CSV header, if any, and makes
// the directory its records are sorted in. The caller closes the Source,
// whatever Read and Write return.
func Open(opt Options) (*Source, error) {
	s := &Source{opt: opt, rep: &report.Export{Name: opt.Export, Withheld: map[string]int{}},
		hosts: map[string]int{}, skipped: map[int]bool{}, window: opt.Window >= 0}
	dir, err := s.openExport()
	if err == nil {
		if s.root, err = os.OpenRoot(dir); err != nil {
			err = fmt.Errorf("directory of the record export: %w", display.WithoutPath(err))
		}
	}
	if err == nil {
		if err = confined.Mkdir(opt.SortDir, 0o700); err != nil {
			err = fmt.Errorf("creating a directory to sort records in: %w", err)
		}
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	s.sortDir = opt.SortDir
	chunk := opt.Chunk
	if chunk <= 0 {
		chunk = extsort.DefaultChunkBytes / 2
	}
	s.rl, s.ch = extsort.New(opt.SortDir, chunk), extsort.New(opt.SortDir, chunk)
	if opt.Dump != nil {
		s.dump = extsort.New(opt.SortDir, chunk)
	}
	window := opt.Window
	if window == 0 {
		window = DefaultChangesWindow
	}
	s.rep.From = opt.At.Add(-window).Truncate(time.Second)
	return s, nil
}

// openExport opens the export and reads its CSV header, if any. It returns
// the directory the paths of its records are relative to.
func (s *Source) openExport() (dir string, err error) {
	opt := &s.opt
	var r io.Reader
	dir = filepath.Dir(opt.Export)
	if opt.Export == "-" {
		s.rep.Name, dir = "stdin", "."
		r = opt.Stdin
		if r == nil {
			s.file, r = os.Stdin, os.Stdin
		}
	}
	format, ok := records.FormatOf(opt.Export)
	if opt.Format != "" {
		if format, err = records.ParseFormat(opt.Format); err != nil {
			return "", err
		}
	} else if !ok {
		return "", fmt.Errorf("cannot tell the format of %s from its name (.jsonl, .ndjson, .csv, optionally .gz): give the export format", s.rep.Name)
	}
	if r == nil {
		f, err := os.Open(opt.Export)
		if err != nil {
			return "", fmt.Errorf("record export %s: %w", s.rep.Name, display.WithoutPath(err))
		}
		s.file, r = f, f
	}
	if s.rd, err = records.NewReader(r, format); err != nil {
		return "", fmt.Errorf("record export %s: %w", s.rep.Name, err)
	}
	s.rd.Count = &opt.Stats.Found
	return dir, nil
}

// closeFile closes the file of the export: a read waiting on it returns.
// It may be called from another goroutine than the one reading.
func (s *Source) closeFile() {
	if s.file != nil {
		s.file.Close()
	}
}

// Report is what the export held, as far as it was read and written.
func (s *Source) Report() *report.Export { return s.rep }

// Close closes the export and removes the sorted records, once (a second
// call does nothing), after Open succeeded or as it fails.
func (s *Source) Close() {
	if s.closed {
		return
	}
	s.closed = true
	for _, x := range []*extsort.Sorter{s.dump, s.ch, s.rl} {
		if x != nil {
			x.Close()
		}
	}
	if s.sortDir != "" {
		confined.RemoveAll(s.sortDir) // before the stage is published, which would publish it
	}
	if s.root != nil {
		s.root.Close()
	}
	if s.file != os.Stdin {
		s.closeFile()
	}
	if s.rd != nil {
		s.rd.Close()
	}
}

// Read reads the export with a pool of workers and sorts what they make
// of it: one goroutine reads batches, the workers make sortable records of
// them, and the collector sorts them. A build with a Resource Dump fails
// with a *DumpNeedsFilesError if a listed record has no local file.
func (s *Source) Read(ctx context.Context) error {
	// An interrupt must not wait for a pipe that sends nothing: closing
	// the export (stdin too, then) ends the read.
	stop := context.AfterFunc(ctx, s.closeFile)
	defer stop()
	rd, stats := s.rd, s.opt.Stats
	g, gctx := errgroup.WithContext(ctx)
	workers := s.opt.Jobs
	if workers <= 0 {
		workers = hashing.DefaultWorkers()
	}
	free := make(chan *job, 2*workers+2)
	for range cap(free) {
		free <- new(job)
	}
	jobs := make(chan *job, cap(free))
	results := make(chan *job, cap(free))

	g.Go(func() error {
		defer close(jobs)
		for {
			var j *job
			select {
			case j = <-free:
			case <-gctx.Done():
				return gctx.Err()
			}
			err := rd.ReadBatch(&j.batch, batchSize)
			if errors.Is(err, io.EOF) {
				stats.WalkDone.Store(true) // Found is the total
				return nil
			}
			if err != nil {
				return fmt.Errorf("reading the record export %s: %w", s.rep.Name, err)
			}
			select {
			case jobs <- j:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
	})
	var wg errgroup.Group
	for range workers {
		w := &worker{s: s, hasher: hashing.NewHasher(s.opt.Hashes)}
		wg.Go(func() error {
			for j := range jobs {
				w.batch(j)
				select {
				case results <- j:
				case <-gctx.Done():
					return gctx.Err()
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		defer close(results)
		return wg.Wait()
	})
	g.Go(func() error {
		for j := range results {
			if err := s.collect(&j.res); err != nil {
				return err
			}
			free <- j
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.dump != nil && s.noPath.n > 0 {
		return &DumpNeedsFilesError{Name: s.rep.Name, Records: s.noPath.n, First: s.noPath.first}
	}
	return nil
}

func (s *Source) collect(res *result) error {
	start := 0
	for _, a := range res.adds {
		if err := a.to.Add(res.buf[start:a.keyEnd], res.buf[a.keyEnd:a.end]); err != nil {
			return err
		}
		start = a.end
	}
	rep := s.rep
	rep.Records += res.records
	rep.Tombstones += res.tombstones
	for status, n := range res.withheld {
		rep.Withheld[status] += n
	}
	for h, n := range res.hosts {
		if _, ok := s.hosts[h]; ok || len(s.hosts) < 100 {
			s.hosts[h] += n
		} else {
			s.hosts[""] += n // the hundred-and-first host and after
		}
	}
	s.noTime.merge(res.noTime)
	s.future.merge(res.future)
	s.noPath.merge(res.noPath)
	for _, p := range res.bad {
		if err := s.badRecord(p); err != nil {
			return err
		}
	}
	return nil
}

// badRecord reports a bad record: a Problem if they are skipped, else
// one more reason to fail.
func (s *Source) badRecord(p report.Problem) error {
	s.rep.Bad++
	if s.opt.SkipBadRecords {
		s.opt.Problems.Add(p)
		return nil
	}
	if len(s.bad) < MaxReportedBad {
		s.bad = append(s.bad, p)
	}
	if s.opt.FailFast {
		return &BadRecordsError{Name: s.rep.Name, Problems: s.bad, Total: 1}
	}
	return nil
}
