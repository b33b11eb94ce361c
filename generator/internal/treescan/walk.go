package treescan

import (
	"context"
	"sync"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/inputs/tree"
	"github.com/rsgen/rsgen/internal/storage/hashcache"
)

// A Walk is a directory tree as the Source of a Scan: the walk of package
// tree lists its files, each held by its directory until it is read or
// dropped.
type Walk struct {
	Root   string                 // the tree, absolute with links resolved
	Filter *tree.Filter           // what is published
	Follow bool                   // follow symbolic links to directories and files
	Skip   func(real string) bool // paths never walked, once links are resolved (rsgen's own); nil: none

	Spill  *spill.Area   // where the names of big directories are sorted
	Stats  *report.Stats // Total, TotalBytes, Counted, if CountAhead
	Notice func(string)  // tells the user what they should know; never nil

	BigDir int // tree.Walker.BigDir
	// Seams for tests, if set: Listed is called with each file the walk
	// will publish, before it is read; ReadDir with each directory the
	// walk lists, its error replacing the listing.
	Listed  func(rel string)
	ReadDir func(rel string) error
}

// DiskReads is the fewest reads of files a scan keeps in flight, however
// few workers hash (hashing.Pool.Reads): enough to keep a cold disk busy.
// On the 2-core reference machine, a cold first build of 50,000 small
// files took a median 2.4 s with 16, 2.65 s with 8 (bench/cold.sh,
// docs/PERFORMANCE.md, "Reads in flight").
const DiskReads = 16

// Reads keeps DiskReads reads in flight at least; they block a thread.
func (*Walk) Reads(workers int) (int, bool) { return max(workers, DiskReads), true }

func (w *Walk) List(ctx context.Context, emit func(*Entry) error) error {
	spillDir, err := w.Spill.Path()
	if err != nil {
		return err
	}
	skip := w.Skip
	if skip == nil {
		skip = func(string) bool { return false }
	}
	walker := &tree.Walker{
		Root:     w.Root,
		Filter:   w.Filter,
		Follow:   w.Follow,
		Skip:     skip,
		SpillDir: spillDir,
		BigDir:   w.BigDir,
		Problem: func(rel string, dir bool, err error) {
			emit(&Entry{Path: rel, Dir: dir, Err: err})
		},
		Unread: func(rel string) { emit(&Entry{Path: rel, Dir: true, Unread: true}) },
		Notice: w.Notice,
		Emit: func(f tree.File) error {
			if w.Listed != nil {
				w.Listed(f.Rel)
			}
			e := &walkEntry{file: f}
			e.Path, e.Handle = f.Rel, e
			return emit(&e.Entry)
		},
		ReadDirHook: w.ReadDir,
	}
	stop := w.count(ctx, walker)
	err = walker.Walk(ctx)
	stop(err != nil)
	return err
}

// A walkEntry is the Entry of a file of the walk and its Handle.
type walkEntry struct {
	Entry
	file tree.File
}

func fileOf(e *Entry) tree.File { return e.Handle.(*walkEntry).file }

// Stat stats the file of e, which must be a regular file.
func (*Walk) Stat(e *Entry) bool {
	f := fileOf(e)
	info, err := f.Dir.Lstat(f.Name)
	if err != nil || info.Mode != 0 {
		return false // reported when the file is read
	}
	e.Key = hashcache.Stat{Size: info.Size, Mtime: info.ModTime.UnixNano(), Ino: info.Ino, Dev: info.Dev}
	if !info.Ctime.IsZero() {
		e.Key.Ctime = info.Ctime.UnixNano()
	}
	return true
}

// Job reads the file relative to its directory, taking over its hold.
func (*Walk) Job(e *Entry) hashing.Job {
	f := fileOf(e)
	return hashing.Job{Dir: f.Dir, Path: f.Name}
}

func (*Walk) Drop(e *Entry) { fileOf(e).Dir.Release() }

// count starts, if Stats.CountAhead, a walk that only counts the files
// and bytes the walk will find (Stats.Total, TotalBytes, Counted): the
// progress then has a total long before the scan's walk, held back by the
// window, ends (restic's scanner does the same). The function returned
// waits for it, stopping it first if the walk failed.
func (w *Walk) count(ctx context.Context, walker *tree.Walker) (stop func(cancel bool)) {
	if !w.Stats.CountAhead {
		return func(bool) {}
	}
	ctx, cancel := context.WithCancel(ctx)
	cw := *walker
	cw.Problem = func(string, bool, error) {}
	cw.Unread = func(string) {}
	cw.Notice = func(string) {}
	cw.ReadDirHook = nil
	cw.Emit = func(f tree.File) error {
		if info, err := f.Dir.Lstat(f.Name); err == nil {
			w.Stats.TotalBytes.Add(info.Size)
		}
		f.Dir.Release()
		w.Stats.Total.Add(1)
		return nil
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if cw.Walk(ctx) == nil && ctx.Err() == nil {
			w.Stats.Counted.Store(true)
		}
	}()
	return func(stop bool) {
		if stop {
			cancel()
		}
		wg.Wait()
		cancel()
	}
}
