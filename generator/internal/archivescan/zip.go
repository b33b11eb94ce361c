package archivescan

import (
	"archive/zip"
	"cmp"
	"fmt"
	"slices"

	"github.com/rsgen/rsgen/internal/storage/extsort"
)

// readZip adds the members of the zip to the sort, for the scan's pool to
// read them in the order of their paths, several at once.
func (sc *Scan) readZip(sorter *extsort.Sorter) error {
	a, files := sc.Archive, sc.zip.File
	if maxMembers := limit(sc.maxZip, MaxMembers); len(files) > maxMembers {
		return fmt.Errorf("source %s: %w: %d, more than the %d rsgen holds in memory", a.Path, ErrTooManyMembers, len(files), maxMembers)
	}
	// Members that share bytes are how a zip of a few megabytes expands to
	// petabytes (David Fifield, "A better zip bomb", 2019): no zip writer
	// shares data between entries, and UnZip 6.0 refuses such a zip too.
	type span struct {
		start, end int64
		name       string
	}
	var spans []span
	var rec []byte
	for i, f := range files {
		name := sc.admit(f.Name, f.Mode(), false)
		if name == "" {
			continue
		}
		off, err := f.DataOffset()
		if err != nil {
			return fmt.Errorf("reading the archive %s: %w", a.Path, damaged(fmt.Errorf("%s: %w", f.Name, err)))
		}
		spans = append(spans, span{off, off + int64(f.CompressedSize64), f.Name})
		err = sc.unreadable(name, f.Modified)
		if err == nil && f.Method != zip.Store && f.Method != zip.Deflate { // the methods archive/zip reads
			err = fmt.Errorf("reading from the archive: %w", zip.ErrAlgorithm)
		}
		if err != nil {
			err = sc.refuse(sorter, name, err)
		} else {
			rec = appendMember(rec[:0], i, int64(f.UncompressedSize64), f.FileInfo().ModTime(), nil, "")
			err = addMember(sorter, name, rec)
		}
		if err != nil {
			return err
		}
	}
	slices.SortFunc(spans, func(x, y span) int { return cmp.Compare(x.start, y.start) })
	for k := 1; k < len(spans); k++ {
		if prev := spans[k-1]; spans[k].start < prev.end || spans[k].start == prev.start {
			return fmt.Errorf("reading the archive %s: %w: the members %s and %s share bytes of the archive", a.Path, ErrDamaged, prev.name, spans[k].name)
		}
	}
	return nil
}
