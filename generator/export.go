package generator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/extsort"
	"github.com/rsgen/rsgen/internal/records"
)

// A record export is a catalogue: one record per line of JSON Lines or
// row of CSV (package records). rsgen publishes its published records as
// the Resource List and, from their times alone, a Change List of a
// trailing window. The rules, documented in docs/EXPORTS.md:
//
//   - Only records whose status is "published", or absent, appear
//     anywhere. A draft is never listed, not even as a deletion: a record
//     that went from published back to draft is gone from the Resource
//     List, and a Destination learns of it only from a tombstone, which is
//     the publisher's to export.
//   - A tombstone (deleted) is a deletion at its deletion time, else at its
//     lastmod; it is never in the Resource List.
//   - The Change List holds, oldest first, every event of the window
//     [snapshot - window, snapshot]: a record created (created equals
//     lastmod, to the second) or updated (otherwise) at its lastmod, and a
//     tombstone deleted at its time. One record gives one event: its last.
//     The list is open (no until): every build rewrites it at the same URL,
//     so it is never final, and section 12.1 says a closed list is never
//     updated again.
//   - A published record or tombstone without a time makes the Change
//     List impossible: it is then omitted with a warning, never invented.
//
// Records are parsed by a pool of workers, which also read, hash and check
// the local files some records name; the collector puts what they give
// into two extsort.Sorters (by loc, and by time), and a third (by path)
// for a Resource Dump (export_dump.go), which spill to disk past their
// memory. Each list is then written from passes over its sorter.

// DefaultChangesWindow is the trailing window of a record export's Change List.
const DefaultChangesWindow = 30 * 24 * time.Hour

// maxReportedBad bounds the bad records a failed build names one by one.
const maxReportedBad = 1000

// exportBatch is the number of records a worker parses at a time.
const exportBatch = 256

// ExportReport says what a build from a record export found.
type ExportReport struct {
	Name       string         // the export, as messages name it
	Records    int            // records read, bad ones included
	Listed     int            // in the Resource List
	Bytes      int64          // their known lengths, summed
	Tombstones int            // deleted records that were published
	Withheld   map[string]int // records not published, by status
	Bad        int            // bad records (skipped, with SkipBadRecords)
	Unpackaged int            // records left out of every list: their files could not be packaged (Resource Dump)
	ChangeList bool           // a Change List was written
	Changes    int            // its entries
	NoChanges  bool           // no Change List: nothing happened in the window
	From       time.Time      // start of its window
	Warnings   []string       // what a publisher should know: other hosts, no Change List…
}

// BadRecordsError fails a build from an export with bad records, unless
// SkipBadRecords is set. Nothing is published.
type BadRecordsError struct {
	Name     string
	Problems []Problem // the first maxReportedBad, in order of line
	Total    int
}

func (e *BadRecordsError) Error() string {
	s := "s"
	if e.Total == 1 {
		s = ""
	}
	return fmt.Sprintf("%d bad record%s in %s; nothing was published", e.Total, s, e.Name)
}

// exportJob carries one batch to a worker and its result back.
type exportJob struct {
	batch records.Batch
	res   exportResult
}

// exportResult is what a worker made of a batch.
type exportResult struct {
	buf        []byte      // keys and payloads, back to back
	adds       []exportAdd // what to put in which sorter, in order
	bad        []Problem
	records    int
	tombstones int
	withheld   map[string]int
	hosts      map[string]int // scheme://host of the locs, with their counts
	noTime     lineCount      // listed records without a time
	future     lineCount      // events after the snapshot
	noPath     lineCount      // with a Resource Dump: listed records without a local file
}

// exportAdd is one record for a sorter: key buf[start:keyEnd], payload
// buf[keyEnd:end], where start is the end of the previous one.
type exportAdd struct {
	to     sorterID
	keyEnd int
	end    int
}

// sorterID names the sorter of an exportAdd.
type sorterID uint8

const (
	toResources sorterID = iota // exportState.rl
	toChanges                   // exportState.ch
	toDump                      // exportState.dump
)

// lineCount counts records and remembers the first one's line.
type lineCount struct{ n, first int }

func (c *lineCount) add(line int) {
	if c.n == 0 || line < c.first {
		c.first = line
	}
	c.n++
}

func (c *lineCount) merge(o lineCount) {
	if o.n > 0 && (c.n == 0 || o.first < c.first) {
		c.first = o.first
	}
	c.n += o.n
}

