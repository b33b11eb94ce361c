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

// startProgress shows the progress of a build on w, unless quiet: on a
// terminal, one line drawn over every fifth of a second; elsewhere (a CI
// log, a file), a line as each step starts and ends, and the progress
// line at most every logEvery within a long step. stop's failed says the
// build failed.
func startProgress(w io.Writer, stats *report.Stats, quiet bool) (stop func(failed bool)) {
	if quiet {
		return func(bool) {}
	}
	stats.CountAhead = true // the totals, early
	v := &progressView{w: w, stats: stats, phase: -1, since: time.Now()}
	tick := time.NewTicker(time.Second)
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		v.term = f
		tick.Reset(200 * time.Millisecond)
	}
	stats.Entered = func(p report.Phase) { v.enter(p, time.Now(), false) }
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
	return func(failed bool) {
		close(done)
		wg.Wait()
		tick.Stop()
		v.enter(-1, time.Now(), failed)
	}
}

// logEvery is the longest a step runs without a line in a log: often
// enough to show a build is alive, rarely enough to keep a CI log short.
const logEvery = 30 * time.Second

// A progressView draws a build's progress over one line of term, or as
// lines of a log on w. A step is timed from when the build entered it
// (Stats.Entered), not from the first tick that saw it, which would claim
// up to a tick's bytes in no time. Its methods take the time (a test's
// clock) and may be called from several goroutines.
type progressView struct {
	w     io.Writer
	term  *os.File // the terminal w is, or nil for a log
	stats *report.Stats

	mu          sync.Mutex
	phase       report.Phase // the step under way; -1 before the first
	set         string       // the set of a site it is of, or ""
	export      bool         // the set is a record export: it began with PhaseReading
	since, last time.Time    // when it began, and when a log last got its line
}

// enter records, at now, that the build entered step p, or ended (p -1)
// having failed or not: a log gets the line that ends the step before,
// with the counts of what it did, and the one that starts p; a terminal
// is cleared at the end.
func (v *progressView) enter(p report.Phase, now time.Time, failed bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if p >= 0 && p == v.phase && v.stats.Set() == v.set {
		return
	}
	if v.term != nil && p < 0 {
		fmt.Fprint(v.w, "\r\x1b[K")
	}
	if v.term == nil && v.phase > report.PhaseStarting {
		c := readStats(v.stats)
		c.phase, c.walkDone, c.export = v.phase, false, v.export // what was done, not a total
		how := map[bool]string{false: ": done in ", true: ": stopped after "}[failed]
		fmt.Fprintln(v.w, v.prefix()+c.name()+how+seconds(now.Sub(v.since))+c.counts(now.Sub(v.since), false))
	}
	if p == report.PhaseReading || v.stats.Set() != v.set {
		v.export = p == report.PhaseReading
	}
	v.phase, v.since, v.last, v.set = p, now, now, v.stats.Set()
	if v.term == nil && p > report.PhaseStarting {
		fmt.Fprintf(v.w, "%s%s: started\n", v.prefix(), progress{phase: p}.name())
	}
}

func (v *progressView) tick(now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.term == nil && (v.phase <= report.PhaseStarting || now.Sub(v.last) < logEvery) {
		return
	}
	v.last = now
	p := readStats(v.stats)
	p.phase, p.export = max(v.phase, report.PhaseStarting), v.export
	line := v.prefix() + progressLine(p, now.Sub(v.since))
	if v.term == nil {
		fmt.Fprintln(v.w, line)
		return
	}
	if width, _, err := term.GetSize(int(v.term.Fd())); err == nil && width > 1 && len(line) >= width {
		line = line[:width-1] // a line that wraps cannot be drawn over
	}
	fmt.Fprint(v.w, "\r\x1b[K"+line)
}

func (v *progressView) prefix() string {
	if v.set != "" && v.phase != report.PhaseChecking { // a site's documents are checked together
		return "rsgen: set " + v.set + ": "
	}
	return "rsgen: "
}

