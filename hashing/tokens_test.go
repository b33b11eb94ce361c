package hashing

import (
	"bytes"
	"strings"
	"testing"
)

func helloSum(t *testing.T, set Set) []byte {
	t.Helper()
	_, sum, err := NewHasher(set).Sum(nil, strings.NewReader("hello\n"))
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// Holds is true only for tokens with the sum's digest by every algorithm
// of the set, however spelled and in whatever order.
func TestHolds(t *testing.T) {
	set := Set{MD5, SHA256}
	sum := helloSum(t, set)
	own := set.Tokens(nil, sum)
	if !set.Holds(own, sum) {
		t.Fatal("Holds is false for the set's own tokens")
	}
	swapped := []Token{{"SHA256", own[1].Digest}, own[0], {"x-other", []byte{1}}}
	if !set.Holds(swapped, sum) {
		t.Error("Holds is false for the tokens in another order and spelling")
	}
	other := bytes.Clone(sum)
	other[len(other)-1] ^= 1
	for _, bad := range [][]Token{nil, own[:1], set.Tokens(nil, other), {own[0], {"sha-256", own[1].Digest[1:]}}} {
		if set.Holds(bad, sum) {
			t.Errorf("Holds(%v) = true", bad)
		}
	}
	if testing.AllocsPerRun(100, func() { set.Holds(own, sum) }) != 0 {
		t.Error("Holds allocates")
	}
}

// What Set.Format writes, ParseAttr reads back as the set's tokens, and
// FormatTokens writes again byte for byte.
func TestFormatTokensRoundTrip(t *testing.T) {
	for _, set := range []Set{{SHA256}, {MD5, SHA256}, {BLAKE3, SHA1, MD5}} {
		sum := helloSum(t, set)
		attr := set.Format(sum)
		tokens, err := ParseAttr(attr)
		if err != nil {
			t.Fatal(err)
		}
		if !set.Holds(tokens, sum) || len(tokens) != len(set) {
			t.Errorf("ParseAttr(%q) = %v: not the set's tokens", attr, tokens)
		}
		if got := FormatTokens(tokens); got != attr {
			t.Errorf("FormatTokens(ParseAttr(%q)) = %q", attr, got)
		}
		for _, a := range AllPublishable() {
			if d, ok := Find(tokens, a); ok != set.Has(a) || ok && len(d) != a.Size() {
				t.Errorf("Find(%q, %s) = %x, %v", attr, a, d, ok)
			}
		}
	}
	// A token of another algorithm, upper case, extra spaces: ParseAttr's
	// normal form.
	tokens, err := ParseAttr("  X-Custom:ABCD   md5:" + strings.Repeat("0", 32) + " ")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := FormatTokens(tokens), "x-custom:abcd md5:"+strings.Repeat("0", 32); got != want {
		t.Errorf("FormatTokens = %q, want %q", got, want)
	}
	if FormatTokens(nil) != "" {
		t.Error("FormatTokens(nil) is not empty")
	}
}

// Differ finds a token whose digest is not the sum's, by an algorithm
// of the set however it is spelled, and compares no other.
func TestDiffer(t *testing.T) {
	set := Set{MD5, SHA256}
	sum := helloSum(t, set)
	if tok, _, bad := set.Differ(set.Tokens(nil, sum), sum); bad {
		t.Errorf("the set's own digests differ at %v", tok)
	}
	wrong := Token{Alg: "sha256", Digest: make([]byte, 32)}
	tok, d, bad := set.Differ([]Token{{Alg: "x-other", Digest: []byte{0}}, {Alg: "sha-1", Digest: make([]byte, 20)}, wrong}, sum)
	if !bad || tok.Alg != wrong.Alg {
		t.Fatalf("Differ = %v, %v; want the sha256 token", tok, bad)
	}
	if !bytes.Equal(d, sum[MD5.Size():]) {
		t.Errorf("Differ gives the digest %x, want %x", d, sum[MD5.Size():])
	}
	if _, _, bad := (Set{MD5}).Differ([]Token{wrong}, sum[:MD5.Size()]); bad {
		t.Error("a token of an algorithm outside the set was compared")
	}
}

// FormatTokens allocates once: it runs for every entry written.
func TestFormatTokensAllocs(t *testing.T) {
	set := Set{MD5, SHA256, BLAKE3}
	tokens := set.Tokens(nil, helloSum(t, set))
	if n := testing.AllocsPerRun(100, func() { FormatTokens(tokens) }); n != 1 {
		t.Errorf("%v allocations", n)
	}
}
