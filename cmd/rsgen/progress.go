package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"

	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/internal/text/units"
)

// startProgress shows the progress of a build on w, unless quiet. On a
// terminal, one line is drawn over, a fifth of a second apart; elsewhere
// (a CI log, a file) lines are written for a log to keep: one as each
// step starts and ends, and one at most every logEvery within a long
// step, never a carriage return. The returned function stops it; failed
// says the build failed. export says the build reads a record export,
// whose counts are records.
func startProgress(w io.Writer, stats *report.Stats, quiet, export bool) (stop func(failed bool)) {
	if quiet {
		return func(bool) {}
	}
	stats.CountAhead = true // the totals, early
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		tick := time.NewTicker(200 * time.Millisecond)
		stop := draw(f, stats, export, tick.C, time.Now)
		return func(failed bool) { stop(failed); tick.Stop() }
	}
	l := &progressLog{w: w, stats: stats, export: export, phase: -1}
	stats.Entered = func(p report.Phase) { l.enter(p, time.Now()) }
	tick := time.NewTicker(time.Second)
	stopTicks := onTicks(tick.C, l.tick)
	return func(failed bool) {
		stopTicks()
		tick.Stop()
		l.end(time.Now(), failed)
	}
}

// onTicks calls fn with the time of each tick, from a goroutine of its
// own, until the returned function is called, which returns once fn no
// longer runs.
func onTicks(tick <-chan time.Time, fn func(time.Time)) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			case t := <-tick:
				fn(t)
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// draw draws the progress line on f at each tick until stopped, then
// clears it. A step is timed, for its rate and ETA, from when the build
// entered it (Stats.Entered) by the clock now, not from the first tick
// that saw it, which made the first line of each step claim the bytes
// of up to a tick in no time at all.
func draw(f *os.File, stats *report.Stats, export bool, tick <-chan time.Time, now func() time.Time) func(bool) {
	var entered atomic.Int64 // when the build entered the step under way, in Unix nanoseconds
	entered.Store(now().UnixNano())
	stats.Entered = func(report.Phase) { entered.Store(now().UnixNano()) }
	stop := onTicks(tick, func(t time.Time) {
		line := progressLine(readStats(stats, export), t.Sub(time.Unix(0, entered.Load())))
		if set := stats.Set(); set != "" {
			line = "rsgen: set " + set + ": " + strings.TrimPrefix(line, "rsgen: ")
		}
		if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 1 && len(line) >= width {
			line = line[:width-1] // a line that wraps cannot be drawn over
		}
		fmt.Fprint(f, "\r\x1b[K"+line)
	})
	return func(bool) { stop(); fmt.Fprint(f, "\r\x1b[K") }
}

// logEvery is the longest a step runs without a line in a log: often
// enough to show a build is alive, rarely enough to keep a CI log short.
const logEvery = 30 * time.Second

// A progressLog writes the progress of a build as lines of a log. Its
// methods take the time, so that a test gives its own clock, and may be
// called from several goroutines.
type progressLog struct {
	w      io.Writer
	stats  *report.Stats
	export bool

	mu    sync.Mutex
	phase report.Phase // the step under way; -1 before the first
	set   string       // the set of a site it is of, "" for a build without sets
	since time.Time    // when it began
	last  time.Time    // when its last line was written
}

// enter records, at now, that the build entered step p: the line that
// ends the step before, and the one that starts p.
func (l *progressLog) enter(p report.Phase, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p == l.phase && l.stats.Set() == l.set {
		return
	}
	l.endLocked(now, false)
	l.phase, l.since, l.last, l.set = p, now, now, l.stats.Set()
	if p != report.PhaseStarting {
		fmt.Fprintf(l.w, "%s%s: started\n", l.prefix(), phaseName(p, l.export))
	}
}

// tick writes, at now, a line of the counts of the step under way if it
// has had none for logEvery.
func (l *progressLog) tick(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.phase <= report.PhaseStarting || now.Sub(l.last) < logEvery {
		return
	}
	l.last = now
	p := readStats(l.stats, l.export)
	p.phase = l.phase
	elapsed := now.Sub(l.since)
	line := l.prefix() + phaseName(l.phase, l.export) + ": "
	if c := counts(p, elapsed); c != "" {
		line += c + eta(p, elapsed) + ", "
	}
	fmt.Fprintln(l.w, line+seconds(elapsed)+" so far")
}

// end writes, at now, the line that ends the step under way: done, or
// stopped if the build failed.
func (l *progressLog) end(now time.Time, failed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.endLocked(now, failed)
	l.phase = -1
}

func (l *progressLog) endLocked(now time.Time, failed bool) {
	if l.phase <= report.PhaseStarting {
		return
	}
	elapsed := now.Sub(l.since)
	line := l.prefix() + phaseName(l.phase, l.export) + ": done in " + seconds(elapsed)
	if failed {
		line = l.prefix() + phaseName(l.phase, l.export) + ": stopped after " + seconds(elapsed)
	}
	p := readStats(l.stats, l.export)
	p.phase, p.walkDone = l.phase, false // the counts of what was done, not of a total
	if c := counts(p, elapsed); c != "" {
		line += ": " + c
	}
	fmt.Fprintln(l.w, line)
}

// prefix begins the lines of the step under way: "rsgen: ", and the set
// of a site it is of.
func (l *progressLog) prefix() string {
	if l.set != "" && l.phase != report.PhaseChecking { // the site's documents are checked together
		return "rsgen: set " + l.set + ": "
	}
	return "rsgen: "
}

