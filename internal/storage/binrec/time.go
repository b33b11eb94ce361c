package binrec

import (
	"encoding/binary"
	"time"
)

// AppendTime appends t: a byte that says whether it is the zero time, then,
// if it is not, its seconds since 1970 as a varint and its nanoseconds as
// an unsigned varint. It is read back in UTC.
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
