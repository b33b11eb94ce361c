package archivescan

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/storage/binrec"
	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/extsort"
)

// scanTar hashes the members of a tar stream in the order they come, and
// spools them in the order of their paths through an external sort in the
// stage: its memory is that of the sort, whatever the size of the archive.
// Hashing in this goroutine was measured against handing the bytes to
// another: see BenchmarkScanArchive and docs/PERFORMANCE.md.
func (sc *Scan) scanTar(ctx context.Context, a *Archive) (*spill.ResourceSpool, error) {
	ts, err := openTar(a)
	if err != nil {
		return nil, err
	}
	defer ts.close()
	sorter, err := sc.sorter()
	if err != nil {
		return nil, err
	}
	defer sorter.Close()
	tr := ts.tr
	h := hashing.NewHasher(sc.Hashes)
	var rec, key []byte
	most := int64(math.MaxInt64) // the most bytes a member can expand to
	if st, err := os.Stat(a.Path); err == nil && st.Size() < (math.MaxInt64-maxMemberSlack)/maxExpansion {
		most = st.Size()*maxExpansion + maxMemberSlack
	}
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the archive %s: %w", a.Path, damaged(err))
		}
		if maxMembers := limit(sc.maxTar, maxTarMembers); i >= maxMembers {
			return nil, fmt.Errorf("source %s: %w: more than %d", a.Path, ErrTooManyMembers, maxMembers)
		}
		m := member{raw: hdr.Name, mode: tarMode(hdr.Typeflag), link: hdr.Typeflag == tar.TypeLink}
		name := sc.admit(m)
		if name == "" {
			continue
		}
		if hdr.Size > most {
			// A sparse member (GNU or PAX) says how large it is, whatever
			// bytes it holds: a few hundred bytes may declare a petabyte of
			// holes, which would be hashed for days. tar.Reader.Next skips
			// its data, not its holes.
			sc.problem(report.Problem{Path: name, Err: fmt.Errorf("%w: it declares %d bytes, more than the %d bytes of the archive can hold, compressed or not (a sparse file?)", ErrMemberTooLarge, hdr.Size, most)})
			continue
		}
		sc.Stats.Found.Add(1)
		if a.members != nil {
			a.members[name] = i
		}
		r, err := sc.readMember(ctx, h, name, hdr.FileInfo(), func() (io.ReadCloser, error) { return io.NopCloser(tr), nil })
		if errors.Is(err, uri.ErrLocTooLong) { // read to its end: the stream goes on
			sc.problem(report.Problem{Path: clipName(name), Err: err})
			continue
		}
		if err != nil {
			// The stream is broken: nothing after this member can be read.
			return nil, fmt.Errorf("reading the archive %s: %s: %w", a.Path, name, damaged(err))
		}
		rec = spill.AppendResource(rec[:0], &spill.Resource{}, &r)
		key = append(key[:0], name...) // Add copies it
		if err := sorter.Add(key, rec); err != nil {
			return nil, fmt.Errorf("%w: %w", spill.ErrSpool, err)
		}
	}
	if err := ts.end(); err != nil {
		return nil, fmt.Errorf("reading the archive %s: %w", a.Path, damaged(err))
	}
	sc.Stats.WalkDone.Store(true)
	return sc.spoolSorted(sorter)
}

// ErrMemberTooLarge reports a member of a tar larger than the archive
// could expand to: a sparse file of mostly holes, or a hostile one.
var ErrMemberTooLarge = errors.New("member too large")

// maxExpansion and maxMemberSlack bound the size of a tar member by the
// size of the archive: Deflate cannot expand data more than 1,032 times,
// so a member larger than maxExpansion times the archive, give or take the
// slack, is one whose size is not its bytes (a sparse file).
const (
	maxExpansion   = 1100
	maxMemberSlack = 1 << 20
)

// archiveSortMemory is the memory of the sort of a tar's members.
const archiveSortMemory = 32 << 20

// maxTarMembers bounds the members of a tar: the most resources the spec
// lets a Resource List index (50,000 lists of 50,000). A tar is sorted on
// disk, so this bounds the time and the disk a hostile archive of empty
// members can take, not the memory.
const maxTarMembers = rsxml.MaxEntries * rsxml.MaxEntries

// sorter returns the sort of the members of an archive, in the stage.
func (sc *Scan) sorter() (*extsort.Sorter, error) {
	spillDir, err := sc.Spill.Path()
	if err != nil {
		return nil, err
	}
	dir, err := confined.MkdirTemp(spillDir, "archive-*")
	if err != nil {
		return nil, err
	}
	return extsort.New(dir, limit(sc.sortMemory, archiveSortMemory)), nil
}

// spoolSorted spools the members of an archive that sorter holds, keyed
// by path, leaving out and reporting every path that several members have.
// A member of an empty record is one not published (reported already)
// that still counts among the members of its path.
func (sc *Scan) spoolSorted(sorter *extsort.Sorter) (*spill.ResourceSpool, error) {
	it, err := sorter.Iter()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", spill.ErrSpool, err)
	}
	found, err := sc.Spill.Resources()
	if err != nil {
		return nil, err
	}
	var cur spill.Resource
	var dc dirConflicts
	n := 0               // members of cur's path
	unpublished := false // cur is not published
	flush := func() error {
		switch {
		case n == 1 && !unpublished:
			dc.add(cur.Path)
			return found.Add(&cur)
		case n > 1:
			sc.duplicate(cur.Path, n)
		}
		return nil
	}
	intern := func(t []byte) string { return string(t) }
	for it.Next() {
		if n > 0 && string(it.Key()) == cur.Path {
			n++
			continue
		}
		if err := flush(); err != nil {
			return nil, err
		}
		cur, unpublished = spill.Resource{}, len(it.Value()) == 0
		if unpublished {
			cur.Path = string(it.Key())
		} else if err := spill.ReadResource(binrec.NewReader(it.Value(), binrec.ErrCorrupt), &cur, intern); err != nil {
			return nil, fmt.Errorf("%w: %w", spill.ErrSpool, err)
		}
		n = 1
	}
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", spill.ErrSpool, err)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(dc.found) == 0 {
		return found, nil
	}
	// Rare, and only in an archive no tree could be unpacked from: spooled
	// again without the paths in conflict.
	defer found.Close()
	kept, err := sc.Spill.Resources()
	if err != nil {
		return nil, err
	}
	drop := sc.dropConflicts(dc.found)
	err = found.Each(func(r *spill.Resource) error {
		if drop[r.Path] {
			return nil
		}
		return kept.Add(r)
	})
	if err != nil {
		return nil, err
	}
	return kept, nil
}

// ctxReader reads r until ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// tarMode is the type of a tar member, by its type flag alone: the type
// bits of its mode may say otherwise, and a pax global header (which git
// archive writes) is no file.
func tarMode(flag byte) fs.FileMode {
	switch flag {
	case tar.TypeReg, tar.TypeCont, tar.TypeGNUSparse, tar.TypeLink:
		return 0
	case tar.TypeDir:
		return fs.ModeDir
	case tar.TypeSymlink:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular // devices, FIFOs, pax global headers, volume labels
}
