// Package binrec writes and reads the compact binary records rsgen keeps
// for itself (the hash cache, the spools of a build, the runs of its
// external sorts): sequences of varints, bytes and length-prefixed byte
// strings. A [Reader] reads the fields of one record in order; the first
// that fails sets an error that sticks, checked once at the end
// ([Reader.Err]). A [File] is a sequence of records on disk, appended and
// then read back in order by [FileReader]s, as often as needed.
package binrec

import (
	"bytes"
	"encoding/binary"
	"strings"
	"time"

	"github.com/rsgen/rsgen/hashing"
)

// AppendBytes appends s to b, prefixed by its length.
func AppendBytes[S ~string | ~[]byte](b []byte, s S) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// AppendShared appends s as the length of the prefix it shares with prev
// (the same field of the record before) and the rest.
func AppendShared(b []byte, prev, s string) []byte {
	n := 0
	for n < len(prev) && n < len(s) && prev[n] == s[n] {
		n++
	}
	return AppendBytes(binary.AppendUvarint(b, uint64(n)), s[n:])
}

// An Interner shares the strings of a field that has few values (media
// types): it keeps the first 256 it is given.
type Interner map[string]string

func (in Interner) String(b []byte) string {
	if s, ok := in[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(in) < 256 {
		in[s] = s
	}
	return s
}

type Reader struct {
	b       []byte
	err     error
	corrupt error
}

// NewReader returns a Reader of the fields of b; corrupt is the error a
// field that cannot be read sets.
func NewReader(b []byte, corrupt error) *Reader { return &Reader{b: b, corrupt: corrupt} }

func (r *Reader) Err() error { return r.err }

func (r *Reader) Len() int { return len(r.b) }

func (r *Reader) fail() {
	r.err, r.b = r.corrupt, nil
}

func (r *Reader) Uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *Reader) Varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *Reader) Byte() byte {
	if len(r.b) < 1 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// Fixed reads n bytes, sharing the record's memory, capped so that an
// append copies.
func (r *Reader) Fixed(n int) []byte {
	if n < 0 || n > len(r.b) {
		r.fail()
		return nil
	}
	b := r.b[:n:n]
	r.b = r.b[n:]
	return b
}

// Bytes reads bytes prefixed by their length, as Fixed does.
func (r *Reader) Bytes() []byte {
	n := r.Uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	return r.Fixed(int(n))
}

func (r *Reader) String() string { return string(r.Bytes()) }

// Shared reads a string of AppendShared after prev.
func (r *Reader) Shared(prev string) string {
	n := r.Uvarint()
	rest := r.Bytes()
	if n > uint64(len(prev)) {
		r.fail()
		return ""
	}
	if n == uint64(len(prev)) && len(rest) == 0 {
		return prev
	}
	var sb strings.Builder
	sb.Grow(int(n) + len(rest))
	sb.WriteString(prev[:n])
	sb.Write(rest)
	return sb.String()
}

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

// AppendTokens appends tokens: their number, then for each its algorithm
// (1 + a hashing.Algorithm rsgen knows, else 0 and the name) and digest.
func AppendTokens(b []byte, tokens []hashing.Token) []byte {
	b = binary.AppendUvarint(b, uint64(len(tokens)))
	for _, t := range tokens {
		if a, ok := hashing.Lookup(t.Alg); ok {
			b = append(b, byte(a)+1)
		} else {
			b = AppendBytes(append(b, 0), t.Alg)
		}
		b = AppendBytes(b, t.Digest)
	}
	return b
}

// Tokens appends to dst what AppendTokens wrote, the digests copied.
func (r *Reader) Tokens(dst []hashing.Token) []hashing.Token {
	for n := r.Uvarint(); n > 0 && r.err == nil; n-- {
		var t hashing.Token
		if k := r.Byte(); k == 0 {
			t.Alg = r.String()
		} else if a, ok := hashing.Lookup(hashing.Algorithm(k - 1).String()); ok {
			t.Alg = a.String()
		} else {
			r.fail()
		}
		t.Digest = bytes.Clone(r.Bytes())
		dst = append(dst, t)
	}
	return dst
}
