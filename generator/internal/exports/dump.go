package exports

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/storage/regfile"
	"github.com/rsgen/rsgen/internal/text/display"
	"github.com/rsgen/rsgen/internal/text/units"
	"github.com/rsgen/rsgen/zipdump"
)

// The records are packaged in the order of their paths, from a sorter of
// their own, so that the dump holds none of them in memory but those in
// flight. Records that name the same file share one bitstream, with an
// entry each in the manifest (zipdump.Item.Also). A file that changed or
// vanished since the export was read is left out of the dump and of every
// list, and named, as a changed file of a tree is.

// DumpNeedsFilesError fails a build from a record export with a Resource
// Dump in which some listed record has no local file: a Capability List
// promises that every resource of the Resource List is in the Resource
// Dump (section 9). Nothing is published.
type DumpNeedsFilesError struct {
	Name    string // the export, as messages name it
	Records int    // listed records without a path
	First   int    // the line of the first
}

func (e *DumpNeedsFilesError) Error() string {
	return fmt.Sprintf("%s of %s %s no path (first at line %d): a Resource Dump packages the records' local files, and must hold every resource of the Resource List (section 9); nothing was published",
		units.Count(e.Records, "published record"), e.Name, units.Plural(e.Records, "has", "have"), e.First)
}

// dumpRecord is read back from the Resource Dump's sorter.
type dumpRecord struct {
	line int
	r    spill.Resource
}

// leftRecord is a record the dump leaves out, with every list.
type leftRecord struct {
	line   int
	path   string
	length int64
	err    error
}

// dumpSeq gives zipdump the records of the Resource Dump: one item per
// file, with an entry for each record that names it.
type dumpSeq struct {
	s    *Source
	max  int          // entries a manifest may list
	left []leftRecord // records the last pass of Items left out
}

func (q *dumpSeq) Names(yield func(string) bool) error {
	return q.groups(func(path string, _ []dumpRecord, _ []leftRecord) bool { return yield(path) })
}

func (q *dumpSeq) Items(yield func(*zipdump.Item) bool) error {
	q.left = q.left[:0]
	return q.groups(func(path string, kept []dumpRecord, left []leftRecord) bool {
		q.left = append(q.left, left...)
		it := zipdump.Item{Name: path, Size: kept[0].r.Length, Hash: kept[0].r.Hash}
		kept[0].r.Entry(&it.Entry)
		if len(kept) > 1 {
			it.Also = make([]rsxml.Entry, len(kept)-1)
			for i := range it.Also {
				kept[i+1].r.Entry(&it.Also[i])
			}
		}
		return yield(&it)
	})
}

// groups calls fn with the records of each file, in the order of the
// paths: those packaged, the first of which has the lowest line, and
// those left out. A record whose digests or length are not the first's
// is left out: the file changed between the reads of the two. So is
// every record past the entries a manifest may list.
func (q *dumpSeq) groups(fn func(path string, kept []dumpRecord, left []leftRecord) bool) error {
	var path []byte
	var kept []dumpRecord
	var left []leftRecord
	flush := func() bool {
		if len(kept) == 0 {
			return true
		}
		ok := fn(string(path), kept, left)
		kept, left = kept[:0], left[:0]
		return ok
	}
	err := scan(q.s.dump, func(key, val []byte) error {
		p, line := splitKey(key)
		if q.s.skipped[line] {
			return nil
		}
		if len(kept) > 0 && !bytes.Equal(p, path) && !flush() {
			return errStop
		}
		d := dumpRecord{line: line, r: spill.Resource{Path: string(p)}}
		if _, err := decodeItem(val, &d.r); err != nil {
			return err
		}
		if len(kept) == 0 {
			path = append(path[:0], p...)
			kept = append(kept, d)
			return nil
		}
		switch first := &kept[0]; {
		case !slices.EqualFunc(d.r.Hash, first.r.Hash, sameToken) || d.r.Length != first.r.Length:
			left = append(left, leftRecord{line: line, path: string(p), length: d.r.Length,
				err: fmt.Errorf("%w: it was read with other bytes for the record at line %d", zipdump.ErrChanged, first.line)})
		case len(kept) >= q.max:
			left = append(left, leftRecord{line: line, path: string(p), length: d.r.Length,
				err: fmt.Errorf("the file is that of more than %d records, more than the manifest of a package may list", q.max)})
		default:
			kept = append(kept, d)
		}
		return nil
	})
	if err == nil {
		flush()
	}
	return err
}

// PackDump writes the packages of the Resource Dump, if the build makes
// one (nil otherwise), before the lists: a record whose file cannot be
// packaged is left out of them (Source.skipped).
func (s *Source) PackDump(ctx context.Context) (*zipdump.Result, error) {
	if s.dump == nil {
		return nil, nil
	}
	if s.opt.BeforeDump != nil {
		s.opt.BeforeDump()
	}
	s.opt.Stats.Enter(report.PhasePackaging)
	seq := &dumpSeq{s: s, max: s.opt.Dump.MaxEntries}
	opt := *s.opt.Dump
	opt.Open = func(it *zipdump.Item) (io.ReadCloser, error) {
		s.opt.Stats.Packed.Add(1)
		f, err := s.root.OpenFile(filepath.FromSlash(it.Name), regfile.OpenFlags, 0) // zipdump checks what it is
		if err != nil {
			return nil, err // not a nil *os.File in an interface
		}
		return f, nil
	}
	res, err := zipdump.RunSeq(ctx, seq, opt)
	if err != nil {
		return nil, fmt.Errorf("writing the Resource Dump: %w", err)
	}
	left := seq.left
	if len(res.Skipped) > 0 {
		// Which records the skipped items are: one more pass.
		why := res.Why()
		i := 0
		err := seq.groups(func(path string, kept []dumpRecord, _ []leftRecord) bool {
			if err, ok := why[i]; ok {
				for _, d := range kept {
					left = append(left, leftRecord{line: d.line, path: path, length: d.r.Length, err: err})
				}
			}
			i++
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	for _, l := range left {
		s.skipped[l.line] = true
		s.rep.Listed--
		if s.rep.Bytes < math.MaxInt64 { // else the sum saturated: what is left is not known
			s.rep.Bytes -= max(l.length, 0)
		}
		s.rep.Unpackaged++
		why := "left out of the Resource List too, which must list the same resources as the Resource Dump"
		if errors.Is(l.err, zipdump.ErrChanged) {
			s.rep.Changed++
			why = "left out of the Resource List and the Resource Dump, publish again once the files are stable"
		}
		s.opt.Problems.Add(report.Problem{Path: s.rep.Name, Line: l.line, Err: fmt.Errorf("path %s: %w; %s", l.path, display.WithoutPath(l.err), why)})
	}
	return res, nil
}

func sameToken(a, b hashing.Token) bool { return a.Alg == b.Alg && bytes.Equal(a.Digest, b.Digest) }
