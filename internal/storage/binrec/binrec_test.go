package binrec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/rsgen/rsgen/hashing"
)

var errShort = errors.New("short record")

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	var b []byte
	b = binary.AppendUvarint(b, 300)
	b = binary.AppendVarint(b, -5)
	b = append(b, 7)
	b = append(b, "abcd"...)
	b = AppendBytes(b, "héllo")
	b = AppendBytes(b, []byte{})
	r := NewReader(b, errShort)
	if u, v, c, f, s, e := r.Uvarint(), r.Varint(), r.Byte(), string(r.Fixed(4)), r.String(), r.Bytes(); u != 300 || v != -5 || c != 7 || f != "abcd" || s != "héllo" || len(e) != 0 {
		t.Fatalf("read %d %d %d %q %q %q", u, v, c, f, s, e)
	}
	if r.Err() != nil || r.Len() != 0 {
		t.Fatalf("err %v, %d bytes left", r.Err(), r.Len())
	}
}

// Every field past the end of a record, or whose length runs past it,
// sets the Reader's error, which sticks, and reads as zero.
func TestShortRecords(t *testing.T) {
	t.Parallel()
	full := AppendBytes(binary.AppendVarint(binary.AppendUvarint(nil, 1<<40), -1<<40), "payload")
	for n := range len(full) {
		r := NewReader(full[:n], errShort)
		r.Uvarint()
		r.Varint()
		s := r.String()
		if !errors.Is(r.Err(), errShort) {
			t.Errorf("%d bytes of %d: no error", n, len(full))
		}
		if s != "" && n < len(full) {
			t.Errorf("%d bytes: read %q", n, s)
		}
		if r.Byte() != 0 || r.Fixed(1) != nil || r.Uvarint() != 0 || !errors.Is(r.Err(), errShort) {
			t.Errorf("%d bytes: a read after the error is not zero, or the error went", n)
		}
	}
	if r := NewReader(binary.AppendUvarint(nil, 1<<62), errShort); r.Bytes() != nil || r.Err() == nil {
		t.Error("a length past the record is read")
	}
	if r := NewReader([]byte{1, 2}, errShort); r.Fixed(-1) != nil || r.Err() == nil {
		t.Error("a negative length is read")
	}
}

// Fixed and Bytes share the record's memory, but an append to what they
// return does not overwrite the fields after it.
func TestFixedIsCapped(t *testing.T) {
	t.Parallel()
	b := []byte("abcdef")
	r := NewReader(b, errShort)
	f := r.Fixed(2)
	_ = append(f, 'X')
	if string(b) != "abcdef" {
		t.Errorf("an append to a field wrote into the record: %q", b)
	}
}

// Tokens read back what AppendTokens wrote: an algorithm rsgen knows in
// one byte, another by its name, digests as bytes; a damaged record is an
// error, not tokens.
func TestTokens(t *testing.T) {
	t.Parallel()
	want := []hashing.Token{{Alg: "sha-256", Digest: bytes.Repeat([]byte{7}, 32)}, {Alg: "x-other", Digest: []byte{1, 2}}, {Alg: "md5", Digest: []byte{}}}
	b := AppendTokens(nil, want)
	if len(b) != 1+(1+1+32)+(1+1+7+1+2)+(1+1) {
		t.Errorf("%d bytes: %x", len(b), b)
	}
	r := NewReader(b, errShort)
	if got := r.Tokens(nil); !reflect.DeepEqual(got, want) || r.Err() != nil || r.Len() != 0 {
		t.Errorf("read %v, %v; want %v", got, r.Err(), want)
	}
	for n := range len(b) {
		r := NewReader(b[:n], errShort)
		if r.Tokens(nil); !errors.Is(r.Err(), errShort) {
			t.Errorf("%d bytes of %d: no error", n, len(b))
		}
	}
	bad := slices.Clone(b)
	bad[1] = 200 // no such algorithm
	if r := NewReader(bad, errShort); r.Tokens(nil) != nil && r.Err() == nil {
		t.Error("an unknown algorithm number read without error")
	}
}

func TestShared(t *testing.T) {
	t.Parallel()
	corrupt := errors.New("corrupt")
	for _, tt := range [][2]string{{"", ""}, {"", "a/b"}, {"a/b", "a/c"}, {"a/b", "a/b"}, {"a/bc", "a/b"}, {"x", "y"}} {
		b := AppendShared(nil, tt[0], tt[1])
		r := NewReader(b, corrupt)
		if got := r.Shared(tt[0]); got != tt[1] || r.Err() != nil || r.Len() != 0 {
			t.Errorf("%q after %q read back as %q (%v)", tt[1], tt[0], got, r.Err())
		}
	}
	// A record that shares more than the string before holds is damaged.
	r := NewReader(AppendShared(nil, "abc", "abd"), corrupt)
	if got := r.Shared("a"); got != "" || r.Err() != corrupt {
		t.Errorf("a prefix longer than the string before read as %q (%v)", got, r.Err())
	}
}
