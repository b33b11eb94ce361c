package main

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/report"
)

// The progress line names what the build is doing, with counts only where
// there are some, and an ETA only where it means something: once the
// total is known and the phase has run long enough to have a rate.
func TestProgressLine(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name    string
		p       progress
		elapsed time.Duration
		want    string
	}{
		{"starting", progress{}, 0, "rsgen: starting"},
		{"reading --previous: no 0/0 files", progress{phase: report.PhasePrevious}, 3 * time.Second,
			"rsgen: reading the previous build (3s)"},
		{"hashing while the walk counts", progress{phase: report.PhaseScanning, found: 500, hashed: 100, bytes: 10 * mib}, 5 * time.Second,
			"rsgen: hashing: 100 files, 10.0 MiB, 2.0 MiB/s; still counting"},
		{"hashing while the walk ahead counts", progress{phase: report.PhaseScanning, found: 500, hashed: 100, counting: 7000, bytes: 10 * mib}, 5 * time.Second,
			"rsgen: hashing: 100 files, 10.0 MiB, 2.0 MiB/s; counting: 7000 files so far"},
		{"hashing one file", progress{phase: report.PhaseScanning, hashed: 1, counting: 1, bytes: 2}, time.Second,
			"rsgen: hashing: 1 file, 2 B, 2 B/s; still counting"},
		{"hashing, too early for an ETA", progress{phase: report.PhaseScanning, found: 500, hashed: 100, bytes: mib, walkDone: true}, time.Second,
			"rsgen: hashing: 100/500 files, 1.0 MiB, 1.0 MiB/s, 20%"},
		{"hashing with an ETA", progress{phase: report.PhaseScanning, found: 500, hashed: 100, bytes: 10 * mib, walkDone: true}, 10 * time.Second,
			"rsgen: hashing: 100/500 files, 10.0 MiB, 1.0 MiB/s, 20%, ETA 40s"},
		{"hashing, the totals counted ahead: by bytes", progress{phase: report.PhaseScanning, found: 500, hashed: 400, bytes: 10 * mib, totalBytes: 40 * mib, walkDone: true}, 10 * time.Second,
			"rsgen: hashing: 400/500 files, 10.0 MiB/40.0 MiB, 1.0 MiB/s, 25%, ETA 30s"},
		{"hashing with a hash cache: by files", progress{phase: report.PhaseScanning, found: 500, hashed: 400, cached: 300, bytes: 10 * mib, totalBytes: 40 * mib, walkDone: true}, 10 * time.Second,
			"rsgen: hashing: 400/500 files, 10.0 MiB/40.0 MiB, 1.0 MiB/s, 80%, ETA 3s"},
		{"hashing done", progress{phase: report.PhaseScanning, found: 500, hashed: 500, bytes: 10 * mib, walkDone: true}, 10 * time.Second,
			"rsgen: hashing: 500/500 files, 10.0 MiB, 1.0 MiB/s, 100%"},
		{"packaging: no frozen 50000/50000", progress{phase: report.PhasePackaging, found: 50000, hashed: 50000, packed: 12500, walkDone: true}, 30 * time.Second,
			"rsgen: packaging: 12500/50000 files, ETA 1m30s"},
		{"packaging, nothing opened yet", progress{phase: report.PhasePackaging, hashed: 50000}, 30 * time.Second,
			"rsgen: packaging: 0/50000 files"},
		{"writing", progress{phase: report.PhaseWriting, hashed: 50000}, 1500 * time.Millisecond,
			"rsgen: writing the documents (2s)"},
		{"checking", progress{phase: report.PhaseChecking, hashed: 50000}, 0,
			"rsgen: checking the documents (0s)"},
		{"an export counts the records read, parsed or not", progress{phase: report.PhaseReading, found: 1}, 4 * time.Second,
			"rsgen: reading the export: 1 record (4s)"},
		{"an export's files to package are not counted", progress{phase: report.PhasePackaging, found: 9, packed: 3, walkDone: true, export: true}, 4 * time.Second,
			"rsgen: packaging: 3 files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := "rsgen: " + progressLine(tt.p, tt.elapsed); got != tt.want {
				t.Errorf("progressLine\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// In a log (stderr not a terminal), each step says when it starts and
// ends, a long one writes its progress line at most every 30 seconds, and
// no line is ever drawn over.
func TestProgressLog(t *testing.T) {
	const mib = 1 << 20
	var out strings.Builder
	stats := new(report.Stats)
	l := &progressView{w: &out, stats: stats, phase: -1}
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }

	l.enter(report.PhaseStarting, at(0), false)
	l.enter(report.PhasePrevious, at(0), false)
	l.tick(at(29 * time.Second)) // under 30 s: nothing
	l.enter(report.PhaseScanning, at(31*time.Second), false)
	stats.Found.Store(1000)
	stats.Hashed.Store(100)
	stats.Bytes.Store(30 * mib)
	l.tick(at(40 * time.Second)) // 9 s into the step: nothing
	l.tick(at(61 * time.Second)) // 30 s into it: a line
	l.tick(at(90 * time.Second)) // 29 s after that line: nothing
	stats.Total.Store(1000)      // the walk that counts ahead is done
	stats.TotalBytes.Store(120 * mib)
	stats.Counted.Store(true)
	stats.Hashed.Store(500)
	stats.Bytes.Store(60 * mib)
	l.tick(at(91 * time.Second)) // 30 s after the last line: a line with the total and an ETA
	stats.Hashed.Store(1000)
	stats.Bytes.Store(120 * mib)
	l.enter(report.PhaseWriting, at(151*time.Second), false)
	l.enter(report.PhaseWriting, at(152*time.Second), false) // again (the next set of a site): no line
	l.enter(report.PhaseChecking, at(153*time.Second), false)
	l.enter(-1, at(154*time.Second), false)

	want := `rsgen: reading the previous build: started
rsgen: reading the previous build: done in 31s
rsgen: hashing: started
rsgen: hashing: 100 files, 30.0 MiB, 1.0 MiB/s; still counting
rsgen: hashing: 500/1000 files, 60.0 MiB/120.0 MiB, 1.0 MiB/s, 50%, ETA 1m0s
rsgen: hashing: done in 2m0s: 1000 files, 120.0 MiB, 1.0 MiB/s
rsgen: writing the documents: started
rsgen: writing the documents: done in 2s
rsgen: checking the documents: started
rsgen: checking the documents: done in 1s
`
	if got := out.String(); got != want {
		t.Errorf("the log:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(out.String(), "\r") {
		t.Error("a carriage return in a log")
	}

	out.Reset()
	l.enter(report.PhaseScanning, at(0), false)
	l.enter(-1, at(3*time.Second), true)
	if got, want := out.String(), "rsgen: hashing: started\nrsgen: hashing: stopped after 3s: 1000 files, 120.0 MiB, 40.0 MiB/s\n"; got != want {
		t.Errorf("a failed build's log:\n%s\nwant:\n%s", got, want)
	}
}

// The log of a build from a record export: its steps named for what they
// do, and within a long read (a slow pipe) the records read so far, which
// the workers have not parsed yet (it said 0 records after 31 s).
func TestProgressLogExport(t *testing.T) {
	var out strings.Builder
	stats := new(report.Stats)
	l := &progressView{w: &out, stats: stats, phase: -1}
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	l.enter(report.PhaseReading, at(0), false)
	stats.Found.Store(1)
	l.tick(at(31 * time.Second))
	stats.Found.Store(2)
	stats.WalkDone.Store(true)
	l.enter(report.PhasePackaging, at(40*time.Second), false)
	stats.Packed.Store(1)
	l.tick(at(71 * time.Second))
	stats.Packed.Store(2)
	l.enter(report.PhaseWriting, at(72*time.Second), false)
	l.enter(report.PhaseChecking, at(73*time.Second), false)
	l.enter(-1, at(74*time.Second), false)
	want := `rsgen: reading the export: started
rsgen: reading the export: 1 record (31s)
rsgen: reading the export: done in 40s: 2 records
rsgen: packaging: started
rsgen: packaging: 1 file
rsgen: packaging: done in 32s: 2 files
rsgen: writing the documents: started
rsgen: writing the documents: done in 1s
rsgen: checking the documents: started
rsgen: checking the documents: done in 1s
`
	if got := out.String(); got != want {
		t.Errorf("the log:\n%s\nwant:\n%s", got, want)
	}
}

// In the log of a site, each set's steps name it, and its counts are its
// own; the documents of every set are checked together.
func TestProgressLogSets(t *testing.T) {
	var out strings.Builder
	stats := new(report.Stats)
	l := &progressView{w: &out, stats: stats, phase: -1}
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	stats.NextSet("articles")
	l.enter(report.PhaseScanning, t0, false)
	stats.Hashed.Store(3)
	stats.Bytes.Store(300)
	stats.Read.Add(300)
	l.enter(report.PhaseWriting, t0.Add(time.Second), false)
	stats.NextSet("records") // a record export: its steps named for what they do
	l.enter(report.PhaseReading, t0.Add(2*time.Second), false)
	stats.Found.Store(7)
	l.enter(report.PhasePackaging, t0.Add(3*time.Second), false)
	stats.Packed.Store(6)
	l.enter(report.PhaseWriting, t0.Add(4*time.Second), false)
	stats.NextSet("data")
	l.enter(report.PhaseWriting, t0.Add(5*time.Second), false) // the next set's (were it to start there): a step of its own
	l.enter(report.PhaseScanning, t0.Add(6*time.Second), false)
	stats.Hashed.Store(2)
	stats.Bytes.Store(20)
	stats.Read.Add(20)
	l.enter(report.PhaseChecking, t0.Add(7*time.Second), false)
	l.enter(-1, t0.Add(8*time.Second), false)
	want := `rsgen: set articles: hashing: started
rsgen: set articles: hashing: done in 1s: 3 files, 300 B, 300 B/s
rsgen: set articles: writing the documents: started
rsgen: set articles: writing the documents: done in 1s
rsgen: set records: reading the export: started
rsgen: set records: reading the export: done in 1s: 7 records
rsgen: set records: packaging: started
rsgen: set records: packaging: done in 1s: 6 files
rsgen: set records: writing the documents: started
rsgen: set records: writing the documents: done in 1s
rsgen: set data: writing the documents: started
rsgen: set data: writing the documents: done in 1s
rsgen: set data: hashing: started
rsgen: set data: hashing: done in 1s: 2 files, 20 B, 20 B/s
rsgen: checking the documents: started
rsgen: checking the documents: done in 1s
`
	if got := out.String(); got != want {
		t.Errorf("the log:\n%s\nwant:\n%s", got, want)
	}
}

// With --quiet nothing is written, even in a log.
func TestProgressQuiet(t *testing.T) {
	var out strings.Builder
	stats := new(report.Stats)
	stop := startProgress(&out, stats, true)
	stats.Enter(report.PhaseScanning)
	stop(false)
	if out.Len() != 0 {
		t.Errorf("quiet, yet: %q", out.String())
	}
}

// TestProgressInsideALargeFile: the bytes read of a file not yet hashed
// to its end count, so that a large file moves the line (it stayed at 0%
// until its end).
func TestProgressInsideALargeFile(t *testing.T) {
	const mib = 1 << 20
	stats := new(report.Stats)
	stats.Phase.Store(int32(report.PhaseScanning))
	stats.Total.Store(1)
	stats.TotalBytes.Store(100 * mib)
	stats.Counted.Store(true)
	stats.Read.Store(25 * mib)
	got := "rsgen: " + progressLine(readStats(stats), 10*time.Second)
	if want := "rsgen: hashing: 0/1 files, 25.0 MiB/100.0 MiB, 2.5 MiB/s, 25%, ETA 30s"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// On a terminal, a step is timed from when the build entered it, not
// from the first frame that saw it: that frame claimed the bytes of up to
// a tick in no time (84.5 GiB/s on the first line of hashing).
func TestProgressDrawTimesSteps(t *testing.T) {
	const mib = 1 << 20
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	stats := new(report.Stats)
	v := &progressView{w: w, term: w, stats: stats, phase: -1}
	v.enter(report.PhaseScanning, t0, false)
	stats.Hashed.Store(10)
	stats.Read.Store(10 * mib)
	v.tick(t0.Add(5 * time.Second))
	v.enter(-1, t0.Add(6*time.Second), false)
	w.Close()
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := "rsgen: hashing: 10 files, 10.0 MiB, 2.0 MiB/s; still counting"; !strings.Contains(string(out), want) {
		t.Errorf("drawn %q, want a line %q", out, want)
	}
}

// A tree that grew after the walk ahead counted it: the total is what the
// scan found, never less than what it hashed (105/100 files, 105%).
func TestProgressTreeGrew(t *testing.T) {
	stats := new(report.Stats)
	stats.Phase.Store(int32(report.PhaseScanning))
	stats.Total.Store(100)
	stats.TotalBytes.Store(100)
	stats.Counted.Store(true)
	stats.Found.Store(105)
	stats.Hashed.Store(105)
	stats.Bytes.Store(105)
	got := "rsgen: " + progressLine(readStats(stats), time.Second)
	if want := "rsgen: hashing: 105/105 files, 105 B/105 B, 105 B/s, 100%"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
