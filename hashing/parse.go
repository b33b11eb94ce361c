package hashing

import (
	"fmt"
	"strings"
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
// It is the one parser of the attribute; rsgen writes it with [Set.Format].
func ParseAttr(value string) ([]Token, error) {
	var one [1]string
	fields := asciiFields(value, one[:0])
	if fields == nil {
		fields = strings.Fields(value)
	}
	if len(fields) == 0 {
		return nil, fmt.Errorf("empty hash attribute")
	}
	tokens := make([]Token, 0, len(fields))
	for _, f := range fields {
		alg, digest, ok := strings.Cut(f, ":")
		if !ok || alg == "" || digest == "" {
			return nil, fmt.Errorf("hash token %q is not of the form alg:hexdigest", f)
		}
		alg = strings.ToLower(alg)
		for _, c := range alg {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '+') {
				return nil, fmt.Errorf("hash token %q: algorithm name %q has a character other than a-z, 0-9, - _ . +", f, alg)
			}
		}
		upper := false
		for i := 0; i < len(digest); i++ {
			c := digest[i]
			if c >= 'A' && c <= 'F' {
				upper = true
			} else if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return nil, fmt.Errorf("hash token %q: digest is not hex (section 7 requires hex encoding)", f)
			}
		}
		if upper {
			digest = strings.ToLower(digest)
		}
		if a, ok := Lookup(alg); ok && len(digest) != 2*a.Size() {
			return nil, fmt.Errorf("hash token %q: a %s digest has %d hex digits, not %d", f, alg, 2*a.Size(), len(digest))
		}
		for _, t := range tokens {
			if t.Alg == alg {
				return nil, fmt.Errorf("hash attribute names %s twice", alg)
			}
		}
		tokens = append(tokens, Token{Alg: alg, Digest: digest})
	}
	return tokens, nil
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

// asciiFields appends the fields of s, split at ASCII white space, to
// fields, as strings.Fields does without allocating for the usual one
// token (fields has room for it). It returns nil if s has a byte past
// ASCII, whose white space strings.Fields knows.
func asciiFields(s string, fields []string) []string {
	start := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return nil
		}
		if c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' {
			if start >= 0 {
				fields = append(fields, s[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		fields = append(fields, s[start:])
	}
	if fields == nil {
		return []string{}
	}
	return fields
}
