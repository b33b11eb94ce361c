package hashcache

import (
	"errors"
	"slices"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/storage/regfile"
)

// Version is the version of the file format, and of the meaning of what it
// stores (how media types are sniffed): a cache of another is ignored.
const Version = 1

const magic = "RSGENHC\n"

// Why Open refuses a file. A missing file is fs.ErrNotExist.
var (
	ErrNotRegular = regfile.ErrNotRegular // a FIFO, a device, a directory
	ErrForeign    = errors.New("not an rsgen hash cache")
	ErrVersion    = errors.New("made by another version of rsgen")
	ErrCorrupt    = errors.New("damaged")
	ErrOtherDir   = errors.New("made for another source directory")
)

// algorithms are those an entry can hold, by their (stable) value in the
// bitmask of an entry.
var algorithms = hashing.AllPublishable()

// Stat is what the cache compares to decide that a file is unchanged.
type Stat struct {
	Size  int64
	Mtime int64 // modification time, ns since 1970
	Ctime int64 // status change time, ns since 1970; 0 where the system has none
	Ino   uint64
	Dev   uint64
}

// settledBefore reports whether the file's times are far enough before t,
// when it was read, that a later write must change them. Linux file
// systems update nanoseconds once per clock tick (at most 10 ms); those
// that keep whole seconds (FAT two) need more.
func (s Stat) settledBefore(t time.Time) bool {
	margin := 100 * time.Millisecond
	if s.Mtime%1e9 == 0 && s.Ctime%1e9 == 0 {
		margin = 2 * time.Second
	}
	limit := t.Add(-margin).UnixNano()
	return s.Mtime < limit && s.Ctime < limit
}

// An Entry is what the cache knows of one file.
type Entry struct {
	Stat
	Type string // media type found by sniffing the content; "" if the name gives it
	algs uint8  // bit a set: sums holds the digest of algorithms[a]
	sums []byte // digests in the order of algorithms
}

// Digest returns the entry's digest by a, if it has one.
func (e *Entry) Digest(a hashing.Algorithm) ([]byte, bool) {
	off := 0
	for _, b := range algorithms {
		if e.algs&(1<<b) == 0 {
			continue
		}
		if b == a {
			return e.sums[off : off+a.Size()], true
		}
		off += b.Size()
	}
	return nil, false
}

func (e *Entry) Clone() *Entry {
	c := *e
	c.sums = slices.Clone(e.sums)
	return &c
}

// Sum appends to dst the digests of set, in its order, as a
// [hashing.Hasher] returns them; false if one is missing.
func (e *Entry) Sum(dst []byte, set hashing.Set) ([]byte, bool) {
	for _, a := range set {
		d, ok := e.Digest(a)
		if !ok {
			return dst, false
		}
		dst = append(dst, d...)
	}
	return dst, true
}

// SetSum stores the digests of set from sum, as a Hasher returns them,
// and keeps those of other algorithms.
func (e *Entry) SetSum(set hashing.Set, sum []byte) {
	var algs uint8
	var sums []byte
	for _, a := range algorithms {
		d, ok := e.Digest(a)
		off := 0
		for _, b := range set {
			if b == a {
				d, ok = sum[off:off+a.Size()], true
			}
			off += b.Size()
		}
		if ok {
			algs |= 1 << a
			sums = append(sums, d...)
		}
	}
	e.algs, e.sums = algs, sums
}