func (r *exportResult) reset() {
	r.buf, r.adds, r.bad = r.buf[:0], r.adds[:0], r.bad[:0]
	r.records, r.tombstones, r.noTime, r.future, r.noPath = 0, 0, lineCount{}, lineCount{}, lineCount{}
	clear(r.withheld)
	clear(r.hosts)
}

// exportState is what the collector gathers from all batches.
type exportState struct {
	rep      *ExportReport
	rl, ch   *extsort.Sorter
	dump     *extsort.Sorter // by path, with a Resource Dump; else nil
	bad      []Problem       // bad records, when they fail the build
	hosts    map[string]int
	noTime   lineCount
	future   lineCount
	noPath   lineCount
	skipped  map[int]bool // lines of skipped duplicates, and of records left out of the dump: kept out of every list
	from     time.Time
	window   bool // a Change List is wanted
	failFast bool
	// noFiles is set once a listed record without a local file makes a
	// Resource Dump impossible: the files of the others are not read.
	noFiles atomic.Bool
}

// exportInput is an open export.
type exportInput struct {
	rd   *records.Reader
	name string   // as messages name it
	dir  string   // its paths are relative to this directory
	file *os.File // the export, or os.Stdin
}

// close closes the file of the export: a read waiting on it returns. It
// may be called from another goroutine than the one reading.
func (in *exportInput) close() {
	if in.file != nil {
		in.file.Close()
	}
}

// openExport opens the export and reads its CSV header, if any.
func (b *build) openExport() (*exportInput, error) {
	cfg := b.cfg
	in := &exportInput{name: cfg.Export, dir: filepath.Dir(cfg.Export)}
	var r io.Reader
	if cfg.Export == "-" {
		in.name, in.dir = "stdin", "."
		r = cfg.stdin
		if r == nil {
			in.file, r = os.Stdin, os.Stdin
		}
	}
	format, ok := records.FormatOf(cfg.Export)
	if cfg.ExportFormat != "" {
		var err error
		if format, err = records.ParseFormat(cfg.ExportFormat); err != nil {
			return nil, err
		}
	} else if !ok {
		return nil, fmt.Errorf("cannot tell the format of %s from its name (.jsonl, .ndjson, .csv, optionally .gz): give the export format", in.name)
	}
	if r == nil {
		f, err := os.Open(cfg.Export)
		if err != nil {
			return nil, fmt.Errorf("record export %s: %w", in.name, unwrapPath(err))
		}
		in.file, r = f, f
	}
	var err error
	if in.rd, err = records.NewReader(r, format); err != nil {
		in.close()
		return nil, fmt.Errorf("record export %s: %w", in.name, err)
	}
	return in, nil
}

// runExport publishes a record export: its Resource List, its Change List,
// then the Capability List, the Source Description and the files for hosts.
func (b *build) runExport(ctx context.Context) error {
	in, err := b.openExport()
	if err != nil {
		return err
	}
	defer in.rd.Close()
	if in.file != os.Stdin {
		defer in.close()
	}
	// An interrupt must not wait for a pipe that sends nothing: closing
	// the export (stdin too, then) ends the read.
	stop := context.AfterFunc(ctx, in.close)
	defer stop()
	rd, name := in.rd, in.name
	root, err := os.OpenRoot(in.dir)
	if err != nil {
		return fmt.Errorf("directory of the record export: %w", unwrapPath(err))
	}
	defer root.Close()

	sortDir := b.stage.Path(".sort")
	for _, d := range []string{"", "resources", "changes", "dump"} {
		if err := os.Mkdir(filepath.Join(sortDir, d), 0o700); err != nil {
			return fmt.Errorf("creating a directory to sort records in: %w", err)
		}
	}
	defer os.RemoveAll(sortDir) // before Publish, which would publish it
	chunk := b.cfg.chunk
	if chunk <= 0 {
		chunk = extsort.DefaultChunkBytes / 2
	}
	x := &exportState{
		rep:      &ExportReport{Name: name, Withheld: map[string]int{}},
		rl:       extsort.New(filepath.Join(sortDir, "resources"), chunk),
		ch:       extsort.New(filepath.Join(sortDir, "changes"), chunk),
		hosts:    map[string]int{},
		window:   b.cfg.ChangesWindow >= 0,
		failFast: b.cfg.FailFast,
	}
	defer x.rl.Close()
	defer x.ch.Close()
	if b.cfg.Dump.Enabled {
		x.dump = extsort.New(filepath.Join(sortDir, "dump"), chunk)
		defer x.dump.Close()
	}
	b.export = x.rep
	window := b.cfg.ChangesWindow
	if window == 0 {
		window = DefaultChangesWindow
	}
	x.from = b.at.Add(-window).Truncate(time.Second)
	x.rep.From = x.from

	if err := b.ingest(ctx, rd, root, x); err != nil {
		return err
	}
	if x.rep.Records == 0 && !b.cfg.AllowEmpty {
		// An export that failed upstream (a dump piped into rsgen) looks
		// like this; publishing it would empty the Resource List.
		return emptySource("the record export " + name + " holds no records")
	}
	if x.dump != nil && x.noPath.n > 0 {
		return &DumpNeedsFilesError{Name: name, Records: x.noPath.n, First: x.noPath.first}
	}
	b.done = b.completed()
	if err := b.writeExportLists(ctx, x, root, b.done); err != nil {
		return err
	}
	return b.writeCapabilityList()
}

