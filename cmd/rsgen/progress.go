package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/internal/units"
)

// startProgress draws the progress of a build on w, once a fifth of a
// second, if w is a terminal and the build is not quiet. The returned
// function stops it and clears the line. export says the build reads a
// record export, whose counts are records.
func startProgress(w io.Writer, stats *generator.Stats, quiet, export bool) func() {
	f, ok := w.(*os.File)
	if quiet || !ok || !term.IsTerminal(int(f.Fd())) {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		phase, since := generator.Phase(-1), time.Now()
		for {
			select {
			case <-done:
				fmt.Fprint(w, "\r\x1b[K")
				return
			case now := <-tick.C:
				p := readStats(stats, export)
				if p.phase != phase {
					phase, since = p.phase, now // the time of each phase, for its rate and ETA
				}
				line := progressLine(p, now.Sub(since))
				if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 1 && len(line) >= width {
					line = line[:width-1] // a line that wraps cannot be drawn over
				}
				fmt.Fprint(w, "\r\x1b[K"+line)
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// progress is what the progress line shows: the counts of a build's
// Stats at one moment.
type progress struct {
	phase                        generator.Phase
	found, hashed, bytes, packed int64
	walkDone                     bool // found is the total
	export                       bool // the counts are records of an export
}

func readStats(s *generator.Stats, export bool) progress {
	return progress{
		phase:    generator.Phase(s.Phase.Load()),
		found:    s.Found.Load(),
		hashed:   s.Hashed.Load(),
		bytes:    s.Bytes.Load(),
		packed:   s.Packed.Load(),
		walkDone: s.WalkDone.Load(),
		export:   export,
	}
}

// etaAfter is how long a phase runs before the progress line guesses
// when it ends: a rate measured over less is mostly noise.
const etaAfter = 2 * time.Second

// progressLine renders the progress p of a build, whose current phase
// began elapsed ago: what the build is doing, its counts, and, where it
// knows the total, the time left at the rate of the phase so far.
func progressLine(p progress, elapsed time.Duration) string {
	switch p.phase {
	case generator.PhasePrevious:
		return "rsgen: reading the previous build (" + seconds(elapsed) + ")"
	case generator.PhaseScanning:
		if p.export {
			return fmt.Sprintf("rsgen: reading the export: %s (%s)", units.Count(int(p.hashed), "record"), seconds(elapsed))
		}
		rate := float64(p.bytes) / max(elapsed.Seconds(), 0.001)
		if !p.walkDone {
			return fmt.Sprintf("rsgen: hashing: %d files, %s, %s/s; still counting", p.hashed, units.FormatSize(p.bytes), units.FormatSize(int64(rate)))
		}
		return fmt.Sprintf("rsgen: hashing: %d/%d files, %s, %s/s", p.hashed, p.found, units.FormatSize(p.bytes), units.FormatSize(int64(rate))) +
			eta(p.hashed, p.found, elapsed)
	case generator.PhasePackaging:
		total := p.hashed
		packed := min(p.packed, total)
		return fmt.Sprintf("rsgen: packaging: %d/%d files", packed, total) + eta(packed, total, elapsed)
	case generator.PhaseWriting:
		return "rsgen: writing the documents (" + seconds(elapsed) + ")"
	case generator.PhaseChecking:
		return "rsgen: checking the documents (" + seconds(elapsed) + ")"
	}
	return "rsgen: starting"
}

// eta renders the time left to do total at the rate done took elapsed,
// or "" when that cannot be told yet.
func eta(done, total int64, elapsed time.Duration) string {
	if done <= 0 || done >= total || elapsed < etaAfter {
		return ""
	}
	left := time.Duration(float64(elapsed) * float64(total-done) / float64(done))
	return ", ETA " + seconds(left)
}

// seconds renders d to the second: 0s, 42s, 3m5s, 1h2m0s.
func seconds(d time.Duration) string {
	return d.Round(time.Second).String()
}
