// Package uri holds the byte-level rules of RFC 3986 that rsgen applies in
// more than one place: which characters are unreserved, and the normal form
// of a percent-encoded octet (section 6.2.2.2). Its functions are pure and
// may be called from several goroutines.
package uri

// IsUnreserved reports whether c is an unreserved character of RFC 3986
// (A-Z a-z 0-9 - . _ ~), one that never needs percent-encoding.
func IsUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// IsHex reports whether c is a hexadecimal digit.
func IsHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// Unhex returns the value of the hexadecimal digit c.
func Unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// AppendNormal appends the octet of the escape "%" hi lo in its normal
// form: the character itself if it is unreserved, else the escape in upper
// case. hi and lo must be hexadecimal digits.
func AppendNormal(b []byte, hi, lo byte) []byte {
	const hex = "0123456789ABCDEF"
	d := Unhex(hi)<<4 | Unhex(lo)
	if IsUnreserved(d) {
		return append(b, d)
	}
	return append(b, '%', hex[d>>4], hex[d&15])
}
