package archivescan

import (
	"archive/zip"
	"fmt"

	"github.com/rsgen/rsgen/internal/storage/extsort"
)

// readZip adds the members of the zip to the sort, for the scan's pool to
// read them in the order of their paths, several at once.
func (sc *Scan) readZip(sorter *extsort.Sorter) error {
	a, files := sc.Archive, sc.zip.File
	if maxMembers := limit(sc.maxZip, MaxMembers); len(files) > maxMembers {
		return fmt.Errorf("source %s: %w: %d, more than the %d rsgen holds in memory", a.Path, ErrTooManyMembers, len(files), maxMembers)
	}
	var pending []int
	var rec []byte
	for i, f := range files {
		name := sc.admit(f.Name, f.Mode(), false)
		if name == "" {
			continue
		}
		pending = append(pending, i)
		err := sc.unreadable(name, f.Modified)
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
	if err := checkOverlap(files, pending); err != nil {
		return fmt.Errorf("reading the archive %s: %w", a.Path, damaged(err))
	}
	return nil
}
