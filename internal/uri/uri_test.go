package uri

import "testing"

func TestAppendNormal(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"61", "a"}, {"7E", "~"}, {"7e", "~"}, {"2D", "-"}, {"2e", "."},
		{"2f", "%2F"}, {"2F", "%2F"}, {"c3", "%C3"}, {"20", "%20"}, {"25", "%25"}, {"ff", "%FF"},
	} {
		if got := string(AppendNormal(nil, tt.in[0], tt.in[1])); got != tt.want {
			t.Errorf("AppendNormal(%%%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIsUnreserved(t *testing.T) {
	n := 0
	for c := 0; c < 256; c++ {
		if IsUnreserved(byte(c)) {
			n++
		}
	}
	if n != 26+26+10+4 {
		t.Errorf("%d unreserved octets, want 66", n)
	}
	for _, c := range []byte("/%?#[]@!$&'()*+,;=: ") {
		if IsUnreserved(c) {
			t.Errorf("%q is reserved or not allowed, not unreserved", c)
		}
	}
}
