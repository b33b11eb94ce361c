package binrec

import (
	"encoding/binary"
	"time"
)

// AppendTime appends t: 0 for the zero time, else 1, its Unix seconds and
// its nanoseconds.
func AppendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendVarint(b, t.Unix())
	return binary.AppendUvarint(b, uint64(t.Nanosecond()))
}

// Time reads a time that AppendTime appended, in UTC.
func (r *Reader) Time() time.Time {
	if r.Byte() == 0 {
		return time.Time{}
	}
	sec := r.Varint()
	return time.Unix(sec, int64(r.Uvarint())).UTC()
}
