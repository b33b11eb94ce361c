package hashing

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A Token is one "alg:hexdigest" token of a hash attribute, as
// [ParseAttr] returns it.
type Token struct {
	Alg    string // lower case, as in the spec ("sha-256")
	Digest string // lower-case hex
}

// ParseAttr parses the value of a hash attribute: one or more
// space-separated "alg:hexdigest" tokens (section 7). Digests must be hex
// and, for the algorithms of the table (see [Lookup]), of their length; an
// algorithm may appear once. Tokens of other algorithms are kept: another
// publisher may use them, and a record export may give them to republish.
// rsgen writes the attribute with [Set.Format]. Its error is the first
// problem [ScanAttr] finds.
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

// ScanAttr is the one parser of a hash attribute. It appends the tokens
// of value to tokens, as [ParseAttr] returns them, and calls bad for
// every problem, in order, rather than stopping at the first: the mode of
// a validator. A token with a problem is not appended. It allocates
// nothing for a valid value in lower case, beyond growing tokens.
func ScanAttr(value string, tokens []Token, bad func(AttrProblem)) []Token {
	var first [8]string
	algs := first[:0]        // the algorithms so far, the first 16
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
		hex, upper := isHex(digest)
		if !hex {
			bad(AttrProblem{Msg: fmt.Sprintf("hash token %q: the digest is not hex, which section 7 requires", tok), NonHex: true})
			continue
		}
		if a, ok := Lookup(alg); ok && len(digest) != 2*a.Size() {
			bad(AttrProblem{Msg: fmt.Sprintf("hash token %q: a %s digest has %d hex digits, this one %d", tok, alg, 2*a.Size(), len(digest))})
			continue
		}
		if upper {
			digest = strings.ToLower(digest)
		}
		if good {
			tokens = append(tokens, Token{Alg: alg, Digest: digest})
		}
	}
	if n == 0 {
		bad(AttrProblem{Msg: "hash attribute is empty"})
	}
	return tokens
}

// splitToken splits one token of a hash attribute, alg:digest, where
// alg is [A-Za-z0-9][A-Za-z0-9_.+-]* and digest is not empty.
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

// isHex reports whether s is hex digits, and whether any is upper case.
func isHex(s string) (hex, upper bool) {
	all, some := uint8(1), uint8(0)
	for i := 0; i < len(s); i++ {
		k := hexClass[s[i]]
		all &= k
		some |= k
	}
	return s != "" && all != 0, some&2 != 0
}

// hexClass is 1 for a lower-case hex digit, 3 for an upper-case one, 0
// for any other byte: isHex runs once per token, without a branch a byte.
var hexClass = func() (t [256]uint8) {
	for c := range len(t) {
		switch {
		case c >= '0' && c <= '9' || c >= 'a' && c <= 'f':
			t[c] = 1
		case c >= 'A' && c <= 'F':
			t[c] = 3
		}
	}
	return t
}()

// nextField returns the first field of s, as strings.Fields splits s,
// and what follows it: without the allocation of a slice or an iterator.
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

// spaceAt reports whether the character at s[i] is white space to
// unicode.IsSpace, and its length.
func spaceAt(s string, i int) (bool, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return c == ' ' || c-'\t' <= '\r'-'\t', 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r), n
}

// FormatTokens returns tokens as a hash attribute: each "alg:digest",
// separated by single spaces; it writes back what ParseAttr parsed, in its
// normal form.
func FormatTokens(tokens []Token) string {
	n := 0
	for _, t := range tokens {
		n += len(t.Alg) + 1 + len(t.Digest) + 1
	}
	var b strings.Builder
	b.Grow(n)
	for i, t := range tokens {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.Alg)
		b.WriteByte(':')
		b.WriteString(t.Digest)
	}
	return b.String()
}

// AttrDigest returns the hex digest by a in attr, a hash attribute in the
// normal form [Set.Format] and [FormatTokens] write, without allocating:
// the digest a build computed, to compare with one [ParseAttr] read.
func AttrDigest(attr string, a Algorithm) (string, bool) {
	name := a.String()
	for attr != "" {
		tok, rest, _ := strings.Cut(attr, " ")
		if alg, d, ok := strings.Cut(tok, ":"); ok && alg == name {
			return d, true
		}
		attr = rest
	}
	return "", false
}