// ingest reads the export with a pool of workers and sorts what they make
// of it.
func (b *build) ingest(ctx context.Context, rd *records.Reader, root *os.Root, x *exportState) error {
	g, gctx := errgroup.WithContext(ctx)
	workers := b.cfg.Jobs
	if workers <= 0 {
		workers = hashing.DefaultWorkers()
	}
	free := make(chan *exportJob, 2*workers+2)
	for range cap(free) {
		free <- new(exportJob)
	}
	jobs := make(chan *exportJob, cap(free))
	results := make(chan *exportJob, cap(free))

	g.Go(func() error {
		defer close(jobs)
		for {
			var job *exportJob
			select {
			case job = <-free:
			case <-gctx.Done():
				return gctx.Err()
			}
			err := rd.ReadBatch(&job.batch, exportBatch)
			if errors.Is(err, io.EOF) {
				b.stats.WalkDone.Store(true) // Found is the total
				return nil
			}
			if err != nil {
				return fmt.Errorf("reading the record export %s: %w", x.rep.Name, err)
			}
			b.stats.Found.Add(int64(job.batch.Len()))
			select {
			case jobs <- job:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
	})
	var wg errgroup.Group
	for range workers {
		w := &exportWorker{b: b, rd: rd, root: root, hasher: hashing.NewHasher(b.cfg.Hashes), x: x}
		wg.Go(func() error {
			for job := range jobs {
				w.batch(job)
				select {
				case results <- job:
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
		for job := range results {
			if err := b.collect(x, &job.res); err != nil {
				return err
			}
			b.stats.Hashed.Add(int64(job.batch.Len()))
			free <- job
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// errStopAtBad stops reading at the first bad record with FailFast.
var errStopAtBad = errors.New("stopped at the first bad record")

// collect adds what a worker made of a batch to the state.
func (b *build) collect(x *exportState, res *exportResult) error {
	start := 0
	for _, a := range res.adds {
		s := x.rl
		switch a.to {
		case toChanges:
			s = x.ch
		case toDump:
			s = x.dump
		}
		if err := s.Add(res.buf[start:a.keyEnd], res.buf[a.keyEnd:a.end]); err != nil {
			return err
		}
		start = a.end
	}
	rep := x.rep
	rep.Records += res.records
	rep.Tombstones += res.tombstones
	for status, n := range res.withheld {
		rep.Withheld[status] += n
	}
	for h, n := range res.hosts {
		if _, ok := x.hosts[h]; ok || len(x.hosts) < 100 {
			x.hosts[h] += n
		} else {
			x.hosts[""] += n // the hundred-and-first host and after
		}
	}
	x.noTime.merge(res.noTime)
	x.future.merge(res.future)
	x.noPath.merge(res.noPath)
	for _, p := range res.bad {
		if err := b.badRecord(x, p); err != nil {
			return err
		}
	}
	return nil
}

// badRecord reports a bad record: a Problem if they are skipped, else
// one more reason to fail.
func (b *build) badRecord(x *exportState, p Problem) error {
	x.rep.Bad++
	if b.cfg.SkipBadRecords {
		b.problems.Add(p)
		return nil
	}
	if len(x.bad) < maxReportedBad {
		x.bad = append(x.bad, p)
	}
	if x.failFast {
		return &BadRecordsError{Name: x.rep.Name, Problems: x.bad, Total: 1}
	}
	return nil
}

// hostOf returns the scheme and host of an absolute URL ("https://example.org").
func hostOf(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
		return u[:i+3+j]
	}
	if j := strings.IndexByte(u[i+3:], '?'); j >= 0 {
		return u[:i+3+j]
	}
	return u
}
