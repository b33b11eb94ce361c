package rsxml

import (
	"fmt"
	"strings"

	"github.com/rsgen/rsgen/hashing"
)

// A HashToken is one "alg:hexdigest" token of a hash attribute.
type HashToken struct {
	Alg    string // lower case, as in the spec ("sha-256")
	Digest string // lower-case hex
}

// ParseHash parses the value of a hash attribute: one or more
// space-separated "alg:hexdigest" tokens (section 7). Digests must be hex
// and, for algorithms of known length, of that length; an algorithm may
// appear once.
func ParseHash(value string) ([]HashToken, error) {
	fields := strings.Fields(value)
	if len(fields) == 0 {
		return nil, fmt.Errorf("empty hash attribute")
	}
	tokens := make([]HashToken, 0, len(fields))
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
		for i := 0; i < len(digest); i++ {
			c := digest[i]
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return nil, fmt.Errorf("hash token %q: digest is not hex (section 7 requires hex encoding)", f)
			}
		}
		if a, ok := hashing.Lookup(alg); ok && len(digest) != 2*a.Size() {
			return nil, fmt.Errorf("hash token %q: a %s digest has %d hex digits, not %d", f, alg, 2*a.Size(), len(digest))
		}
		for _, t := range tokens {
			if t.Alg == alg {
				return nil, fmt.Errorf("hash attribute names %s twice", alg)
			}
		}
		tokens = append(tokens, HashToken{Alg: alg, Digest: strings.ToLower(digest)})
	}
	return tokens, nil
}
