package generator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/rsgen/rsgen/generator/internal/archives"
	"github.com/rsgen/rsgen/generator/internal/packages"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/internal/display"
	"github.com/rsgen/rsgen/internal/listwriter"
	"github.com/rsgen/rsgen/internal/rsxml"
	"github.com/rsgen/rsgen/zipdump"
)

// DumpConfig configures the Resource Dump (section 11) of a build.
type DumpConfig struct {
	Enabled     bool
	MaxBytes    int64 // a package is closed before it passes this size; zipdump.DefaultMaxBytes if 0
	Compression zipdump.Compression
}

// dumpStem names the Resource Dump and its files: resourcedump.xml (the
// dump, or its index), resourcedump-00001.zip (a package) and
// resourcedump-00001.manifest.xml (the copy of its manifest).
const dumpStem = packages.ResourceDumpStem

// Test hooks: testHookBeforeDump runs once the tree is hashed, before
// anything is packaged; testHookDumpFile wraps each file the dump writes.
var (
	testHookBeforeDump = func() {}
	testHookDumpFile   = func(f zipdump.File) zipdump.File { return f }
)

// resourceDump is what packResourceDump wrote, for writeResourceDump.
type resourceDump struct {
	packages  []zipdump.Package
	completed time.Time
}

// packResourceDump writes the packages of the Resource Dump, if the build
// makes one, and returns the resources that are in them.
//
// It runs before the Resource List is written, for uniformity (section 9:
// a resource in the Resource List must also be in the Resource Dump): a
// file that changed or vanished since it was hashed, or whose name a
// package cannot hold, is left out of the packages, and so of the
// Resource List too, and reported as a problem, as a file that changes
// while it is hashed is. The packages reuse the digests of the hashing
// pass and check them against every byte they copy.
//
// The files of a tree and the members of a zip file are packaged in the
// order of their paths, read by several workers at once; the members of
// a tar, which can only be read from its start, in the order of the
// archive, in one pass.
func (b *build) packResourceDump(ctx context.Context, resources *spill.ResourceSpool) (*spill.ResourceSpool, *resourceDump, error) {
	if !b.cfg.Dump.Enabled {
		return resources, nil, nil
	}
	testHookBeforeDump()
	b.stats.Enter(PhasePackaging)
	opt := b.dumpOptions()
	if b.archive != nil {
		m, err := b.archive.OpenMembers()
		if err != nil {
			return nil, nil, err
		}
		defer m.Close()
		opt.Open, opt.Sequential = m.Open, m.Sequential()
	} else {
		root, err := os.OpenRoot(b.root)
		if err != nil {
			return nil, nil, fmt.Errorf("source %s: %w", b.cfg.Source, unwrapPath(err))
		}
		defer root.Close()
		opt.Open = b.fileOpener(root)
	}

	open := opt.Open
	opt.Open = func(it *zipdump.Item) (io.ReadCloser, error) {
		b.stats.Packed.Add(1)
		return open(it)
	}
	var res *zipdump.Result
	var left []int        // the resources left out, by index, ascending
	var why map[int]error // why, for those not reported yet
	var err error
	if b.archive == nil {
		// The files of a tree, read from the spool as they are packaged.
		res, err = zipdump.RunSeq(ctx, spoolItems{resources}, opt)
		if err != nil {
			return nil, nil, fmt.Errorf("writing the Resource Dump: %w", err)
		}
		why = make(map[int]error, len(res.Skipped))
		for _, s := range res.Skipped {
			left = append(left, s.Index)
			why[s.Index] = s.Err
		}
	} else if res, left, err = b.packArchiveDump(ctx, resources, opt); err != nil {
		return nil, nil, err
	}
	if len(left) == 0 {
		return resources, b.dumpWritten(res), nil
	}
	kept, err := b.spill.Resources()
	if err != nil {
		return nil, nil, err
	}
	i := 0
	err = resources.Each(func(r *Resource) error {
		defer func() { i++ }()
		if len(left) > 0 && left[0] == i {
			left = left[1:]
			if err, ok := why[i]; ok {
				b.problems.Add(Problem{Path: r.Path, Err: describeDumpError(err)})
			}
			b.across.dropped = append(b.across.dropped, r.Loc)
			return nil
		}
		return kept.Add(r)
	})
	if err != nil {
		return nil, nil, err
	}
	resources.Close()
	return kept, b.dumpWritten(res), nil
}

