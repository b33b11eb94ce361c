// Package uri holds the byte-level rules of RFC 3986 that rsgen applies in
// more than one place: which characters are unreserved, the normal form
// of a percent-encoded octet (section 6.2.2.2), the URL path rsgen
// publishes for a file (EscapePath) under a Base, the directory URL a
// build publishes, and the normal form in which URLs are compared
// (Normalize). Its functions are pure and may be called from several
// goroutines.
package uri

import "strings"

// isUnreserved reports whether c is an unreserved character of RFC 3986
// (A-Z a-z 0-9 - . _ ~), one that never needs percent-encoding.
func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// IsHex reports whether c is a hexadecimal digit.
func IsHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

const upperHex = "0123456789ABCDEF"

// appendNormal appends the octet of the escape "%" hi lo in its normal
// form: the character itself if it is unreserved, else the escape in upper
// case. hi and lo must be hexadecimal digits.
func appendNormal(b []byte, hi, lo byte) []byte {
	d := unhex(hi)<<4 | unhex(lo)
	if isUnreserved(d) {
		return append(b, d)
	}
	return appendEscape(b, d)
}

func appendEscape(b []byte, c byte) []byte {
	return append(b, '%', upperHex[c>>4], upperHex[c&15])
}

// AppendEscapedPath appends rel, a slash-separated path relative to a
// base URL, as the URL path rsgen publishes for it: every byte but the
// unreserved characters and the slashes between segments percent-encoded,
// in upper-case hex. Encoding the sub-delimiters too ("+", "=", "&", "$",
// ":", "@"…) costs nothing and spares Destinations the servers that read
// "+" as a space or ";" as a parameter; a "?" or "#" of a name is then no
// query or fragment. This is the one mapping from file paths to URLs.
func AppendEscapedPath(b []byte, rel string) []byte {
	for i := 0; i < len(rel); i++ {
		if c := rel[i]; c == '/' || isUnreserved(c) {
			b = append(b, c)
		} else {
			b = appendEscape(b, c)
		}
	}
	return b
}

// EscapedPathLen returns the length of AppendEscapedPath's form of rel.
func EscapedPathLen(rel string) int {
	n := len(rel)
	for i := 0; i < len(rel); i++ {
		if c := rel[i]; c != '/' && !isUnreserved(c) {
			n += 2
		}
	}
	return n
}

// EscapePath returns AppendEscapedPath's form of rel.
func EscapePath(rel string) string {
	n := EscapedPathLen(rel)
	if n == len(rel) {
		return rel
	}
	return string(AppendEscapedPath(make([]byte, 0, n), rel))
}

// UnescapeSegment decodes the percent-escapes of one segment of a path in
// the form Normalize gives it. ok is false if the segment holds an escape
// that is not one, or decodes to a slash or a NUL byte: it then names no
// file.
func UnescapeSegment(seg string) (string, bool) {
	if strings.IndexByte(seg, '%') < 0 {
		return seg, true
	}
	b := make([]byte, 0, len(seg))
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if c == '%' {
			if i+2 >= len(seg) || !IsHex(seg[i+1]) || !IsHex(seg[i+2]) {
				return "", false
			}
			c = unhex(seg[i+1])<<4 | unhex(seg[i+2])
			if c == '/' || c == 0 {
				return "", false
			}
			i += 2
		}
		b = append(b, c)
	}
	return string(b), true
}

// CompareDecoded compares a and b as the bytes they stand for once their
// percent-escapes are decoded (an escape that is not one stands for
// itself), without allocating: the order of the paths a list of URLs was
// written in, where the order of the URLs themselves is not (an escaped
// byte sorts as "%", before the letters, whatever it is).
func CompareDecoded(a, b string) int {
	for a != "" && b != "" {
		ca, na := decodedByte(a)
		cb, nb := decodedByte(b)
		if ca != cb {
			if ca < cb {
				return -1
			}
			return 1
		}
		a, b = a[na:], b[nb:]
	}
	switch {
	case a == "" && b == "":
		return 0
	case a == "":
		return -1
	}
	return 1
}

// decodedByte returns the byte s starts with once decoded, and how many
// bytes of s stand for it.
func decodedByte(s string) (byte, int) {
	if s[0] == '%' && len(s) >= 3 && IsHex(s[1]) && IsHex(s[2]) {
		return unhex(s[1])<<4 | unhex(s[2]), 3
	}
	return s[0], 1
}
