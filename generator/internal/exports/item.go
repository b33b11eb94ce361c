package exports

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/internal/storage/binrec"
)

// Records of an export are kept, until they are written, as compact byte
// strings in an extsort.Sorter: a key that orders them and a payload that
// holds the rest of a Resource (appendItem).
//
// Resource List key: loc, 0x00, line (8 bytes, big-endian). A loc never
// holds a 0x00 (it is a URI), so the records of one loc are adjacent, in
// the order of their lines: a duplicate follows the record it repeats.
//
// Resource Dump key: path, 0x00, line: the records in the order of their
// files, those that share one adjacent. A path with a 0x00 names no file
// that can be opened: its record is bad, and never added.
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

func splitKey(key []byte) (name []byte, line int) {
	n := len(key) - 9
	return key[:n], lineOf(key)
}

func lineOf(key []byte) int { return int(binary.BigEndian.Uint64(key[len(key)-8:])) }

// appendChangeKey appends the Change List key of an event.
func appendChangeKey(b []byte, datetime time.Time, loc string, line int) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(datetime.Unix())^(1<<63))
	return appendKey(b, loc, line)
}

func splitChangeKey(key []byte) (time.Time, []byte) {
	t := time.Unix(int64(binary.BigEndian.Uint64(key)^(1<<63)), 0).UTC()
	loc, _ := splitKey(key[8:])
	return t, loc
}

var errCorruptItem = errors.New("corrupt sorted record")

// appendItem appends the payload of r: the change (0 in a Resource List),
// then r as a spill spool stores it, with the part of the key it holds
// (the loc, or the Resource Dump's path) taken as shared.
func appendItem(b []byte, r *spill.Resource, change byte, dump bool) []byte {
	inKey := spill.Resource{Loc: r.Loc}
	if dump {
		inKey = spill.Resource{Path: r.Path}
	}
	return spill.AppendResource(append(b, change), &inKey, r)
}

// decodeItem fills r, which holds the part of its key (its Loc, or its Path
// in the Resource Dump's sorter), from a payload and returns its change.
func decodeItem(payload []byte, r *spill.Resource) (byte, error) {
	if len(payload) < 1 {
		return 0, errCorruptItem
	}
	err := spill.ReadResource(binrec.NewReader(payload[1:], errCorruptItem), r, func(b []byte) string { return string(b) })
	return payload[0], err
}

// itemLength returns the length in a payload, or -1, decoding no more
// than it must.
func itemLength(payload []byte) int64 {
	if len(payload) < 1 {
		return -1
	}
	d := binrec.NewReader(payload[1:], errCorruptItem)
	d.Uvarint() // the path
	d.Bytes()
	d.Uvarint() // the loc
	d.Bytes()
	if n := d.Varint(); d.Err() == nil {
		return n
	}
	return -1
}
