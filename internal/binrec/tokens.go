package binrec

import (
	"encoding/binary"

	"github.com/rsgen/rsgen/hashing"
)

// AppendTokens appends tokens, digests as bytes: their number, then for
// each its algorithm (one byte: 1 + the hashing.Algorithm of a name rsgen
// knows, else 0 and the name) and its digest.
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

// Tokens reads what AppendTokens wrote, appended to dst; the digests are
// a copy, in one allocation.
func (r *Reader) Tokens(dst []hashing.Token) []hashing.Token {
	n := r.Uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return dst
	}
	start, size := len(dst), 0
	for range n {
		var t hashing.Token
		if k := r.Byte(); k > 0 {
			a := hashing.Algorithm(k - 1)
			t.Alg = a.String()
			if b, ok := hashing.Lookup(t.Alg); !ok || b != a {
				r.fail()
				return dst[:start]
			}
		} else {
			t.Alg = r.String()
		}
		t.Digest = r.Bytes()
		size += len(t.Digest)
		dst = append(dst, t)
	}
	if r.err != nil {
		return dst[:start]
	}
	digests := make([]byte, 0, size)
	for i := start; i < len(dst); i++ {
		n := len(digests)
		digests = append(digests, dst[i].Digest...)
		dst[i].Digest = digests[n:len(digests):len(digests)]
	}
	return dst
}