// spoolItems is the zipdump.Seq of the resources of a spool, each of which
// has a file: those of a tree.
type spoolItems struct{ s *spill.ResourceSpool }

func (q spoolItems) Names(yield func(name string) bool) error {
	it, err := q.s.Iter()
	if err != nil {
		return err
	}
	for it.Next() && yield(it.Cur.Path) {
	}
	return it.Err()
}

func (q spoolItems) Items(yield func(it *zipdump.Item) bool) error {
	it, err := q.s.Iter()
	if err != nil {
		return err
	}
	for it.Next() {
		item := zipdump.Item{Name: it.Cur.Path, Size: it.Cur.Length}
		r := it.Cur.Clone() // the iterator reuses its links
		r.Entry(&item.Entry)
		if !yield(&item) {
			break
		}
	}
	return it.Err()
}

// packArchiveDump packages the members of an archive, listed in memory as
// the archive's scan lists them, and returns the indexes of the resources
// it left out, ascending, reported as problems.
func (b *build) packArchiveDump(ctx context.Context, resources *spill.ResourceSpool, opt zipdump.Options) (*zipdump.Result, []int, error) {
	n := resources.Len()
	items := make([]zipdump.Item, 0, n)
	of := make([]int, 0, n) // index in resources of each item
	var left []int
	i := 0
	err := resources.Each(func(r *Resource) error {
		defer func() { i++ }()
		if r.Path == "" {
			b.problems.Add(Problem{Path: r.Loc, Err: errors.New("has no file to package, so it is left out of the Resource List too, which must list the same resources as the Resource Dump")})
			left = append(left, i)
			return nil
		}
		it := zipdump.Item{Name: r.Path, Size: r.Length}
		c := r.Clone()
		c.Entry(&it.Entry)
		items = append(items, it)
		of = append(of, i)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if opt.Sequential {
		// In the order of the archive, which the scan kept (members).
		order := make([]int, len(items))
		for k := range order {
			order[k] = k
		}
		index := func(k int) int { i, _ := b.archive.Index(items[k].Name); return i }
		slices.SortFunc(order, func(x, y int) int { return index(x) - index(y) })
		sorted, sortedOf := make([]zipdump.Item, len(items)), make([]int, len(items))
		for k, o := range order {
			sorted[k], sortedOf[k] = items[o], of[o]
		}
		items, of = sorted, sortedOf
	}
	res, err := zipdump.Run(ctx, items, opt)
	if err != nil {
		return nil, nil, fmt.Errorf("writing the Resource Dump: %w", err)
	}
	for _, s := range res.Skipped {
		left = append(left, of[s.Index])
		b.problems.Add(Problem{Path: items[s.Index].Name, Err: describeDumpError(s.Err)})
	}
	slices.Sort(left)
	return res, left, nil
}

// dumpOptions are the options of the packages of the Resource Dump, but
// how they open what they package; the Change Dump starts from them too.
func (b *build) dumpOptions() zipdump.Options {
	opt := zipdump.Options{
		Hashes:         b.cfg.Hashes,
		Compression:    b.cfg.Dump.Compression,
		Workers:        b.cfg.Jobs,
		MaxBytes:       b.cfg.Dump.MaxBytes,
		MaxEntries:     b.cfg.Limits.MaxEntries,
		MaxManifestLen: b.cfg.Limits.MaxBytes,
		Stem:           dumpStem,
		Manifest:       rsxml.Doc{Links: []rsxml.Link{{Rel: "up", Href: b.docs.CapabilityListURL()}}},
		At:             b.at,
		Create: func(name string) (zipdump.File, error) {
			f, err := b.stage.Create(b.docs.Dir + "/" + name)
			if err != nil {
				return nil, err
			}
			return testHookDumpFile(f), nil
		},
		Remove: func(name string) error { return os.Remove(b.stage.Path(b.docs.Dir + "/" + name)) },
	}
	if !b.cfg.FixedTime {
		// Never before the snapshot time, which may be past the clock
		// (afterPrevious: a build within the second of the one before).
		opt.Now = func() time.Time {
			if now := b.cfg.now(); now.After(b.at) {
				return now
			}
			return b.at
		}
	}
	return opt
}

// dumpWritten records the packages of the Resource Dump, for
// writeResourceDump.
func (b *build) dumpWritten(res *zipdump.Result) *resourceDump {
	dump := &resourceDump{packages: res.Packages, completed: b.completed()}
	b.docs.N += len(res.Packages) // the copies of the manifests
	return dump
}

// fileOpener opens the files of the tree for packaging: see openForDump.
func (b *build) fileOpener(root *os.Root) func(it *zipdump.Item) (io.ReadCloser, error) {
	return func(it *zipdump.Item) (io.ReadCloser, error) {
		f, err := b.openForDump(root, it.Name)
		if err != nil {
			return nil, err // not a nil *os.File in an interface
		}
		return f, nil
	}
}

// openForDump opens the file published as rel for packaging, through
// root, so that no symbolic link or rename made since the walk can lead
// outside the source. With --follow-symlinks, links inside the source
// are resolved first, as the walk resolved them.
func (b *build) openForDump(root *os.Root, rel string) (*os.File, error) {
	name := filepath.FromSlash(rel)
	if b.cfg.FollowSymlinks {
		resolved, err := filepath.EvalSymlinks(filepath.Join(b.root, name))
		if err != nil {
			return nil, err
		}
		if !within(b.root, resolved) {
			return nil, fmt.Errorf("%w: a symbolic link on its path now leads outside the source", zipdump.ErrChanged)
		}
		if name, err = filepath.Rel(b.root, resolved); err != nil {
			return nil, err
		}
	}
	f, err := root.OpenFile(name, dumpOpenFlags, 0)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		// Say why root refused it, if that is why.
		if resolved, rerr := filepath.EvalSymlinks(filepath.Join(b.root, name)); rerr == nil && !within(b.root, resolved) {
			return nil, fmt.Errorf("%w: a symbolic link on its path, put there after the walk, leads outside the source", zipdump.ErrChanged)
		}
	}
	return f, err
}

// describeDumpError says why a file was left out of the dump, and so of
// every document.
func describeDumpError(err error) error {
	switch {
	case errors.Is(err, zipdump.ErrChanged):
		return fmt.Errorf("%w; left out of the Resource List and the Resource Dump, publish again once the tree is stable", unwrapPath(err))
	case errors.Is(err, zipdump.ErrName):
		return fmt.Errorf("%w; left out of the Resource List too, which must list the same files as the Resource Dump (or exclude it)", err)
	}
	return fmt.Errorf("%w; left out of the Resource List and the Resource Dump", display.ReadError(err))
}

// writeResourceDump writes the Resource Dump (section 11.1): one entry per
// package, with its length, digests and times, linked to the copy of its
// manifest; a Resource Dump Index over parts past the limits.
func (b *build) writeResourceDump(ctx context.Context, dump *resourceDump) error {
	if dump == nil {
		return nil
	}
	ra := &archives.ResourceDumps{Docs: b.docs, Prev: b.across.prev, Every: b.cfg.Changes.ArchiveResourceDumps, Keep: b.cfg.Changes.ArchiveKeep, At: b.at, Notice: b.notice, CopyPackage: b.copyPackage}
	archive, err := ra.Plan()
	if err != nil {
		return err
	}
	pkgs := dump.packages
	md := rsxml.MD{Capability: rsxml.CapResourceDump, At: rsxml.FormatTime(b.at), Completed: rsxml.FormatTime(dump.completed)}
	opt := listwriter.Options{
		Name: dumpStem,
		Doc:  rsxml.Doc{MD: md, Links: append([]rsxml.Link{{Rel: "up", Href: b.docs.CapabilityListURL()}}, ra.Link(archive)...)},
		PartMD: func(first, last *rsxml.MD) rsxml.MD {
			return rsxml.MD{At: first.At, Completed: last.Completed}
		},
	}
	entry := func(p *zipdump.Package, e *rsxml.Entry) {
		*e = rsxml.Entry{
			Loc: b.docs.URL(p.Name),
			MD: rsxml.MD{Type: "application/zip", Length: itoa(p.Size), Hash: p.Hash,
				At: rsxml.FormatTime(p.At), Completed: rsxml.FormatTime(p.Completed)},
			Links: []rsxml.Link{{Rel: "contents", Href: b.docs.URL(p.ManifestName), Type: "application/xml"}},
		}
	}
	wl, err := b.docs.List(opt, len(pkgs), func(i int, e *rsxml.Entry) { entry(&pkgs[i], e) })
	if err != nil {
		return err
	}
	b.docs.Advertise(b.docs.URL(wl.Name), rsxml.CapResourceDump)
	return ra.Write(ctx, archive, dump.packages, dump.completed, entry)
}
