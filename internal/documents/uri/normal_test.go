package uri

import (
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"https://example.org/a/b.txt", "https://example.org/a/b.txt"},
		{"HTTPS://Example.ORG:443/a", "https://example.org/a"},
		{"http://example.org:80", "http://example.org/"},
		{"http://example.org:8080/", "http://example.org:8080/"},
		{"https://example.org:/x", "https://example.org/x"},
		{"http://[::1]:80/x", "http://[::1]/x"},
		{"http://[::1]/x", "http://[::1]/x"},
		// IRIs and unescaped names (RFC 3987, 3.1): the UTF-8 bytes, escaped.
		{"https://example.org/café.txt", "https://example.org/caf%C3%A9.txt"},
		{"https://example.org/caf%c3%a9.txt", "https://example.org/caf%C3%A9.txt"},
		{"https://example.org/with space.txt", "https://example.org/with%20space.txt"},
		{"https://example.org/tab\t.txt", "https://example.org/tab%09.txt"},
		// Unreserved escapes decoded; reserved characters as written,
		// raw or escaped: "+" and "%2B" are different paths (RFC 3986, 6.2.2.2).
		{"https://example.org/%7Euser/%41%2d", "https://example.org/~user/A-"},
		{"https://example.org/a+b=c&d$e:f@g!'()*,;", "https://example.org/a+b=c&d$e:f@g!'()*,;"},
		{"https://example.org/a%2bb", "https://example.org/a%2Bb"},
		{"https://example.org/a%2Bb%3Dc%26d%24e%3Af%40g", "https://example.org/a%2Bb%3Dc%26d%24e%3Af%40g"},
		// A "%" that starts no escape is a percent sign.
		{"https://example.org/p%zz.txt", "https://example.org/p%25zz.txt"},
		{"https://example.org/100%", "https://example.org/100%25"},
		// "/" and "%2F" split segments differently.
		{"https://example.org/a%2fb", "https://example.org/a%2Fb"},
		// The query and fragment keep their delimiters.
		{"https://example.org/s?q=a+b&x=%7e%2f é", "https://example.org/s?q=a+b&x=~%2F%20%C3%A9"},
		{"https://example.org/a#Frag ment", "https://example.org/a#Frag%20ment"},
		{"https://example.org/a%3Fb%23c", "https://example.org/a%3Fb%23c"},
		// Relative references: the path alone.
		{"a b/c.xml", "a%20b/c.xml"},
		{"", ""},
	} {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEscapePath(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"a/b.txt", "a/b.txt"},
		{"a+b:c@d=e&f$g.txt", "a%2Bb%3Ac%40d%3De%26f%24g.txt"},
		{"what?/a#b.txt", "what%3F/a%23b.txt"},
		{"café é.txt", "caf%C3%A9%20%C3%A9.txt"},
		{"p%zz.txt", "p%25zz.txt"},
		{"~-._", "~-._"},
	} {
		if got := EscapePath(tt.in); got != tt.want {
			t.Errorf("EscapePath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestEscapedPathLen holds EscapedPathLen to what AppendEscapedPath
// writes, byte by byte.
func TestEscapedPathLen(t *testing.T) {
	t.Parallel()
	for c := range 256 {
		s := string([]byte{byte(c)})
		if got, want := EscapedPathLen(s), len(AppendEscapedPath(nil, s)); got != want {
			t.Errorf("byte %#x: EscapedPathLen %d, AppendEscapedPath wrote %d", c, got, want)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"https://example.org/caf%c3%a9?x#y", "HTTP://A:80", "a%zz b", "https://h/p%2f+%41", "x:y:z", "http://[::1]:80/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Normalize(s)
		if again := Normalize(n); again != n {
			t.Fatalf("Normalize(%q) = %q, but Normalize(%q) = %q", s, n, n, again)
		}
		// A path rsgen publishes is in normal form, and decodes back.
		rel := strings.ReplaceAll(s, "\x00", "")
		u := "https://example.org/" + EscapePath(rel)
		if !isNormal(u) || Normalize(u) != u {
			t.Fatalf("%q is not in normal form", u)
		}
		var segs []string
		for _, seg := range strings.Split(EscapePath(rel), "/") {
			d, ok := UnescapeSegment(seg)
			if !ok {
				t.Fatalf("segment %q of %q does not decode", seg, rel)
			}
			segs = append(segs, d)
		}
		if got := strings.Join(segs, "/"); got != rel {
			t.Fatalf("%q decodes to %q", rel, got)
		}
	})
}

func TestOrigin(t *testing.T) {
	t.Parallel()
	for u, want := range map[string]string{
		"https://example.org/a/b":  "https://example.org",
		"https://example.org?q=1":  "https://example.org",
		"https://example.org#frag": "https://example.org",
		"https://example.org":      "https://example.org",
		"http://h:8080/x":          "http://h:8080",
		"example.org/a":            "",
	} {
		if got := Origin(u); got != want {
			t.Errorf("Origin(%q) = %q, want %q", u, got, want)
		}
	}
}
