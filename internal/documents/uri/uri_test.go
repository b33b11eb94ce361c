package uri

import (
	"strings"
	"testing"
)

func TestAppendNormal(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"61", "a"}, {"7E", "~"}, {"7e", "~"}, {"2D", "-"}, {"2e", "."},
		{"2f", "%2F"}, {"2F", "%2F"}, {"c3", "%C3"}, {"20", "%20"}, {"25", "%25"}, {"ff", "%FF"},
	} {
		if got := string(appendNormal(nil, tt.in[0], tt.in[1])); got != tt.want {
			t.Errorf("appendNormal(%%%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIsUnreserved(t *testing.T) {
	t.Parallel()
	n := 0
	for c := 0; c < 256; c++ {
		if isUnreserved(byte(c)) {
			n++
		}
	}
	if n != 26+26+10+4 {
		t.Errorf("%d unreserved octets, want 66", n)
	}
	for _, c := range []byte("/%?#[]@!$&'()*+,;=: ") {
		if isUnreserved(c) {
			t.Errorf("%q is reserved or not allowed, not unreserved", c)
		}
	}
}

// CompareDecoded orders URLs as the paths they were made from: the order
// in which rsgen writes a list, sorted by path, is that of its <loc>s
// decoded, not of the <loc>s.
func TestCompareDecoded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"https://x/a%C3%A9", "https://x/az", 1}, // é (0xC3 0xA9) after z, though % sorts before z
		{"https://x/az", "https://x/a%C3%A9", -1},
		{"https://x/a%41", "https://x/aA", 0},
		{"https://x/a%4", "https://x/a%4", 0}, // not an escape: itself
		{"https://x/a%zz", "https://x/a%", 1},
		{"https://x/a", "https://x/a/b", -1},
		{"", "", 0},
	} {
		if got := CompareDecoded(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareDecoded(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	// Against decoding first, on paths escaped as rsgen escapes them.
	paths := []string{"a b", "a!b", "a~b", "a+", "a-", "aé", "az", "a/b", "a%41", "\xff", "a.", "a,"}
	for _, p := range paths {
		for _, q := range paths {
			want := strings.Compare(p, q)
			if got := CompareDecoded(EscapePath(p), EscapePath(q)); got != want {
				t.Errorf("CompareDecoded(%q, %q) = %d, want %d (the order of the paths)", EscapePath(p), EscapePath(q), got, want)
			}
		}
	}
}
