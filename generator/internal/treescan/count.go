package treescan

import (
	"context"
	"sync"

	"github.com/rsgen/rsgen/internal/tree"
)

// count starts a walk of the tree that only counts the files the walk w
// will find, and their bytes, into Stats (Total, TotalBytes, Counted),
// so that the progress has a total long before the scan's own walk ends,
// held back as it is by the window of files in flight (restic's scanner
// does the same). It reads the directories and stats the files; what it
// cannot read it leaves to the scan to report; it runs only if
// Stats.CountAhead. The returned function stops it and waits for it.
func (sc *Scan) count(ctx context.Context, w *tree.Walker) (stop func()) {
	if !sc.Stats.CountAhead {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	cw := *w
	cw.Problem = func(string, bool, error) {}
	cw.Unread = func(string) {}
	cw.Notice = func(string) {}
	cw.ReadDirHook = nil
	cw.Emit = func(f tree.File) error {
		if info, err := f.Dir.Lstat(f.Name); err == nil {
			sc.Stats.TotalBytes.Add(info.Size)
		}
		f.Dir.Release()
		sc.Stats.Total.Add(1)
		return nil
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if cw.Walk(ctx) == nil && ctx.Err() == nil {
			sc.Stats.Counted.Store(true)
		}
	}()
	return func() { cancel(); wg.Wait() }
}
