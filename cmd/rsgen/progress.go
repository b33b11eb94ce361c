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

// startProgress shows the progress of a build on w, unless quiet. On a
// terminal, one line is drawn over, a fifth of a second apart; elsewhere
// (a CI log, a file) lines are written for a log to keep: one as each
// step starts and ends, and the progress line at most every logEvery
// within a long step. The returned function stops it; failed says the
// build failed. export says the counts are records of an export.
func startProgress(w io.Writer, stats *report.Stats, quiet, export bool) (stop func(failed bool)) {
	if quiet {
		return func(bool) {}
	}
	stats.CountAhead = true // the totals, early
	v := &progressView{w: w, stats: stats, export: export, phase: -1, since: time.Now()}
	tick := time.NewTicker(time.Second)
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		v.term = f
		tick.Reset(200 * time.Millisecond)
	}
	stats.Entered = func(p report.Phase) { v.enter(p, time.Now()) }
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-done:
				return
			case t := <-tick.C:
				v.tick(t)
			}
		}
	}()
	return func(failed bool) {
		close(done)
		<-stopped
		tick.Stop()
		v.end(time.Now(), failed)
	}
}

// logEvery is the longest a step runs without a line in a log: often
// enough to show a build is alive, rarely enough to keep a CI log short.
const logEvery = 30 * time.Second

// A progressView draws the progress of a build: over one line of term,
// or as lines of a log on w. A step is timed, for its rate and ETA, from
// when the build entered it (Stats.Entered), not from the first tick that
// saw it, which claimed the bytes of up to a tick in no time. Its methods
// take the time, so that a test gives its own clock, and may be called
// from several goroutines.
type progressView struct {
	w      io.Writer
	term   *os.File // the terminal w is, or nil for a log
	stats  *report.Stats
	export bool

	mu    sync.Mutex
	phase report.Phase // the step under way; -1 before the first
	set   string       // the set of a site it is of, "" for a build without sets
	since time.Time    // when it began
	last  time.Time    // when its last line was written to a log
}

// enter records, at now, that the build entered step p; a log gets the
// line that ends the step before and the one that starts p.
func (v *progressView) enter(p report.Phase, now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if p == v.phase && v.stats.Set() == v.set {
		return
	}
	v.endStep(now, false)
	v.phase, v.since, v.last, v.set = p, now, now, v.stats.Set()
	if v.term == nil && p != report.PhaseStarting {
		fmt.Fprintf(v.w, "%s%s: started\n", v.prefix(), phaseName(p, v.export))
	}
}

// tick draws the progress line at now: always on a terminal, in a log if
// the step under way has had no line for logEvery.
func (v *progressView) tick(now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.term == nil && (v.phase <= report.PhaseStarting || now.Sub(v.last) < logEvery) {
		return
	}
	v.last = now
	p := readStats(v.stats, v.export)
	p.phase = max(v.phase, report.PhaseStarting)
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

// end clears the line of a terminal, or ends the step under way in a log.
func (v *progressView) end(now time.Time, failed bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.term != nil {
		fmt.Fprint(v.w, "\r\x1b[K")
	}
	v.endStep(now, failed)
	v.phase = -1
}

// endStep writes to a log the line that ends the step under way: done,
// or stopped if the build failed, with the counts of what was done.
func (v *progressView) endStep(now time.Time, failed bool) {
	if v.term != nil || v.phase <= report.PhaseStarting {
		return
	}
	elapsed := now.Sub(v.since)
	how := ": done in "
	if failed {
		how = ": stopped after "
	}
	line := v.prefix() + phaseName(v.phase, v.export) + how + seconds(elapsed)
	p := readStats(v.stats, v.export)
	p.phase, p.walkDone = v.phase, false // the counts of what was done, not of a total
	if c := counts(p, elapsed); c != "" {
		line += ": " + c
	}
	fmt.Fprintln(v.w, line)
}

// prefix begins the lines of the step under way: "rsgen: ", and the set
// of a site it is of.
func (v *progressView) prefix() string {
	if v.set != "" && v.phase != report.PhaseChecking { // the site's documents are checked together
		return "rsgen: set " + v.set + ": "
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

// phaseNames say what the build does in each step.
var phaseNames = map[report.Phase]string{
	report.PhaseStarting: "starting", report.PhasePrevious: "reading the previous build", report.PhaseScanning: "hashing",
	report.PhasePackaging: "packaging", report.PhaseWriting: "writing the documents", report.PhaseChecking: "checking the documents",
}

func phaseName(p report.Phase, export bool) string {
	if p == report.PhaseScanning && export {
		return "reading the export"
	}
	return phaseNames[p]
}

// counts renders the counts of p's step, which began elapsed ago, with
// its totals where they are known and its rate; "" for a step without
// counts.
func counts(p progress, elapsed time.Duration) string {
	switch {
	case p.phase == report.PhaseScanning && p.export:
		return units.Count(int(p.hashed), "record")
	case p.phase == report.PhaseScanning:
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
	case p.phase == report.PhasePackaging && p.walkDone:
		return fmt.Sprintf("%d/%d files", min(p.packed, p.hashed), p.hashed)
	case p.phase == report.PhasePackaging:
		return units.Count(int(p.packed), "file")
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

// progressLine renders the progress p of a build, whose current step
// began elapsed ago: what the build is doing, its counts, and, where it
// knows the total, the time left at the rate of the step so far.
func progressLine(p progress, elapsed time.Duration) string {
	name := phaseName(p.phase, p.export)
	if p.phase == report.PhasePackaging {
		p.walkDone = true // the files hashed are the total
	}
	c := counts(p, elapsed)
	switch {
	case p.phase == report.PhaseStarting:
		return name
	case p.export && p.phase == report.PhaseScanning:
		return name + ": " + c + " (" + seconds(elapsed) + ")"
	case c == "":
		return name + " (" + seconds(elapsed) + ")"
	case p.phase == report.PhaseScanning && !p.walkDone && p.counting > p.hashed:
		return fmt.Sprintf("%s: %s; counting: %s so far", name, c, units.Count(int(p.counting), "file"))
	case p.phase == report.PhaseScanning && !p.walkDone:
		return name + ": " + c + "; still counting"
	}
	done, total := min(p.packed, p.hashed), p.hashed
	if p.phase == report.PhaseScanning {
		done, total = p.hashMeasure()
	}
	if done > 0 && done < total && elapsed >= etaAfter {
		c += ", ETA " + seconds(time.Duration(float64(elapsed)*float64(total-done)/float64(done)))
	}
	return name + ": " + c
}

// etaAfter is how long a step runs before the progress line guesses
// when it ends: a rate measured over less is mostly noise.
const etaAfter = 2 * time.Second

// seconds renders d to the second: 0s, 42s, 3m5s, 1h2m0s.
func seconds(d time.Duration) string {
	return d.Round(time.Second).String()
}
