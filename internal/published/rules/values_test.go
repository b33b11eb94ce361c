package rules

import (
	"strconv"
	"testing"
	"time"

	"github.com/rsgen/rsgen/hashing"
)

func TestCheckDatetime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string // RFC 3339 in UTC; "" when invalid
	}{
		{"2013-01-03T09:00:00Z", "2013-01-03T09:00:00Z"},
		{" 2013-01-03T09:00:00Z ", "2013-01-03T09:00:00Z"},
		{"2013-01-03T09:00:00.5Z", "2013-01-03T09:00:00.5Z"},
		{"2013-01-03T09:00:00.123456789012Z", "2013-01-03T09:00:00.123456789Z"},
		{"2013-01-03T10:00:00+01:00", "2013-01-03T09:00:00Z"},
		{"2013-01-03T08:30:00-00:30", "2013-01-03T09:00:00Z"},
		{"2013-01-03T09:00Z", ""},    // W3C allows, xsd:dateTime does not
		{"2013-01-03T09:00:00", ""},  // xsd:dateTime allows, W3C does not
		{"2013-01-03", ""},           // a date is not a dateTime
		{"2013-02-29T00:00:00Z", ""}, // not a leap year
		{"2013-01-03T24:00:00Z", ""}, // xsd allows 24:00:00, W3C does not
		{"2013-01-03T09:00:00+24:00", ""},
		{"2013-01-03T09:00:00.Z", ""},
		{"12013-01-03T09:00:00Z", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, msg := Datetime(tt.in)
			if tt.want == "" {
				if msg == "" {
					t.Errorf("accepted, as %s", got)
				}
				return
			}
			if msg != "" || got.Format(time.RFC3339Nano) != tt.want {
				t.Errorf("got %s %q, want %s", got.Format(time.RFC3339Nano), msg, tt.want)
			}
		})
	}
}

func TestValueChecks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		got  func() bool // true when the value is accepted
		want bool
	}{
		{"type text/html", func() bool { b, p := Type("text/html"); return b == "" && p == "" }, true},
		{"type image/svg+xml matches the pattern", func() bool { b, p := Type("image/svg+xml"); return b == "" && p == "" }, true},
		{"type with a dot is a pattern warning", func() bool { b, p := Type("application/vnd.ms-excel"); return b == "" && p != "" }, true},
		{"type with parameters", func() bool { b, _ := Type("text/html; charset=utf-8"); return b == "" }, false},
		{"type without subtype", func() bool { b, _ := Type("text"); return b == "" }, false},
		{"hash md5", func() bool { return hashValid("md5:1584abdf8ebdc9802ac0c6a7402c03b6") }, true},
		{"hash upper-case algorithm and hex", func() bool { return hashValid("MD5:1584ABDF8EBDC9802AC0C6A7402C03B6") }, true},
		{"hash unknown algorithm", func() bool { return hashValid("sha3-256:00") }, true},
		{"hash empty digest", func() bool { return hashValid("md5:") }, false},
		{"hash short sha-1", func() bool { return hashValid("sha-1:00") }, false},
		{"length 0", func() bool { return lengthOK("0") }, true},
		{"length with sign", func() bool { return lengthOK("+5") }, true},
		{"length decimal", func() bool { return lengthOK("5.0") }, false},
		{"pri 999999", func() bool { return Pri("999999") == "" }, true},
		{"pri 1000000", func() bool { return Pri("1000000") == "" }, false},
		{"path /a", func() bool { return Path("/a") == "" }, true},
		{"path /", func() bool { return Path("/") == "" }, false},
		{"loc http", func() bool { b, e := Loc("http://example.com/a"); return b == "" && e == "" }, true},
		{"loc urn", func() bool { b, _ := Loc("urn:isbn:0451450523"); return b == "" }, true},
		{"loc with two fragments", func() bool { b, _ := Loc("http://example.com/#a#b"); return b == "" }, false},
		{"rel up", func() bool { b, o := Rel("up"); return b == "" && o == "" }, true},
		{"rel URI", func() bool { b, o := Rel("http://www.openarchives.org/rs/terms/patch"); return b == "" && o == "" }, true},
		{"rel bad escape", func() bool { b, _ := Rel("a b%"); return b == "" }, false},
		{"priority 1.00", func() bool { return validPriority("1.00") }, true},
		{"priority .5", func() bool { return validPriority(".5") }, true},
		{"priority 1.01", func() bool { return validPriority("1.01") }, false},
		{"priority -0.1", func() bool { return validPriority("-0.1") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.got(); got != tt.want {
				t.Errorf("accepted %v, want %v", got, tt.want)
			}
		})
	}
}

// FuzzPlainURL checks the fast path of Loc: what isPlainURL accepts,
// the full check accepts without a finding.
func FuzzPlainURL(f *testing.F) {
	for _, s := range []string{"https://example.org/a%20b/c?d=e&f", "http://a:/", "HTTP://EXAMPLE.ORG", "https://h:8080/~x/(y)*,;=@:!$'",
		"https://example.org/a%2", "https://[::1]/", "https://ex ample.org/", "mailto:a@example.org", "h://./", "https://example.org#x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !isPlainURL(s) || len(s) < 12 || len(s) > 2048 {
			return
		}
		if bad, esc := locFully(s); bad != "" || esc != "" {
			t.Errorf("%q: isPlainURL accepts it, locFully says %q %q", s, bad, esc)
		}
	})
}

func TestPlainURL(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"https://example.org/collection/000/item-00001.html": true,
		"https://example.org/a%20b?x=1&y=%C3%A9":             true,
		"https://example.org:8443":                           true,
		"https://example.org/a b":                            false, // to escape: the full check warns
		"https://example.org/a%2x":                           false, // a bad escape: the full check decides
		"https://example.org/#top":                           false,
		"https://user@example.org/":                          false,
		"https://[2001:db8::1]/":                             false,
		"urn:isbn:0451450523":                                false,
		"//example.org/a":                                    false,
	} {
		if got := isPlainURL(s); got != want {
			t.Errorf("isPlainURL(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzParseInteger checks the fast path of ParseInteger against
// strconv.ParseInt, which the slow path uses.
func FuzzParseInteger(f *testing.F) {
	for _, s := range []string{"0", "123", "000000000000000042", "999999999999999999", "9223372036854775807", " 5", "+5", "-0", "1e3", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseInteger(s)
		if !allDigits(s) || s == "" {
			return
		}
		want, err := strconv.ParseInt(s, 10, 64)
		if ok != (err == nil) || ok && got != want {
			t.Errorf("ParseInteger(%q) = %d, %v; strconv says %d, %v", s, got, ok, want, err)
		}
	})
}

func hashValid(v string) bool {
	_, err := hashing.ParseAttr(v)
	return err == nil
}

func lengthOK(v string) bool { _, msg := Length(v); return msg == "" }
