package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/internal/text/units"
)

// startProgress draws the progress of a build over one line of w, redrawn
// every fifth of a second, if w is a terminal and not quiet; a log (CI, a
// file) gets only the summary. export says the counts are records.
func startProgress(w io.Writer, stats *report.Stats, quiet, export bool) (stop func()) {
	f, ok := w.(*os.File)
	if quiet || !ok || !term.IsTerminal(int(f.Fd())) {
		return func() {}
	}
	stats.CountAhead = true // the totals, early
	v := &progressView{term: f, stats: stats, export: export, phase: -1, since: time.Now()}
	stats.Entered = func(p report.Phase) { v.enter(p, time.Now()) }
	tick := time.NewTicker(200 * time.Millisecond)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			case t := <-tick.C:
				v.tick(t)
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
		tick.Stop()
		fmt.Fprint(f, "\r\x1b[K")
	}
}

// A progressView draws a build's progress over one line of term. A step is
// timed from when the build entered it (Stats.Entered), not from the first
// tick that saw it, which would claim up to a tick's bytes in no time.
type progressView struct {
	term   *os.File
	stats  *report.Stats
	export bool

	mu    sync.Mutex
	phase report.Phase // the step under way; -1 before the first
	set   string       // the set of a site it is of, or ""
	since time.Time    // when it began
}

func (v *progressView) enter(p report.Phase, now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if p != v.phase || v.stats.Set() != v.set {
		v.phase, v.set, v.since = p, v.stats.Set(), now
	}
}

func (v *progressView) tick(now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	p := readStats(v.stats, v.export)
	p.phase = max(v.phase, report.PhaseStarting)
	line := "rsgen: "
	if v.set != "" && v.phase != report.PhaseChecking { // a site's documents are checked together
		line += "set " + v.set + ": "
	}
	line += progressLine(p, now.Sub(v.since))
	if width, _, err := term.GetSize(int(v.term.Fd())); err == nil && width > 1 && len(line) >= width {
		line = line[:width-1] // a line that wraps cannot be drawn over
	}
	fmt.Fprint(v.term, "\r\x1b[K"+line)
}

// progress is the counts of a build's Stats at one moment.
type progress struct {
	phase                        report.Phase
	found, hashed, bytes, packed int64
	walkDone                     bool  // found is the total
	totalBytes                   int64 // the bytes of the found files, if counted ahead; else 0
	counting                     int64 // files the walk that counts ahead has found, until it is done
	cached                       int64 // files found unchanged in the hash cache, not read
	export                       bool  // the counts are records of an export
}

func readStats(s *report.Stats, export bool) progress {
	p := progress{phase: report.Phase(s.Phase.Load()), found: s.Found.Load(), hashed: s.Hashed.Load(),
		bytes:  max(s.Bytes.Load(), s.Read.Load()), // Read moves inside a large file, Bytes at its end
		packed: s.Packed.Load(), walkDone: s.WalkDone.Load(), cached: s.Cached.Load(), export: export}
	if s.Counted.Load() { // the totals; the scan finds more if the tree grew since the count
		p.found, p.totalBytes, p.walkDone = max(s.Total.Load(), p.found), max(s.TotalBytes.Load(), p.bytes), true
	} else {
		p.counting = s.Total.Load()
	}
	return p
}

// progressLine renders p, a step that began elapsed ago: its name, its
// counts and rate where it has some, else how long it has run, and once
// the total is known and the rate has run for 2s (less is mostly noise)
// the time left.
func progressLine(p progress, elapsed time.Duration) string {
	name := map[report.Phase]string{report.PhaseStarting: "starting", report.PhasePrevious: "reading the previous build",
		report.PhaseScanning: "hashing", report.PhasePackaging: "packaging", report.PhaseWriting: "writing the documents",
		report.PhaseChecking: "checking the documents"}[p.phase]
	took := " (" + seconds(elapsed) + ")"
	var done, total int64
	var c string
	switch {
	case p.phase == report.PhaseStarting:
		return name
	case p.phase == report.PhaseScanning && p.export:
		return "reading the export: " + units.Count(int(p.hashed), "record") + took
	case p.phase == report.PhasePackaging: // the files hashed are the total
		done, total = min(p.packed, p.hashed), p.hashed
		c = fmt.Sprintf(": %d/%d files", done, total)
	case p.phase != report.PhaseScanning:
		return name + took
	case !p.walkDone:
		rate := units.FormatSize(int64(float64(p.bytes)/max(elapsed.Seconds(), 0.001))) + "/s"
		c = ": " + units.Count(int(p.hashed), "file") + ", " + units.FormatSize(p.bytes) + ", " + rate
		if p.counting > p.hashed {
			return name + c + "; counting: " + units.Count(int(p.counting), "file") + " so far"
		}
		return name + c + "; still counting"
	default:
		// In bytes when their total is known and every file is read, which
		// tells the time left best when files differ in size; else in files
		// (a file found unchanged in the hash cache is done unread).
		rate := units.FormatSize(int64(float64(p.bytes)/max(elapsed.Seconds(), 0.001))) + "/s"
		size := units.FormatSize(p.bytes)
		done, total = p.hashed, p.found
		if p.totalBytes > 0 {
			size += "/" + units.FormatSize(p.totalBytes)
		}
		if p.totalBytes > 0 && p.cached == 0 {
			done, total = p.bytes, p.totalBytes
		}
		c = fmt.Sprintf(": %d/%d files, %s, %s, %d%%", p.hashed, p.found, size, rate, 100*min(done, total)/max(total, 1))
	}
	if done > 0 && done < total && elapsed >= 2*time.Second {
		c += ", ETA " + seconds(time.Duration(float64(elapsed)*float64(total-done)/float64(done)))
	}
	return name + c
}

// seconds renders d to the second: 0s, 42s, 3m5s, 1h2m0s.
func seconds(d time.Duration) string {
	return d.Round(time.Second).String()
}
