package testenv

import (
	"runtime/metrics"
	"time"
)

// HeapPeak samples the bytes of live and not yet swept heap objects every
// few milliseconds until stop is closed, and sends the largest: the
// memory a step holds, which a benchmark or a long test bounds.
func HeapPeak(stop <-chan struct{}) <-chan uint64 {
	peak := make(chan uint64, 1)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var most uint64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			most = max(most, s[0].Value.Uint64())
			select {
			case <-stop:
				peak <- most
				return
			case <-tick.C:
			}
		}
	}()
	return peak
}
