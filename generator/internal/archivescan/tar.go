package archivescan

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/mediatype"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/storage/extsort"
)

// readTar hashes the members of a tar stream in the order they come, and
// adds them to the sort: its memory is that of the sort, whatever the
// size of the archive.
func (sc *Scan) readTar(sorter *extsort.Sorter) error {
	a, ctx := sc.Archive, sc.ctx
	ts, err := openTar(a)
	if err != nil {
		return err
	}
	defer ts.close()
	h := hashing.NewHasher(sc.Hashes)
	var rec, sum []byte
	body := io.Reader(ctxReader{ctx, ts.tr})
	// A sparse member (GNU or PAX) says how large it is, whatever bytes
	// it holds: a few hundred bytes may declare a petabyte of holes,
	// which would be hashed for days (tar.Reader.Next skips its data, not
	// its holes). most is the most bytes a member can expand to.
	most := int64(math.MaxInt64)
	if st, err := os.Stat(a.Path); err == nil && st.Size() < (math.MaxInt64-maxMemberSlack)/maxExpansion {
		most = st.Size()*maxExpansion + maxMemberSlack
	}
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		hdr, err := ts.tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("reading the archive %s: %w", a.Path, damaged(err))
		}
		if maxMembers := limit(sc.maxTar, maxTarMembers); i >= maxMembers {
			return fmt.Errorf("source %s: %w: more than %d", a.Path, ErrTooManyMembers, maxMembers)
		}
		name := sc.admit(hdr.Name, tarMode(hdr.Typeflag), hdr.Typeflag == tar.TypeLink)
		if name == "" {
			continue
		}
		if hdr.Size > most {
			sc.problem(name, fmt.Errorf("%w: it declares %d bytes, more than the %d bytes of the archive can hold, compressed or not (a sparse file?)", ErrMemberTooLarge, hdr.Size, most))
			continue
		}
		if err := sc.unreadable(name, hdr.ModTime); err != nil {
			if err := sc.refuse(sorter, name, err); err != nil {
				return err
			}
			continue
		}
		var n int64
		n, sum, err = h.Sum(sum[:0], body)
		sc.Stats.Bytes.Add(n)
		if err != nil { // the stream is broken: nothing after this member can be read
			return fmt.Errorf("reading the archive %s: %s: %w", a.Path, name, damaged(err))
		}
		typ := ""
		if mediatype.ByName(name) == "" {
			typ = mediatype.Sniff(h.Head())
		}
		rec = appendMember(rec[:0], i, n, hdr.ModTime, sum, typ)
		if err := addMember(sorter, name, rec); err != nil {
			return err
		}
	}
	if err := ts.end(); err != nil {
		return fmt.Errorf("reading the archive %s: %w", a.Path, damaged(err))
	}
	return nil
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

// maxTarMembers bounds the members of a tar: the most resources the spec
// lets a Resource List index (50,000 lists of 50,000). A tar is sorted on
// disk, so this bounds the time and the disk a hostile archive of empty
// members can take, not the memory.
const maxTarMembers = rsxml.MaxEntries * rsxml.MaxEntries

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
