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
// function stops it and clears the line.
func startProgress(w io.Writer, stats *generator.Stats, quiet bool) func() {
	f, ok := w.(*os.File)
	if quiet || !ok || !term.IsTerminal(int(f.Fd())) {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				fmt.Fprint(w, "\r\x1b[K")
				return
			case <-tick.C:
				fmt.Fprint(w, "\r\x1b[K"+progressLine(stats, time.Since(start)))
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// progressLine renders files, bytes, rate and, once the walk has counted
// the files, the time left.
func progressLine(s *generator.Stats, elapsed time.Duration) string {
	found, hashed, bytes := s.Found.Load(), s.Hashed.Load(), s.Bytes.Load()
	rate := float64(bytes) / max(elapsed.Seconds(), 0.001)
	line := fmt.Sprintf("rsgen: %d/%d files, %s, %s/s", hashed, found, units.FormatSize(bytes), units.FormatSize(int64(rate)))
	if s.WalkDone.Load() && hashed > 0 && hashed < found {
		left := time.Duration(float64(elapsed) * float64(found-hashed) / float64(hashed))
		line += fmt.Sprintf(", ETA %s", left.Round(time.Second))
	}
	return line
}
