package uri

import (
	"bytes"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseBase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw  string
		want string // "" for an error
		err  string // what the error says
	}{
		{raw: "https://example.org/", want: "https://example.org/"},
		{raw: "https://example.org", want: "https://example.org/"},
		{raw: "http://example.org/site", want: "http://example.org/site/"},
		{raw: "HTTPS://Example.ORG/Site/", want: "https://example.org/Site/"},
		{raw: "https://example.org:8443/a/b/", want: "https://example.org:8443/a/b/"},
		{raw: "http://127.0.0.1:8080/", want: "http://127.0.0.1:8080/"},
		{raw: "http://[::1]:8080/x", want: "http://[::1]:8080/x/"},
		{raw: "https://example.org/my site/", want: "https://example.org/my%20site/"},
		{raw: "https://example.org/caf%C3%A9/", want: "https://example.org/caf%C3%A9/"},
		{raw: "https://example.org/café/", want: "https://example.org/caf%C3%A9/"},
		{raw: "https://example.org/a[b]/", want: "https://example.org/a%5Bb%5D/"},
		{raw: "https://example.org/~user/!$&'()*+,;=:@/", want: "https://example.org/~user/!$&'()*+,;=:@/"},
		{raw: "https://example.org:443/", want: "https://example.org/"},
		{raw: "http://Example.org:80/x", want: "http://example.org/x/"},
		{raw: "http://[::1]:80/", want: "http://[::1]/"},
		{raw: "http://example.org:443/", want: "http://example.org:443/"},
		{raw: "https://example.org:/x", want: "https://example.org/x/"}, // an empty port is the default one
		{raw: "https://example.org/caf%c3%a9/%7euser/%2f/", want: "https://example.org/caf%C3%A9/~user/%2F/"},
		{raw: "https://example.org:99999/", err: "has a port that is not a number from 1 to 65535"},
		{raw: "http://example.org:0/", err: "has a port that is not a number from 1 to 65535"},
		{raw: "https://example.org:65535/", want: "https://example.org:65535/"},
		{raw: "example.org", err: "not an absolute http or https URL"},
		{raw: "/site/", err: "not an absolute http or https URL"},
		{raw: "ftp://example.org/", err: "not an absolute http or https URL"},
		{raw: "file:///srv/www", err: "not an absolute http or https URL"},
		{raw: "https:example.org", err: "no host"},
		{raw: "https:///path", err: "no host"},
		{raw: "https://example.org/?q=1", err: "query"},
		{raw: "https://example.org/?", err: "query"},
		{raw: "https://example.org/#top", err: "fragment"},
		{raw: "https://example.org/#", err: "fragment"},
		{raw: "https://user:pass@example.org/", err: "credentials"},
		{raw: "https://user@example.org/", err: "credentials"},
		{raw: "https://exa mple.org/", err: "not a URL"},
		{raw: "https://example.org/%zz/", err: "not a URL"},
		{raw: "https://bücher.example/", err: "ASCII"},
		{raw: "http://[fe80::1%25eth0]/", err: "zone"},
		{raw: `http://"/`, err: "host"},
		{raw: "http://a<b/", err: "host"},
		{raw: "http://:8080/", err: "no host"},
		{raw: "", err: "not an absolute http or https URL"},
	} {
		t.Run(tc.raw, func(t *testing.T) {
			b, err := ParseBase(tc.raw)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("ParseBase(%q) = %s, want an error", tc.raw, b)
				}
				if !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %q does not say %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseBase(%q): %v", tc.raw, err)
			}
			if b.String() != tc.want {
				t.Errorf("ParseBase(%q) = %s, want %s", tc.raw, b, tc.want)
			}
			checkURI(t, b.String())
			if want := mustParse(t, tc.want).Path != "/"; b.HasPath() != want {
				t.Errorf("ParseBase(%q).HasPath() = %v, want %v", tc.raw, !want, want)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	base := mustBase(t, "https://example.org/site/")
	for _, tc := range []struct{ rel, want string }{
		{"index.html", "https://example.org/site/index.html"},
		{"a/b/c.txt", "https://example.org/site/a/b/c.txt"},
		{"with space.txt", "https://example.org/site/with%20space.txt"},
		{"#?%&+;=.txt", "https://example.org/site/%23%3F%25%26%2B%3B%3D.txt"},
		{"%41", "https://example.org/site/%2541"},
		{"\u00e9", "https://example.org/site/%C3%A9"},
		{"e\u0301", "https://example.org/site/e%CC%81"},
		{"\x01\x7f\xff", "https://example.org/site/%01%7F%FF"},
		{"-._~", "https://example.org/site/-._~"},
		{"...", "https://example.org/site/..."},
	} {
		got, err := base.Resolve(tc.rel)
		if err != nil || got != tc.want {
			t.Errorf("Resolve(%q) = %s, %v; want %s", tc.rel, got, err, tc.want)
		}
		if rel, ok := base.RelPath(got); !ok || rel != tc.rel {
			t.Errorf("RelPath(%s) = %q, %v; want %q", got, rel, ok, tc.rel)
		}
	}
	long := strings.Repeat("x", MaxLocLength-len(base.String()))
	if _, err := base.Resolve(long); err != nil {
		t.Errorf("a URL of exactly %d characters: %v", MaxLocLength, err)
	}
	if _, err := base.Resolve(long + "x"); !errors.Is(err, ErrLocTooLong) {
		t.Errorf("a URL of %d characters: %v, want ErrLocTooLong", MaxLocLength+1, err)
	}
}

// TestRelPath: only URLs that Resolve could have made map back to a path;
// a URL that leaves the base, or names a path no file can have, does not.
func TestRelPath(t *testing.T) {
	t.Parallel()
	base := mustBase(t, "https://example.org/site/")
	for _, tc := range []struct {
		loc  string
		want string
		ok   bool
	}{
		{"https://example.org/site/a/b.txt", "a/b.txt", true},
		{"https://example.org/site/caf%C3%A9", "café", true},
		{"https://example.org/other/a", "", false},
		{"https://example.org/site", "", false},
		{"https://example.org/site/", "", false},
		{"https://example.org/site/%2E%2E/secret", "", false},
		{"https://example.org/site/../secret", "", false},
		{"https://example.org/site/a/./b", "", false},
		{"https://example.org/site/a//b", "", false},
		{"https://example.org/site/a/", "", false},
		{"https://example.org/site/a%00b", "", false},
		{"https://example.org/site/a?b", "", false},
		{"https://example.org/site/a#b", "", false},
		{"https://example.org/site/a%zz", "", false},
		// A file's name holds no slash: an encoded one is no file's, and
		// would otherwise stand for the file a/b too.
		{"https://example.org/site/a%2Fb", "", false},
		{"https://example.org/site/a%2fb", "", false},
	} {
		rel, ok := base.RelPath(tc.loc)
		if rel != tc.want || ok != tc.ok {
			t.Errorf("RelPath(%s) = %q, %v; want %q, %v", tc.loc, rel, ok, tc.want, tc.ok)
		}
	}
}

// checkURI fails unless s is an absolute URI made only of the characters
// RFC 3986 allows, with every % starting an escape, and no query or
// fragment.
func checkURI(t *testing.T, s string) {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatalf("%q does not parse: %v", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		t.Fatalf("%q: scheme %q, host %q, query %q, fragment %q", s, u.Scheme, u.Host, u.RawQuery, u.Fragment)
	}
	afterHost := s[len(u.Scheme)+3+strings.IndexByte(s[len(u.Scheme)+3:], '/'):]
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				t.Fatalf("%q: %% at %d does not start an escape", s, i)
			}
		case c <= ' ' || c >= 0x7f || strings.IndexByte(`"<>\^{|}`+"`", c) >= 0:
			t.Fatalf("%q: byte %#x at %d is not allowed in a URI", s, c, i)
		}
	}
	if strings.ContainsAny(afterHost, "?#[]") {
		t.Fatalf("%q: the path holds a character that ends or breaks it", s)
	}
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// walkerPath reports whether rel is a path the walker can produce: non-empty
// segments that are not . or .., without NUL.
func walkerPath(rel string) bool {
	if rel == "" || strings.IndexByte(rel, 0) >= 0 {
		return false
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// FuzzURLMapping: for any base URL ParseBase accepts and any path the
// walker can produce, Resolve gives a valid URI under the base, at most
// 2,048 characters (or ErrLocTooLong), and RelPath gives the path back.
func FuzzURLMapping(f *testing.F) {
	f.Add("https://example.org/", "café & crème.html")
	f.Fuzz(func(t *testing.T, raw, rel string) {
		base, err := ParseBase(raw)
		if err != nil {
			return
		}
		bs := base.String()
		if !strings.HasSuffix(bs, "/") {
			t.Fatalf("base %q does not end in a slash", bs)
		}
		checkURI(t, bs)
		if again, err := ParseBase(bs); err != nil || again != base {
			t.Fatalf("ParseBase(%q) = %q, %v: not a fixed point", bs, again, err)
		}
		if !walkerPath(rel) {
			return
		}
		loc, err := base.Resolve(rel)
		if want := len(bs) + encodedLen(rel); (want > MaxLocLength) != errors.Is(err, ErrLocTooLong) {
			t.Fatalf("Resolve(%q) under %q: the URL has %d characters, error %v", rel, bs, want, err)
		}
		if errors.Is(err, ErrLocTooLong) {
			return
		}
		if err != nil {
			t.Fatalf("Resolve(%q): %v", rel, err)
		}
		if len(loc) > MaxLocLength || !strings.HasPrefix(loc, bs) {
			t.Fatalf("Resolve(%q) = %q: longer than %d or not under %q", rel, loc, MaxLocLength, bs)
		}
		checkURI(t, loc)
		u, _ := url.Parse(loc)
		if got := strings.TrimPrefix(u.Path, mustParse(t, bs).Path); got != rel {
			t.Fatalf("%q decodes to the path %q under the base, want %q", loc, got, rel)
		}
		back, ok := base.RelPath(loc)
		if !ok || back != rel {
			t.Fatalf("RelPath(Resolve(%q)) = %q, %v", rel, back, ok)
		}
	})
}

// encodedLen is the length of rel percent-encoded as RFC 3986 requires of a
// path made of segments: unreserved characters and slashes stay, every
// other byte takes three.
func encodedLen(rel string) int {
	n := 0
	for i := 0; i < len(rel); i++ {
		if c := rel[i]; c == '/' || c < 0x80 && strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~", c) >= 0 {
			n++
		} else {
			n += 3
		}
	}
	return n
}

func mustParse(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestFuzzURLMappingCorpus fails if the seed corpus of FuzzURLMapping is
// missing: the fuzz target would then run on one seed, silently.
func TestFuzzURLMappingCorpus(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzURLMapping", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("testdata/fuzz/FuzzURLMapping holds %d seeds, want the awkward bases and names kept there", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte("go test fuzz v1\nstring(")) {
			t.Errorf("%s is not a (string, string) seed in the Go fuzz corpus format", f)
		}
	}
}

// mustBase parses raw, a base URL the test knows valid.
func mustBase(t testing.TB, raw string) Base {
	t.Helper()
	b, err := ParseBase(raw)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// reservedBasePaths are base paths with every reserved character a path
// may hold (the gen-delims ":" and "@", every sub-delim), escapes and a
// name given raw, each with the form the base URL publishes: the path as
// written, but for what RFC 3986 normalizes (escapes in upper case, those
// of unreserved characters decoded) and what a URI may not hold raw.
var reservedBasePaths = [][2]string{
	{"a+b", "a+b"}, {"(x)", "(x)"}, {"@team", "@team"}, {"c++", "c++"},
	{"!", "!"}, {"$", "$"}, {"&", "&"}, {"'", "'"}, {"*", "*"}, {",", ","}, {";", ";"}, {"=", "="}, {":", ":"},
	{"x!$&'()*+,;=:@y", "x!$&'()*+,;=:@y"},
	{"a%2Bb", "a%2Bb"}, {"a%2bb", "a%2Bb"}, {"caf%C3%A9", "caf%C3%A9"}, {"caf%c3%a9", "caf%C3%A9"}, {"café", "caf%C3%A9"},
	{"%7Euser", "~user"}, {"a b", "a%20b"},
}

// Every URL Resolve gives under a base of reserved characters is in
// normal form (the form a previous build's URLs are read in) and RelPath
// maps it back to its path: the base is kept as written, not re-escaped.
func TestBaseRoundTrip(t *testing.T) {
	t.Parallel()
	for _, p := range reservedBasePaths {
		t.Run(p[0], func(t *testing.T) {
			b, err := ParseBase("https://example.org/" + p[0] + "/")
			if err != nil {
				t.Fatal(err)
			}
			if want := "https://example.org/" + p[1] + "/"; b.String() != want {
				t.Fatalf("ParseBase = %s, want %s", b, want)
			}
			for _, rel := range []string{"f.txt", "a+b/c d.txt", "x%2By(1).txt", "é/@:;=.txt"} {
				u, err := b.Resolve(rel)
				if err != nil {
					t.Fatal(err)
				}
				if n := Normalize(u); n != u {
					t.Errorf("Resolve(%q) = %s, normalized to %s", rel, u, n)
				}
				if got, ok := b.RelPath(Normalize(u)); !ok || got != rel {
					t.Errorf("RelPath(%s) = %q, %v; want %q", u, got, ok, rel)
				}
			}
		})
	}
}