// progress is what the progress line shows: the counts of a build's
// Stats at one moment.
type progress struct {
	phase                        report.Phase
	found, hashed, bytes, packed int64
	walkDone                     bool  // found is the total
	totalBytes                   int64 // the bytes of the found files, if counted ahead; else 0
	counting                     int64 // files the walk that counts ahead has found so far, until it is done
	cached                       int64 // files found unchanged in the hash cache, not read
	export                       bool  // the counts are records of an export
}

func readStats(s *report.Stats, export bool) progress {
	p := progress{
		phase:    report.Phase(s.Phase.Load()),
		found:    s.Found.Load(),
		hashed:   s.Hashed.Load(),
		bytes:    max(s.Bytes.Load(), s.Read.Load()), // Read moves inside a large file, Bytes at its end
		packed:   s.Packed.Load(),
		walkDone: s.WalkDone.Load(),
		cached:   s.Cached.Load(),
		export:   export,
	}
	if s.Counted.Load() { // the walk that counts ahead is done: the totals
		// The scan's own walk finds more if the tree grew since the count.
		p.found, p.totalBytes, p.walkDone = max(s.Total.Load(), p.found), max(s.TotalBytes.Load(), p.bytes), true
	} else {
		p.counting = s.Total.Load()
	}
	return p
}

// etaAfter is how long a phase runs before the progress line guesses
// when it ends: a rate measured over less is mostly noise.
const etaAfter = 2 * time.Second

// phaseName says what the build does in step p.
func phaseName(p report.Phase, export bool) string {
	switch p {
	case report.PhasePrevious:
		return "reading the previous build"
	case report.PhaseScanning:
		if export {
			return "reading the export"
		}
		return "hashing"
	case report.PhasePackaging:
		return "packaging"
	case report.PhaseWriting:
		return "writing the documents"
	case report.PhaseChecking:
		return "checking the documents"
	}
	return "starting"
}

// counts renders the counts of p's step, which began elapsed ago, with
// its totals where they are known and its rate; "" for a step without
// counts.
func counts(p progress, elapsed time.Duration) string {
	switch p.phase {
	case report.PhaseScanning:
		if p.export {
			return units.Count(int(p.hashed), "record")
		}
		rate := units.FormatSize(int64(float64(p.bytes)/max(elapsed.Seconds(), 0.001))) + "/s"
		if !p.walkDone {
			return fmt.Sprintf("%s, %s, %s", units.Count(int(p.hashed), "file"), units.FormatSize(p.bytes), rate)
		}
		size := units.FormatSize(p.bytes)
		if p.totalBytes > 0 {
			size += "/" + units.FormatSize(p.totalBytes)
		}
		done, total := p.hashMeasure()
		return fmt.Sprintf("%d/%d files, %s, %s, %d%%", p.hashed, p.found, size, rate, 100*min(done, total)/max(total, 1))
	case report.PhasePackaging:
		if p.walkDone {
			return fmt.Sprintf("%d/%d files", min(p.packed, p.hashed), p.hashed)
		}
		return units.Count(int(p.packed), "file")
	}
	return ""
}

// eta renders the time left in p's step, which began elapsed ago, at its
// rate so far, or "" when that cannot be told yet.
func eta(p progress, elapsed time.Duration) string {
	switch {
	case p.phase == report.PhaseScanning && !p.export && p.walkDone:
		done, total := p.hashMeasure()
		return timeLeft(done, total, elapsed)
	case p.phase == report.PhasePackaging:
		return timeLeft(min(p.packed, p.hashed), p.hashed, elapsed)
	}
	return ""
}

// hashMeasure is how far hashing is, done of total: in bytes when their
// total is known and every file is read, which tells the time left best
// when files differ in size; else in files (a file found unchanged in
// the hash cache is done without reading its bytes).
func (p progress) hashMeasure() (done, total int64) {
	if p.totalBytes > 0 && p.cached == 0 {
		return p.bytes, p.totalBytes
	}
	return p.hashed, p.found
}

// progressLine renders the progress p of a build, whose current phase
// began elapsed ago, for a terminal: what the build is doing, its counts,
// and, where it knows the total, the time left at the rate of the phase
// so far.
func progressLine(p progress, elapsed time.Duration) string {
	if p.phase == report.PhasePackaging {
		p.walkDone = true // the files hashed are the total
	}
	name := phaseName(p.phase, p.export)
	c := counts(p, elapsed)
	switch {
	case p.phase == report.PhaseStarting:
		return "rsgen: starting"
	case p.export && p.phase == report.PhaseScanning:
		return "rsgen: " + name + ": " + c + " (" + seconds(elapsed) + ")"
	case c == "":
		return "rsgen: " + name + " (" + seconds(elapsed) + ")"
	case p.phase == report.PhaseScanning && !p.walkDone:
		if p.counting > p.hashed {
			return fmt.Sprintf("rsgen: %s: %s; counting: %s so far", name, c, units.Count(int(p.counting), "file"))
		}
		return "rsgen: " + name + ": " + c + "; still counting"
	}
	return "rsgen: " + name + ": " + c + eta(p, elapsed)
}

// timeLeft renders the time left to do total at the rate done took
// elapsed, or "" when that cannot be told yet.
func timeLeft(done, total int64, elapsed time.Duration) string {
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
