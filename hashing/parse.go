package hashing

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A Token is one digest of a hash attribute ("alg:hexdigest"), of any
// algorithm, computed or read.
type Token struct {
	Alg    string // lower case, as in the spec ("sha-256")
	Digest []byte
}

// ParseAttr parses a hash attribute: space-separated "alg:hexdigest"
// tokens (section 7), hex digests of the length of a known algorithm, each
// algorithm once. Tokens of unknown algorithms are kept (an export may
// give them to republish). Its error is the first [ScanAttr] finds.
func ParseAttr(value string) ([]Token, error) {
	var err error
	tokens := ScanAttr(value, make([]Token, 0, strings.Count(value, ":")), func(p AttrProblem) {
		if err == nil {
			err = errors.New(p.Msg)
		}
	})
	if err != nil {
		return nil, err
	}
	return tokens, nil
}

// An AttrProblem is one thing wrong with a hash attribute.
type AttrProblem struct {
	Msg    string
	NonHex bool // a digest is not hex (as in the spec's own Example 27)
}

// ScanAttr is the one parser of a hash attribute: it appends the good
// tokens of value to tokens, and calls bad for every problem, in order
// (a validator's mode).
func ScanAttr(value string, tokens []Token, bad func(AttrProblem)) []Token {
	var first [8]string
	algs := first[:0]        // the first 16 algorithms
	var more map[string]bool // the others: a hostile value may have thousands
	n := 0
	for tok, rest := nextField(value); tok != ""; tok, rest = nextField(rest) {
		n++
		alg, digest, ok := splitToken(tok)
		if !ok {
			bad(AttrProblem{Msg: fmt.Sprintf("hash token %q is not of the form alg:hexdigest", tok)})
			continue
		}
		alg = strings.ToLower(alg)
		good := true
		if slices.Contains(algs, alg) || more != nil && more[alg] {
			bad(AttrProblem{Msg: fmt.Sprintf("hash attribute names %s twice", alg)})
			good = false
		}
		if len(algs) < 16 {
			algs = append(algs, alg)
		} else {
			if more == nil {
				more = make(map[string]bool)
			}
			more[alg] = true
		}
		d, err := hex.DecodeString(digest) // invalid bytes are found before an odd length
		_, nonHex := err.(hex.InvalidByteError)
		switch a, known := Lookup(alg); {
		case nonHex:
			bad(AttrProblem{Msg: fmt.Sprintf("hash token %q: the digest is not hex, which section 7 requires", tok), NonHex: true})
		case known && len(digest) != 2*a.Size():
			bad(AttrProblem{Msg: fmt.Sprintf("hash token %q: a %s digest has %d hex digits, this one %d", tok, alg, 2*a.Size(), len(digest))})
		case err != nil:
			bad(AttrProblem{Msg: fmt.Sprintf("hash token %q: a digest is whole bytes, an even number of hex digits; this one has %d", tok, len(digest))})
		case good:
			tokens = append(tokens, Token{Alg: alg, Digest: d})
		}
	}
	if n == 0 {
		bad(AttrProblem{Msg: "hash attribute is empty"})
	}
	return tokens
}

// splitToken splits alg:digest, where alg is [A-Za-z0-9][A-Za-z0-9_.+-]*.
func splitToken(tok string) (alg, digest string, ok bool) {
	alg, digest, ok = strings.Cut(tok, ":")
	if !ok || alg == "" || digest == "" {
		return "", "", false
	}
	for i := 0; i < len(alg); i++ {
		c := alg[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '_' && c != '.' && c != '+' && c != '-') {
			return "", "", false
		}
	}
	return alg, digest, true
}

// nextField returns the first field of s, as strings.Fields splits it,
// and the rest, without allocating.
func nextField(s string) (field, rest string) {
	i := 0
	for i < len(s) {
		space, n := spaceAt(s, i)
		if !space {
			break
		}
		i += n
	}
	j := i
	for j < len(s) && s[j] > ' ' && s[j] < utf8.RuneSelf {
		j++ // printable ASCII, most of a hash attribute
	}
	for j < len(s) {
		space, n := spaceAt(s, j)
		if space {
			break
		}
		j += n
	}
	return s[i:j], s[j:]
}

func spaceAt(s string, i int) (bool, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return c == ' ' || c-'\t' <= '\r'-'\t', 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r), n
}

// FormatTokens is the one writer of a hash attribute: "alg:hexdigest"
// tokens in lower-case hex, in order, separated by single spaces.
func FormatTokens(tokens []Token) string {
	n := 0
	for _, t := range tokens {
		n += len(t.Alg) + 2 + 2*len(t.Digest)
	}
	var sb strings.Builder
	sb.Grow(max(n-1, 0)) // one allocation
	var buf [128]byte
	for i, t := range tokens {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(t.Alg)
		sb.WriteByte(':')
		for d := t.Digest; len(d) > 0; d = d[min(len(d), 64):] {
			sb.Write(hex.AppendEncode(buf[:0], d[:min(len(d), 64)]))
		}
	}
	return sb.String()
}

func Find(tokens []Token, a Algorithm) ([]byte, bool) {
	for _, t := range tokens {
		if isAlg(t.Alg, a) {
			return t.Digest, true
		}
	}
	return nil, false
}

// Differ returns a token of an algorithm of s whose digest is not sum's,
// and sum's.
func (s Set) Differ(tokens []Token, sum []byte) (Token, []byte, bool) {
	for _, a := range s {
		d := sum[:a.Size()]
		sum = sum[a.Size():]
		for _, t := range tokens {
			if isAlg(t.Alg, a) && !bytes.Equal(t.Digest, d) {
				return t, d, true
			}
		}
	}
	return Token{}, nil, false
}

// Holds reports whether tokens hold sum's digest by every algorithm of s.
func (s Set) Holds(tokens []Token, sum []byte) bool {
	for _, a := range s {
		if d, ok := Find(tokens, a); !ok || !bytes.Equal(d, sum[:a.Size()]) {
			return false
		}
		sum = sum[a.Size():]
	}
	return true
}

func isAlg(name string, a Algorithm) bool {
	if name == a.String() {
		return true
	}
	b, err := ParseAlgorithm(name)
	return err == nil && b == a
}
