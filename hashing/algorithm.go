package hashing

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"

	"github.com/zeebo/blake3"
)

// Algorithm is a digest algorithm rsgen can publish.
type Algorithm uint8

// The algorithms, in the order their tokens are documented.
const (
	MD5 Algorithm = iota
	SHA1
	SHA256
	BLAKE3
	numAlgorithms
)

var algNames = [numAlgorithms]string{"md5", "sha-1", "sha-256", "blake3"}

// digestSizes are the digest lengths in bytes.
var digestSizes = [numAlgorithms]int{md5.Size, sha1.Size, sha256.Size, 32}

// String returns the token the spec uses for the algorithm ("sha-256").
func (a Algorithm) String() string {
	if a < numAlgorithms {
		return algNames[a]
	}
	return fmt.Sprintf("Algorithm(%d)", uint8(a))
}

// Size is the length of the algorithm's digest in bytes.
func (a Algorithm) Size() int { return digestSizes[a] }

func (a Algorithm) new() hash.Hash {
	switch a {
	case MD5:
		return md5.New()
	case SHA1:
		return sha1.New()
	case SHA256:
		return sha256.New()
	default:
		return blake3.New()
	}
}

// ParseAlgorithm returns the algorithm named by token. Tokens are matched
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
	return 0, fmt.Errorf("unknown hash algorithm %q (known: %s)", token, strings.Join(algNames[:], ", "))
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
	var seen [numAlgorithms]bool
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
		return nil, fmt.Errorf("no hash algorithm given (known: %s)", strings.Join(algNames[:], ", "))
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

// Has reports whether a is in the set.
func (s Set) Has(a Algorithm) bool {
	for _, b := range s {
		if a == b {
			return true
		}
	}
	return false
}

// SumSize is the length of a sum of s: the digests of its algorithms, concatenated in order.
func (s Set) SumSize() int {
	n := 0
	for _, a := range s {
		n += a.Size()
	}
	return n
}

// Format renders sum, the concatenated digests of s as a [Hasher] returns
// them, as the value of a hash attribute: space-separated "alg:lowercasehex"
// tokens in the order of s, as section 7 of the spec requires.
func (s Set) Format(sum []byte) string {
	return string(s.AppendFormat(make([]byte, 0, s.FormatLen()), sum))
}

// FormatLen is the length of what Format returns for a sum of s.
func (s Set) FormatLen() int {
	n := 2*s.SumSize() + max(len(s)-1, 0)
	for _, a := range s {
		n += len(a.String()) + 1
	}
	return n
}

// AppendFormat appends Format(sum) to dst.
func (s Set) AppendFormat(dst, sum []byte) []byte {
	if len(sum) != s.SumSize() {
		panic(fmt.Sprintf("hashing: sum of %d bytes for set %s", len(sum), s))
	}
	for i, a := range s {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, a.String()...)
		dst = append(dst, ':')
		dst = hex.AppendEncode(dst, sum[:a.Size()])
		sum = sum[a.Size():]
	}
	return dst
}
