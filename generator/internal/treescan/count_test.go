package treescan

import (
	"context"
	"testing"
	"time"
)

// The totals are known while the files are still being hashed: a walk
// that only counts runs ahead of the scan, whose own walk the window
// holds back, and counts what the scan publishes (the filter too).
func TestScanCountsAhead(t *testing.T) {
	root := t.TempDir()
	files := makeTree(t, root, 300)
	var bytes int64
	for _, c := range files {
		bytes += int64(len(c))
	}
	sc := newScan(t, root, 2, nil)
	sc.Stats.CountAhead = true
	counted := make(chan struct{})
	first := true
	sc.Source.(*Walk).Listed = func(string) { // the scan's first file waits until the count is done
		if first {
			first = false
			select {
			case <-counted:
			case <-time.After(time.Minute): // not a measure: a way out if it never comes
				t.Error("the count did not finish while the scan waited")
			}
		}
	}
	go func() {
		for !sc.Stats.Counted.Load() {
			time.Sleep(time.Millisecond)
		}
		if h := sc.Stats.Hashed.Load(); h != 0 {
			t.Errorf("%d files hashed before the count was done; want 0", h)
		}
		close(counted)
	}()
	found, _, err := sc.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer found.Close()
	if got := sc.Stats.Total.Load(); got != int64(len(files)) || found.Len() != len(files) {
		t.Errorf("counted %d files, scanned %d, want %d", got, found.Len(), len(files))
	}
	if got := sc.Stats.TotalBytes.Load(); got != bytes {
		t.Errorf("counted %d bytes, want %d", got, bytes)
	}

	// Unless asked for, nobody watches: no second walk.
	sc = newScan(t, root, 2, nil)
	if found, _, err = sc.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	found.Close()
	if sc.Stats.Counted.Load() || sc.Stats.Total.Load() != 0 {
		t.Error("counted ahead without CountAhead")
	}
}
