package binrec

import (
	"bytes"
	"encoding/binary"

	"github.com/rsgen/rsgen/hashing"
)

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
		} else if t.Alg = hashing.Algorithm(k - 1).String(); !known(t.Alg) {
			r.fail()
		}
		t.Digest = bytes.Clone(r.Bytes())
		dst = append(dst, t)
	}
	return dst
}

func known(alg string) bool {
	_, ok := hashing.Lookup(alg)
	return ok
}
