package hashing

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"hash"
	"slices"
	"strings"

	"github.com/zeebo/blake3"
)

// Algorithm is a digest algorithm of a hash attribute: those rsgen
// publishes first, then those it only checks in what it reads. Values
// never change meaning: the hash cache stores them.
type Algorithm uint8

const (
	MD5 Algorithm = iota
	SHA1
	SHA256
	BLAKE3
	SHA224
	SHA384
	SHA512
	numAlgorithms
)

const numPublishable = BLAKE3 + 1

// algorithms is the one table, by IANA "Hash Function Textual Names" token.
var algorithms = [numAlgorithms]struct {
	token string
	size  int
	new   func() hash.Hash
}{
	MD5:    {"md5", md5.Size, md5.New},
	SHA1:   {"sha-1", sha1.Size, sha1.New},
	SHA256: {"sha-256", sha256.Size, sha256.New},
	BLAKE3: {"blake3", 32, func() hash.Hash { return blake3.New() }},
	SHA224: {"sha-224", sha256.Size224, sha256.New224},
	SHA384: {"sha-384", sha512.Size384, sha512.New384},
	SHA512: {"sha-512", sha512.Size, sha512.New},
}

func (a Algorithm) String() string {
	if a < numAlgorithms {
		return algorithms[a].token
	}
	return fmt.Sprintf("Algorithm(%d)", uint8(a))
}

func (a Algorithm) Size() int { return algorithms[a].size }

func (a Algorithm) Publishable() bool { return a < numPublishable }

func (a Algorithm) New() hash.Hash { return algorithms[a].new() }

// Lookup returns the algorithm whose token is token, as a hash attribute
// spells it; unlike [ParseAlgorithm] it knows those rsgen only checks.
func Lookup(token string) (Algorithm, bool) {
	for a := range numAlgorithms {
		if algorithms[a].token == token {
			return a, true
		}
	}
	return 0, false
}

func AllPublishable() Set {
	s := make(Set, numPublishable)
	for a := range numPublishable {
		s[a] = a
	}
	return s
}

// Known lists every algorithm's token, for messages.
func Known() string { return tokens(numAlgorithms) }

func tokens(n Algorithm) string {
	names := make([]string, n)
	for a := range n {
		names[a] = algorithms[a].token
	}
	return strings.Join(names, ", ")
}

// ParseAlgorithm returns the publishable algorithm a user names (--hash),
// in any case, with or without the dash ("sha256").
func ParseAlgorithm(token string) (Algorithm, error) {
	t := strings.ToLower(strings.TrimSpace(token))
	switch t {
	case "md5":
		return MD5, nil
	case "sha-1", "sha1":
		return SHA1, nil
	case "sha-256", "sha256":
		return SHA256, nil
	case "blake3":
		return BLAKE3, nil
	}
	return 0, fmt.Errorf("unknown hash algorithm %q (known: %s)", token, tokens(numPublishable))
}

// Set is the ordered list of algorithms a build publishes, in the order
// of the hash attribute.
type Set []Algorithm

var DefaultSet = Set{SHA256} // which every Destination can check

// ParseSet parses a comma-separated list such as "md5,sha-256", without
// duplicates.
func ParseSet(list string) (Set, error) {
	var s Set
	var seen [numPublishable]bool
	for _, tok := range strings.Split(list, ",") {
		if strings.TrimSpace(tok) == "" {
			continue
		}
		a, err := ParseAlgorithm(tok)
		if err != nil {
			return nil, err
		}
		if seen[a] {
			return nil, fmt.Errorf("hash algorithm %s is listed twice", a)
		}
		seen[a] = true
		s = append(s, a)
	}
	if len(s) == 0 {
		return nil, fmt.Errorf("no hash algorithm given (known: %s)", tokens(numPublishable))
	}
	return s, nil
}

func (s Set) String() string {
	names := make([]string, len(s))
	for i, a := range s {
		names[i] = a.String()
	}
	return strings.Join(names, ",")
}

func (s Set) Has(a Algorithm) bool { return slices.Contains(s, a) }

func (s Set) SumSize() int {
	n := 0
	for _, a := range s {
		n += a.Size()
	}
	return n
}

// Tokens appends the tokens of sum, whose digests are sum's bytes.
func (s Set) Tokens(dst []Token, sum []byte) []Token {
	if len(sum) != s.SumSize() {
		panic(fmt.Sprintf("hashing: sum of %d bytes for set %s", len(sum), s))
	}
	for _, a := range s {
		dst = append(dst, Token{Alg: a.String(), Digest: sum[:a.Size():a.Size()]})
		sum = sum[a.Size():]
	}
	return dst
}

func (s Set) Format(sum []byte) string { return FormatTokens(s.Tokens(nil, sum)) }

func (a *Algorithm) UnmarshalText(b []byte) (err error) {
	*a, err = ParseAlgorithm(string(b))
	return err
}

func (s *Set) UnmarshalText(b []byte) (err error) {
	*s, err = ParseSet(string(b))
	return err
}
