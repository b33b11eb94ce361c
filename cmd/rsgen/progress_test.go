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
		{"an export counts records", progress{phase: report.PhaseScanning, hashed: 1, export: true}, 4 * time.Second,
			"rsgen: reading the export: 1 record (4s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := "rsgen: " + progressLine(tt.p, tt.elapsed); got != tt.want {
				t.Errorf("progressLine\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// With --quiet nothing is written.
func TestProgressQuiet(t *testing.T) {
	var out strings.Builder
	stats := new(report.Stats)
	stop := startProgress(&out, stats, true, false)
	stats.Enter(report.PhaseScanning)
	stop()
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
	got := "rsgen: " + progressLine(readStats(stats, false), 10*time.Second)
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
	v := &progressView{term: w, stats: stats, phase: -1}
	v.enter(report.PhaseScanning, t0)
	stats.Hashed.Store(10)
	stats.Read.Store(10 * mib)
	v.tick(t0.Add(5 * time.Second))
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
	got := "rsgen: " + progressLine(readStats(stats, false), time.Second)
	if want := "rsgen: hashing: 105/105 files, 105 B/105 B, 105 B/s, 100%"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
