package exports

import (
	"encoding/binary"
	"errors"
	"math"
	"time"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/internal/binrec"
	"github.com/rsgen/rsgen/internal/rsxml"
)

// Records of an export are kept, until they are written, as compact byte
// strings in an extsort.Sorter: a key that orders them and a payload that
// holds the rest of a Resource.
//
// Resource List key: loc, 0x00, line (8 bytes, big-endian). A loc never
// holds a 0x00 (it is a URI), so the records of one loc are adjacent, in
// the order of their lines: a duplicate follows the record it repeats.
//
// Resource Dump key: path, 0x00, line: the records in the order of their
// files, those that share one adjacent. A path with a 0x00 names no file
// that can be opened: its record is bad, and never added. The payload
// starts with the loc.
//
// Change List key: datetime (8 bytes: Unix seconds, biased to sort as
// unsigned), then the Resource List key: chronological, then by loc.

// appendKey appends the Resource List or Resource Dump key of name (a loc
// or a path) at line.
func appendKey(b []byte, name string, line int) []byte {
	b = append(b, name...)
	b = append(b, 0)
	return binary.BigEndian.AppendUint64(b, uint64(line))
}

// splitKey returns the name and line of a Resource List or Resource Dump key.
func splitKey(key []byte) (name []byte, line int) {
	n := len(key) - 9
	return key[:n], lineOf(key)
}

// lineOf returns the line of any key.
func lineOf(key []byte) int { return int(binary.BigEndian.Uint64(key[len(key)-8:])) }

// appendChangeKey appends the Change List key of an event.
func appendChangeKey(b []byte, datetime time.Time, loc string, line int) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(datetime.Unix())^(1<<63))
	return appendKey(b, loc, line)
}

// splitChangeKey returns the datetime and loc of a Change List key.
func splitChangeKey(key []byte) (time.Time, []byte) {
	t := time.Unix(int64(binary.BigEndian.Uint64(key)^(1<<63)), 0).UTC()
	loc, _ := splitKey(key[8:])
	return t, loc
}

// Payload flags.
const (
	itemHasModified = 1 << iota
	itemHasLength
	itemHasLinks
)

// appendItem appends the payload of r (all but its loc) and, for a change
// document, the change (0 in a Resource List).
func appendItem(b []byte, r *spill.Resource, change byte) []byte {
	var flags byte
	if !r.Modified.IsZero() {
		flags |= itemHasModified
	}
	if r.Length >= 0 {
		flags |= itemHasLength
	}
	if len(r.Links) > 0 {
		flags |= itemHasLinks
	}
	b = append(b, flags, change)
	if !r.Modified.IsZero() {
		b = binary.AppendVarint(b, r.Modified.Unix())
		b = binary.AppendUvarint(b, uint64(r.Modified.Nanosecond()))
	}
	if r.Length >= 0 {
		b = binary.AppendUvarint(b, uint64(r.Length))
	}
	b = binrec.AppendTokens(b, r.Hash)
	b = binrec.AppendBytes(b, r.Type)
	b = binrec.AppendBytes(b, r.Path)
	if len(r.Links) > 0 {
		b = binary.AppendUvarint(b, uint64(len(r.Links)))
		for i := range r.Links {
			l := &r.Links[i]
			for _, s := range [...]string{l.Rel, l.Href, l.Type, l.Hash, l.Length, l.Modified, l.Encoding, l.Path, l.Pri, l.Profile} {
				b = binrec.AppendBytes(b, s)
			}
		}
	}
	return b
}

var errCorruptItem = errors.New("corrupt sorted record")

// decodeItem fills r (but its Loc) from a payload and returns its change.
func decodeItem(payload []byte, r *spill.Resource) (byte, error) {
	if len(payload) < 2 {
		return 0, errCorruptItem
	}
	flags, change := payload[0], payload[1]
	d := binrec.NewReader(payload[2:], errCorruptItem)
	r.Modified, r.Length, r.Links = time.Time{}, -1, nil
	if flags&itemHasModified != 0 {
		sec := d.Varint()
		r.Modified = time.Unix(sec, int64(d.Uvarint())).UTC()
	}
	if flags&itemHasLength != 0 {
		n := d.Uvarint()
		if n > math.MaxInt64 {
			return 0, errCorruptItem
		}
		r.Length = int64(n)
	}
	r.Hash, r.Type, r.Path = d.Tokens(nil), d.String(), d.String()
	if flags&itemHasLinks != 0 {
		n := d.Uvarint()
		if n > uint64(d.Len()) {
			return 0, errCorruptItem
		}
		r.Links = make([]rsxml.Link, n)
		for i := range r.Links {
			l := &r.Links[i]
			for _, p := range [...]*string{&l.Rel, &l.Href, &l.Type, &l.Hash, &l.Length, &l.Modified, &l.Encoding, &l.Path, &l.Pri, &l.Profile} {
				*p = d.String()
			}
		}
	}
	return change, d.Err()
}
