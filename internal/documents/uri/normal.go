package uri

import "strings"

// Normalize returns the form in which rsgen compares two URLs (or IRIs,
// RFC 3987 section 3.1): the scheme and host in lower case, without the
// scheme's default port, an empty path as "/", and the path in the normal
// form of RFC 3986 (section 6.2.2): escapes in upper case, escapes of
// unreserved characters decoded, and every octet a path may not hold raw
// (pchar and "/") percent-encoded, as are the UTF-8 bytes of an IRI and a
// "%" that starts no escape ("%25"). The reserved characters a path may
// hold ("!$&'()*+,;=:@") are kept as they are written, raw or escaped:
// "+" and "%2B" are different paths (section 6.2.2.2), and a base URL's
// "a+b/" is the one its user gave (ParseBase puts its path in this form
// too). The files rsgen publishes have every reserved character escaped
// (AppendEscapedPath), which is this form already. The query and fragment
// are normalized the same way, with "/" and "?" kept too. Dot segments are
// left as they are. raw is returned as it is if it is in normal form
// already.
func Normalize(raw string) string {
	if isNormal(raw) {
		return raw
	}
	rest, frag, hasFrag := strings.Cut(raw, "#")
	rest, query, hasQuery := strings.Cut(rest, "?")
	b := make([]byte, 0, len(raw)+16)
	if i := schemeEnd(rest); i > 0 {
		b = appendLower(b, rest[:i+1])
		scheme := strings.ToLower(rest[:i])
		rest = rest[i+1:]
		if auth, ok := strings.CutPrefix(rest, "//"); ok {
			end := strings.IndexByte(auth, '/')
			if end < 0 {
				end = len(auth)
			}
			b = append(b, "//"...)
			b = appendAuthority(b, auth[:end], scheme)
			rest = auth[end:]
			if rest == "" {
				rest = "/"
			}
		}
	}
	b = appendNormalized(b, rest, pathKeep)
	if hasQuery {
		b = appendNormalized(append(b, '?'), query, queryKeep)
	}
	if hasFrag {
		b = appendNormalized(append(b, '#'), frag, queryKeep)
	}
	return string(b)
}

// pathKeep and queryKeep mark the octets a path and a query or fragment
// in normal form hold as they are: those RFC 3986 allows there raw.
var pathKeep, queryKeep = func() (p, q [256]bool) {
	for c := range 256 {
		p[c] = isUnreserved(byte(c)) || strings.IndexByte("!$&'()*+,;=:@/", byte(c)) >= 0
		q[c] = p[c] || c == '?'
	}
	return p, q
}()

// appendNormalized appends s with the octets keep does not mark
// percent-encoded and its escapes in normal form.
func appendNormalized(b []byte, s string, keep [256]bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && IsHex(s[i+1]) && IsHex(s[i+2]):
			b = appendNormal(b, s[i+1], s[i+2])
			i += 2
		case keep[c]:
			b = append(b, c)
		default:
			b = appendEscape(b, c)
		}
	}
	return b
}

// appendAuthority appends the authority of a URL of scheme with its host
// in lower case and without the scheme's default port.
func appendAuthority(b []byte, auth, scheme string) []byte {
	host := auth
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		b = append(b, auth[:at+1]...)
		host = auth[at+1:]
	}
	for {
		i := strings.LastIndexByte(host, ':')
		if i < 0 || strings.Contains(host[i:], "]") {
			break
		}
		if port := host[i+1:]; port != "" && port != defaultPort(scheme) {
			break
		}
		host = host[:i]
	}
	return appendLower(b, host)
}

func defaultPort(scheme string) string {
	switch scheme {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

// Scheme returns the scheme of s, lower-cased, if s starts with one
// ("https:", "urn:"), and "" if s is a relative reference.
func Scheme(s string) string {
	if i := schemeEnd(s); i > 0 {
		return strings.ToLower(s[:i])
	}
	return ""
}

// schemeEnd returns the index of the colon that ends the scheme of s
// (ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"), or -1.
func schemeEnd(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return i
		default:
			return -1
		}
	}
	return -1
}

func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// isNormal recognizes, without allocating, the URLs rsgen writes: http or
// https, a lower-case host without port (or with one that is not the
// default) and a path in normal form, without query or fragment.
func isNormal(s string) bool {
	var rest string
	switch {
	case strings.HasPrefix(s, "https://"):
		rest = s[len("https://"):]
	case strings.HasPrefix(s, "http://"):
		rest = s[len("http://"):]
	default:
		return false
	}
	slash := strings.IndexByte(rest, '/')
	if slash <= 0 {
		return false
	}
	for i := 0; i < slash; i++ {
		if c := rest[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return false // a port, an upper-case letter, an IP literal: the slow way
		}
	}
	p := rest[slash:]
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case pathKeep[c]:
		case c == '%' && i+2 < len(p) && isUpperHex(p[i+1]) && isUpperHex(p[i+2]) && !isUnreserved(unhex(p[i+1])<<4|unhex(p[i+2])):
			i += 2
		default:
			return false
		}
	}
	return true
}

func isUpperHex(c byte) bool { return '0' <= c && c <= '9' || 'A' <= c && c <= 'F' }

// Origin returns the scheme and authority of an absolute URL
// ("https://example.org"), as written, or "" if u has none. It allocates
// nothing: it runs once per record of an export.
func Origin(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	if j := strings.IndexAny(u[i+3:], "/?#"); j >= 0 {
		return u[:i+3+j]
	}
	return u
}
