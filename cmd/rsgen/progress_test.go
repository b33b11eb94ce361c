package main

import (
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator"
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
		{"reading --previous: no 0/0 files", progress{phase: generator.PhasePrevious}, 3 * time.Second,
			"rsgen: reading the previous build (3s)"},
		{"hashing while the walk counts", progress{phase: generator.PhaseScanning, found: 500, hashed: 100, bytes: 10 * mib}, 5 * time.Second,
			"rsgen: hashing: 100 files, 10.0 MiB, 2.0 MiB/s; still counting"},
		{"hashing, too early for an ETA", progress{phase: generator.PhaseScanning, found: 500, hashed: 100, bytes: mib, walkDone: true}, time.Second,
			"rsgen: hashing: 100/500 files, 1.0 MiB, 1.0 MiB/s"},
		{"hashing with an ETA", progress{phase: generator.PhaseScanning, found: 500, hashed: 100, bytes: 10 * mib, walkDone: true}, 10 * time.Second,
			"rsgen: hashing: 100/500 files, 10.0 MiB, 1.0 MiB/s, ETA 40s"},
		{"hashing done", progress{phase: generator.PhaseScanning, found: 500, hashed: 500, bytes: 10 * mib, walkDone: true}, 10 * time.Second,
			"rsgen: hashing: 500/500 files, 10.0 MiB, 1.0 MiB/s"},
		{"packaging: no frozen 50000/50000", progress{phase: generator.PhasePackaging, found: 50000, hashed: 50000, packed: 12500, walkDone: true}, 30 * time.Second,
			"rsgen: packaging: 12500/50000 files, ETA 1m30s"},
		{"packaging, nothing opened yet", progress{phase: generator.PhasePackaging, hashed: 50000}, 30 * time.Second,
			"rsgen: packaging: 0/50000 files"},
		{"writing", progress{phase: generator.PhaseWriting, hashed: 50000}, 1500 * time.Millisecond,
			"rsgen: writing the documents (2s)"},
		{"checking", progress{phase: generator.PhaseChecking, hashed: 50000}, 0,
			"rsgen: checking the documents (0s)"},
		{"an export counts records", progress{phase: generator.PhaseScanning, hashed: 1, export: true}, 4 * time.Second,
			"rsgen: reading the export: 1 record (4s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := progressLine(tt.p, tt.elapsed); got != tt.want {
				t.Errorf("progressLine\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