// progress is the counts of a build's Stats at one moment.
type progress struct {
	phase                        report.Phase
	found, hashed, bytes, packed int64
	walkDone                     bool  // found is the total
	totalBytes                   int64 // the bytes of the found files, if counted ahead; else 0
	counting                     int64 // files the walk that counts ahead has found, until it is done
	cached                       int64 // files found unchanged in the hash cache, not read
	export                       bool  // of a record export: its files to package are not counted
}

func readStats(s *report.Stats) progress {
	p := progress{phase: report.Phase(s.Phase.Load()), found: s.Found.Load(), hashed: s.Hashed.Load(),
		bytes:  max(s.Bytes.Load(), s.Read.Load()), // Read moves inside a large file, Bytes at its end
		packed: s.Packed.Load(), walkDone: s.WalkDone.Load(), cached: s.Cached.Load()}
	if s.Counted.Load() { // the totals; the scan finds more if the tree grew since the count
		p.found, p.totalBytes, p.walkDone = max(s.Total.Load(), p.found), max(s.TotalBytes.Load(), p.bytes), true
	} else {
		p.counting = s.Total.Load()
	}
	return p
}

func (p progress) name() string {
	return map[report.Phase]string{report.PhaseStarting: "starting", report.PhasePrevious: "reading the previous build",
		report.PhaseScanning: "hashing", report.PhaseReading: "reading the export", report.PhasePackaging: "packaging",
		report.PhaseWriting: "writing the documents", report.PhaseChecking: "checking the documents"}[p.phase]
}

// counts renders the counts of p, a step that began elapsed ago, after
// its name: ": " and its totals where known and its rate. Live, for the
// progress line, adds how long a step without counts has run and, once
// the total is known and the rate has run for etaAfter (less is mostly
// noise), the time left; else the counts are of what the step did.
func (p progress) counts(elapsed time.Duration, live bool) string {
	const etaAfter = 2 * time.Second
	var took string
	if live {
		took = " (" + seconds(elapsed) + ")"
	}
	var done, total int64
	c := ""
	switch {
	case p.phase == report.PhaseStarting:
		return ""
	case p.phase == report.PhaseReading:
		return ": " + units.Count(int(p.found), "record") + took
	case p.phase == report.PhasePackaging && (!p.walkDone || p.export):
		return ": " + units.Count(int(p.packed), "file")
	case p.phase == report.PhasePackaging:
		done, total = min(p.packed, p.hashed), p.hashed
		c = fmt.Sprintf(": %d/%d files", done, total)
	case p.phase != report.PhaseScanning:
		return took
	default:
		rate := units.FormatSize(int64(float64(p.bytes)/max(elapsed.Seconds(), 0.001))) + "/s"
		if !p.walkDone {
			c = ": " + units.Count(int(p.hashed), "file") + ", " + units.FormatSize(p.bytes) + ", " + rate
			switch {
			case live && p.counting > p.hashed:
				c += "; counting: " + units.Count(int(p.counting), "file") + " so far"
			case live:
				c += "; still counting"
			}
			return c
		}
		// In bytes when their total is known and every file is read, which
		// tells the time left best when files differ in size; else in files
		// (a file found unchanged in the hash cache is done unread).
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
	if live && done > 0 && done < total && elapsed >= etaAfter {
		c += ", ETA " + seconds(time.Duration(float64(elapsed)*float64(total-done)/float64(done)))
	}
	return c
}

// progressLine renders the progress line of p, whose step began elapsed
// ago; in packaging, the files hashed are the total.
func progressLine(p progress, elapsed time.Duration) string {
	p.walkDone = p.walkDone || p.phase == report.PhasePackaging
	return p.name() + p.counts(elapsed, true)
}

// seconds renders d to the second: 0s, 42s, 3m5s, 1h2m0s.
func seconds(d time.Duration) string {
	return d.Round(time.Second).String()
}
