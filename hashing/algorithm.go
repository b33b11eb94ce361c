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

// Algorithm is a digest algorithm whose token may appear in a hash
// attribute: first those rsgen publishes ([Algorithm.Publishable]), then
// those it only recognises and checks in what it reads.
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

// algorithms is the one table of hash algorithms, by IANA "Hash Function
// Textual Names" token (and BLAKE3's).
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

// String returns the token the spec uses for the algorithm ("sha-256").
func (a Algorithm) String() string {
	if a < numAlgorithms {
		return algorithms[a].token
	}
	return fmt.Sprintf("Algorithm(%d)", uint8(a))
}

func (a Algorithm) Size() int { return algorithms[a].size }

// Publishable reports whether rsgen publishes digests by a (whether a
// [Set] may hold it).
func (a Algorithm) Publishable() bool { return a < numPublishable }

func (a Algorithm) New() hash.Hash { return algorithms[a].new() }

// Lookup returns the algorithm whose token, in lower case, is token: the
// spelling of a hash attribute. Unlike [ParseAlgorithm] it knows the
// algorithms rsgen only checks and takes no other spelling.
func Lookup(token string) (Algorithm, bool) {
	for a := range numAlgorithms {
		if algorithms[a].token == token {
			return a, true
		}
	}
	return 0, false
}

// AllPublishable returns every algorithm rsgen publishes, in value order.
// Values never change meaning (a new algorithm gets a new value), so a file
// may store them, as the hash cache does.
func AllPublishable() Set {
	s := make(Set, numPublishable)
	for a := range numPublishable {
		s[a] = a
	}
	return s
}

// Known lists the tokens of every algorithm, publishable or not, for messages.
func Known() string { return tokens(numAlgorithms) }

func tokens(n Algorithm) string {
	names := make([]string, n)
	for a := range n {
		names[a] = algorithms[a].token
	}
	return strings.Join(names, ", ")
}

// ParseAlgorithm returns the publishable algorithm named by token, as a
// user names it (rsgen build --hash). Tokens are matched
// case-insensitively, and the common spellings without a dash ("sha256",
// "sha1") are accepted as well.
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

// Set is the ordered list of algorithms a build publishes. Digests appear
// in the hash attribute in this order.
type Set []Algorithm

// DefaultSet is what rsgen publishes unless told otherwise: sha-256, which
// every Destination can check.
var DefaultSet = Set{SHA256}

// ParseSet parses a comma-separated list such as "md5,sha-256". Duplicates
// are an error, as is an empty list.
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

// String returns the set in the form ParseSet reads.
func (s Set) String() string {
	names := make([]string, len(s))
	for i, a := range s {
		names[i] = a.String()
	}
	return strings.Join(names, ",")
}

func (s Set) Has(a Algorithm) bool { return slices.Contains(s, a) }

// SumSize is the length of a sum of s.
func (s Set) SumSize() int {
	n := 0
	for _, a := range s {
		n += a.Size()
	}
	return n
}

// Tokens appends the tokens of sum, the concatenated digests of s as a
// [Hasher] returns them, in the order of s; their digests are sum's bytes.
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

// Format returns sum as a hash attribute: FormatTokens(s.Tokens(nil, sum)).
func (s Set) Format(sum []byte) string { return FormatTokens(s.Tokens(nil, sum)) }

// UnmarshalText reads a as ParseAlgorithm does: an entry of a list of
// algorithms in a configuration file.
func (a *Algorithm) UnmarshalText(b []byte) (err error) {
	*a, err = ParseAlgorithm(string(b))
	return err
}

// UnmarshalText reads s as ParseSet does: hash = "sha-256,md5" in a
// configuration file (a list, ["sha-256", "md5"], is read entry by entry).
func (s *Set) UnmarshalText(b []byte) (err error) {
	*s, err = ParseSet(string(b))
	return err
}
