package hashing

import (
	"bytes"
	"strings"
	"testing"
)

func TestIsAttr(t *testing.T) {
	set := Set{MD5, SHA256}
	h := NewHasher(set)
	_, sum, err := h.Sum(nil, bytes.NewReader([]byte("hello\n")))
	if err != nil {
		t.Fatal(err)
	}
	attr := set.Format(sum)
	if !set.IsAttr(attr, sum) {
		t.Fatalf("IsAttr(%q) = false for its own sum", attr)
	}
	other := bytes.Clone(sum)
	other[len(other)-1] ^= 1
	for _, bad := range []string{
		"", attr + " ", " " + attr, attr[:len(attr)-1], attr + "0",
		set.Format(other),
		Set{SHA256, MD5}.Format(append(sum[16:len(sum):len(sum)], sum[:16]...)), // other order
		"MD5" + attr[3:], // rsgen writes lower case
		attr[:len(attr)-64] + string(bytes.ToUpper([]byte(attr[len(attr)-64:]))),
		attr[:len(attr)-65] + "  " + attr[len(attr)-64:],
	} {
		if set.IsAttr(bad, sum) {
			t.Errorf("IsAttr(%q) = true", bad)
		}
	}
	if set.IsAttr(attr, sum[:len(sum)-1]) {
		t.Error("IsAttr with a short sum = true")
	}
	if testing.AllocsPerRun(100, func() { set.IsAttr(attr, sum) }) != 0 {
		t.Error("IsAttr allocates")
	}
}

func TestHexIs(t *testing.T) {
	for _, c := range []struct {
		hex  string
		d    []byte
		want bool
	}{
		{"00ff10", []byte{0, 0xff, 0x10}, true},
		{"00FF10", []byte{0, 0xff, 0x10}, false},
		{"00ff1", []byte{0, 0xff, 0x10}, false},
		{"", nil, true},
		{"00ff11", []byte{0, 0xff, 0x10}, false},
	} {
		if got := HexIs(c.hex, c.d); got != c.want {
			t.Errorf("HexIs(%q, %x) = %v", c.hex, c.d, got)
		}
	}
}

func TestSetDigest(t *testing.T) {
	set := Set{SHA1, MD5}
	sum := make([]byte, set.SumSize())
	for i := range sum {
		sum[i] = byte(i)
	}
	if d, ok := set.Digest(sum, MD5); !ok || !bytes.Equal(d, sum[20:]) {
		t.Errorf("Digest(MD5) = %x, %v", d, ok)
	}
	if d, ok := set.Digest(sum, SHA1); !ok || !bytes.Equal(d, sum[:20]) {
		t.Errorf("Digest(SHA1) = %x, %v", d, ok)
	}
	if d, ok := set.Digest(sum, SHA256); ok {
		t.Errorf("Digest(SHA256) = %x, true; the set has none", d)
	}
}

// What Set.Format writes, ParseAttr reads back, FormatTokens writes again
// byte for byte, and AttrDigest finds each digest of, by its algorithm.
func TestFormatTokensAndAttrDigest(t *testing.T) {
	for _, set := range []Set{{SHA256}, {MD5, SHA256}, {BLAKE3, SHA1, MD5}} {
		_, sum, err := NewHasher(set).Sum(nil, bytes.NewReader([]byte("hello\n")))
		if err != nil {
			t.Fatal(err)
		}
		attr := set.Format(sum)
		tokens, err := ParseAttr(attr)
		if err != nil {
			t.Fatal(err)
		}
		if got := FormatTokens(tokens); got != attr {
			t.Errorf("FormatTokens(ParseAttr(%q)) = %q", attr, got)
		}
		for i, a := range set {
			d, ok := AttrDigest(attr, a)
			if !ok || d != tokens[i].Digest {
				t.Errorf("AttrDigest(%q, %s) = %q, %v; want %q", attr, a, d, ok, tokens[i].Digest)
			}
		}
		for _, a := range AllPublishable() {
			if _, ok := AttrDigest(attr, a); ok != set.Has(a) {
				t.Errorf("AttrDigest(%q, %s) found: %v", attr, a, ok)
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

// Mismatch finds a token whose digest is not the sum's, by an algorithm
// of the set however it is spelled, and compares no other.
func TestMismatch(t *testing.T) {
	set := Set{MD5, SHA256}
	_, sum, err := NewHasher(set).Sum(nil, bytes.NewReader([]byte("hello\n")))
	if err != nil {
		t.Fatal(err)
	}
	good, err := ParseAttr(set.Format(sum))
	if err != nil {
		t.Fatal(err)
	}
	if tok, _, bad := set.Mismatch(sum, good); bad {
		t.Errorf("the set's own digests mismatch at %v", tok)
	}
	wrong := Token{Alg: "sha256", Digest: strings.Repeat("0", 64)}
	tok, d, bad := set.Mismatch(sum, append([]Token{{Alg: "x-other", Digest: "00"}, {Alg: "sha-1", Digest: strings.Repeat("0", 40)}}, wrong))
	if !bad || tok != wrong {
		t.Fatalf("Mismatch = %v, %v; want the sha256 token", tok, bad)
	}
	if want, _ := set.Digest(sum, SHA256); !bytes.Equal(d, want) {
		t.Errorf("Mismatch gives the digest %x, want %x", d, want)
	}
	if _, _, bad := (Set{MD5}).Mismatch(sum[:MD5.Size()], []Token{wrong}); bad {
		t.Error("a token of an algorithm outside the set was compared")
	}
}
