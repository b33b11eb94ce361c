package hashing

import (
	"slices"
	"strings"
	"testing"
)

func TestParseAttr(t *testing.T) {
	md5 := "1584abdf8ebdc9802ac0c6a7402c03b6"
	sha256 := "854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784"
	tests := []struct {
		name    string
		in      string
		want    []Token
		wantErr string
	}{
		{name: "one token", in: "md5:" + md5, want: []Token{{"md5", md5}}},
		{name: "two tokens in order", in: "md5:" + md5 + " sha-256:" + sha256, want: []Token{{"md5", md5}, {"sha-256", sha256}}},
		{name: "extra white space", in: "  sha-256:" + sha256 + "\t md5:" + md5 + " ", want: []Token{{"sha-256", sha256}, {"md5", md5}}},
		{name: "case folded", in: "MD5:" + strings.ToUpper(md5), want: []Token{{"md5", md5}}},
		{name: "unknown algorithm, any length", in: "x-crc32:0a1b2c3d", want: []Token{{"x-crc32", "0a1b2c3d"}}},
		{name: "blake3", in: "blake3:" + sha256, want: []Token{{"blake3", sha256}}},
		{name: "empty", in: "", wantErr: "empty hash attribute"},
		{name: "blank", in: "   ", wantErr: "empty hash attribute"},
		{name: "no colon", in: md5, wantErr: "not of the form alg:hexdigest"},
		{name: "no algorithm", in: ":" + md5, wantErr: "not of the form alg:hexdigest"},
		{name: "no digest", in: "md5:", wantErr: "not of the form alg:hexdigest"},
		{name: "base64 digest", in: "md5:FYSr345byYAqwMancCwDtg==", wantErr: "not hex"},
		{name: "bad algorithm character", in: "md 5:" + md5, wantErr: "not of the form alg:hexdigest"},
		{name: "algorithm with slash", in: "sha/256:" + sha256, wantErr: "has a character other than"},
		{name: "short md5", in: "md5:" + md5[:31], wantErr: "has 32 hex digits, not 31"},
		{name: "sha-256 digest as sha-1", in: "sha-1:" + sha256, wantErr: "has 40 hex digits, not 64"},
		{name: "split at non-ASCII white space", in: "md5:" + md5 + "\u00a0sha-256:" + sha256, want: []Token{{"md5", md5}, {"sha-256", sha256}}},
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
			if len(got) != len(tt.want) {
				t.Fatalf("ParseAttr(%q) = %v, want %v", tt.in, got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("token %d = %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// FuzzASCIIFields holds asciiFields to strings.Fields, whose split
// ParseAttr had before it.
func FuzzASCIIFields(f *testing.F) {
	for _, s := range []string{"", " ", "md5:ab", " a\tb\nc\vd\fe\rf ", "a\u00a0b", "a\u0085b", "\x80", "a  b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var one [1]string
		got := asciiFields(s, one[:0])
		if got == nil {
			for i := 0; i < len(s); i++ {
				if s[i] >= 0x80 {
					return
				}
			}
			t.Fatalf("asciiFields(%q) = nil for ASCII", s)
		}
		if want := strings.Fields(s); !slices.Equal(got, want) {
			t.Fatalf("asciiFields(%q) = %q, strings.Fields %q", s, got, want)
		}
	})
}
