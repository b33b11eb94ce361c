package hashing

import (
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// tok is a Token of alg with the digest of hex digits h.
func tok(alg, h string) Token {
	d, err := hex.DecodeString(h)
	if err != nil {
		panic(err)
	}
	return Token{alg, d}
}

func TestParseAttr(t *testing.T) {
	md5 := "1584abdf8ebdc9802ac0c6a7402c03b6"
	sha256 := "854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784"
	tests := []struct {
		name    string
		in      string
		want    []Token
		wantErr string
	}{
		{name: "one token", in: "md5:" + md5, want: []Token{tok("md5", md5)}},
		{name: "two tokens in order", in: "md5:" + md5 + " sha-256:" + sha256, want: []Token{tok("md5", md5), tok("sha-256", sha256)}},
		{name: "extra white space", in: "  sha-256:" + sha256 + "\t md5:" + md5 + " ", want: []Token{tok("sha-256", sha256), tok("md5", md5)}},
		{name: "case folded", in: "MD5:" + strings.ToUpper(md5), want: []Token{tok("md5", md5)}},
		{name: "unknown algorithm, any length", in: "x-crc32:0a1b2c3d", want: []Token{tok("x-crc32", "0a1b2c3d")}},
		{name: "blake3", in: "blake3:" + sha256, want: []Token{tok("blake3", sha256)}},
		{name: "empty", in: "", wantErr: "hash attribute is empty"},
		{name: "blank", in: "   ", wantErr: "hash attribute is empty"},
		{name: "no colon", in: md5, wantErr: "not of the form alg:hexdigest"},
		{name: "no algorithm", in: ":" + md5, wantErr: "not of the form alg:hexdigest"},
		{name: "no digest", in: "md5:", wantErr: "not of the form alg:hexdigest"},
		{name: "base64 digest", in: "md5:FYSr345byYAqwMancCwDtg==", wantErr: "not hex"},
		{name: "bad algorithm character", in: "md 5:" + md5, wantErr: "not of the form alg:hexdigest"},
		{name: "algorithm with slash", in: "sha/256:" + sha256, wantErr: "not of the form alg:hexdigest"},
		{name: "algorithm starting with a dash", in: "-md5:" + md5, wantErr: "not of the form alg:hexdigest"},
		{name: "short md5", in: "md5:" + md5[:31], wantErr: "has 32 hex digits, this one 31"},
		{name: "sha-256 digest as sha-1", in: "sha-1:" + sha256, wantErr: "has 40 hex digits, this one 64"},
		{name: "split at non-ASCII white space", in: "md5:" + md5 + "\u00a0sha-256:" + sha256, want: []Token{tok("md5", md5), tok("sha-256", sha256)}},
		{name: "odd number of digits", in: "x-crc:abc", wantErr: "an even number of hex digits; this one has 3"},
		{name: "twice", in: "md5:" + md5 + " MD5:" + md5, wantErr: "names md5 twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAttr(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseAttr(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseAttr(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// ScanAttr reports every problem of a value, in order, where ParseAttr
// stops at the first.
func TestScanAttrEveryProblem(t *testing.T) {
	var got []AttrProblem
	tokens := ScanAttr("MD5:00 md5:zz x sha-1:"+strings.Repeat("a", 40)+" \u00a0 x-y:1", nil, func(p AttrProblem) { got = append(got, p) })
	want := []AttrProblem{
		{Msg: `hash token "MD5:00": a md5 digest has 32 hex digits, this one 2`},
		{Msg: "hash attribute names md5 twice"},
		{Msg: `hash token "md5:zz": the digest is not hex, which section 7 requires`, NonHex: true},
		{Msg: `hash token "x" is not of the form alg:hexdigest`},
		{Msg: `hash token "x-y:1": a digest is whole bytes, an even number of hex digits; this one has 1`},
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems\n%v\nwant\n%v", got, want)
	}
	if wantTokens := []Token{tok("sha-1", strings.Repeat("a", 40))}; !reflect.DeepEqual(tokens, wantTokens) {
		t.Errorf("tokens %v, want %v", tokens, wantTokens)
	}
}

// scanByMaps is ScanAttr as it was written before it avoided allocations
// (in validate): the reference FuzzScanAttr compares it with.
func scanByMaps(v string) []AttrProblem {
	tokens := strings.Fields(v)
	if len(tokens) == 0 {
		return []AttrProblem{{Msg: "hash attribute is empty"}}
	}
	var probs []AttrProblem
	seen := make(map[string]bool, len(tokens))
	for _, tok := range tokens {
		alg, digest, ok := splitToken(tok)
		if !ok {
			probs = append(probs, AttrProblem{Msg: fmt.Sprintf("hash token %q is not of the form alg:hexdigest", tok)})
			continue
		}
		alg = strings.ToLower(alg)
		if seen[alg] {
			probs = append(probs, AttrProblem{Msg: fmt.Sprintf("hash attribute names %s twice", alg)})
		}
		seen[alg] = true
		if _, err := hex.DecodeString(digest); errors.As(err, new(hex.InvalidByteError)) {
			probs = append(probs, AttrProblem{Msg: fmt.Sprintf("hash token %q: the digest is not hex, which section 7 requires", tok), NonHex: true})
			continue
		}
		if a, ok := Lookup(alg); ok && len(digest) != 2*a.Size() {
			probs = append(probs, AttrProblem{Msg: fmt.Sprintf("hash token %q: a %s digest has %d hex digits, this one %d", tok, alg, 2*a.Size(), len(digest))})
		} else if len(digest)%2 != 0 {
			probs = append(probs, AttrProblem{Msg: fmt.Sprintf("hash token %q: a digest is whole bytes, an even number of hex digits; this one has %d", tok, len(digest))})
		}
	}
	return probs
}

func FuzzScanAttr(f *testing.F) {
	f.Add("md5:1584abdf8ebdc9802ac0c6a7402c03b6 sha-256:" + strings.Repeat("0", 64))
	f.Add("MD5:00 md5:zz x \u00a0 sha-1:00")
	f.Add(strings.Repeat("a:0 b:1 c:2 d:3 e:4 f:5 ", 4) + "q:1 q:2")
	f.Fuzz(func(t *testing.T, v string) {
		var got []AttrProblem
		tokens := ScanAttr(v, nil, func(p AttrProblem) { got = append(got, p) })
		if want := scanByMaps(v); !slices.Equal(got, want) {
			t.Errorf("ScanAttr(%q) = %v, want %v", v, got, want)
		}
		if len(got) == 0 && len(tokens) != len(strings.Fields(v)) {
			t.Errorf("ScanAttr(%q): no problem, but tokens %v", v, tokens)
		}
	})
}

// A validator scans a hash attribute per entry: a valid one costs an
// allocation a digest when the tokens fit the caller's array.
func TestScanAttrAllocs(t *testing.T) {
	v := "md5:1584abdf8ebdc9802ac0c6a7402c03b6 sha-256:" + strings.Repeat("0", 64)
	if n := testing.AllocsPerRun(100, func() {
		var tokens [4]Token
		ScanAttr(v, tokens[:0], func(AttrProblem) { t.Error("a problem") })
	}); n != 2 {
		t.Errorf("%v allocations", n)
	}
}
