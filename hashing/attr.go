package hashing

// IsAttr reports whether attr is exactly the hash attribute that
// [Set.Format] writes for sum, the digests of s concatenated in order: the
// comparison of a digest just computed with one rsgen wrote before (into a
// list, a manifest, a record), made on bytes without formatting either.
func (s Set) IsAttr(attr string, sum []byte) bool {
	if len(sum) != s.SumSize() {
		return false
	}
	for i, a := range s {
		if i > 0 {
			if attr == "" || attr[0] != ' ' {
				return false
			}
			attr = attr[1:]
		}
		tok := a.String()
		if len(attr) < len(tok)+1 || attr[:len(tok)] != tok || attr[len(tok)] != ':' {
			return false
		}
		attr = attr[len(tok)+1:]
		n := 2 * a.Size()
		if len(attr) < n || !HexIs(attr[:n], sum[:a.Size()]) {
			return false
		}
		attr, sum = attr[n:], sum[a.Size():]
	}
	return attr == ""
}

// Mismatch returns the first of tokens (a hash attribute, parsed) whose
// algorithm s has and whose digest is not the one in sum, the digests of s
// concatenated in order, with sum's digest by that algorithm. Tokens of
// algorithms s does not have are not compared; an algorithm is recognised
// as a user may spell it (ParseAlgorithm).
func (s Set) Mismatch(sum []byte, tokens []Token) (Token, []byte, bool) {
	for _, t := range tokens {
		a, err := ParseAlgorithm(t.Alg)
		if err != nil {
			continue
		}
		if d, ok := s.Digest(sum, a); ok && !HexIs(t.Digest, d) {
			return t, d, true
		}
	}
	return Token{}, nil, false
}

// Digest returns the digest by a in sum, the digests of s concatenated in
// order, if s has a.
func (s Set) Digest(sum []byte, a Algorithm) ([]byte, bool) {
	off := 0
	for _, b := range s {
		if b == a {
			return sum[off : off+a.Size()], true
		}
		off += b.Size()
	}
	return nil, false
}

// HexIs reports whether digest, lower-case hex as a hash attribute holds
// it once parsed, encodes d.
func HexIs(digest string, d []byte) bool {
	const digits = "0123456789abcdef"
	if len(digest) != 2*len(d) {
		return false
	}
	for i, c := range d {
		if digest[2*i] != digits[c>>4] || digest[2*i+1] != digits[c&0x0f] {
			return false
		}
	}
	return true
}
