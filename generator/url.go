package generator

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// MaxLocLength is the longest <loc> the Sitemap schema accepts.
const MaxLocLength = 2048

// ErrLocTooLong reports a file whose URL would pass MaxLocLength.
var ErrLocTooLong = errors.New("URL longer than the 2,048 characters a Sitemap <loc> may have")

// A BaseURL is where a directory is served: an absolute http or https URL
// whose path ends in a slash.
type BaseURL struct {
	s string
}

// ParseBaseURL checks that raw is an absolute http(s) URL with a host and
// without query, fragment or credentials, and returns it with a trailing
// slash added to its path.
func ParseBaseURL(raw string) (BaseURL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return BaseURL{}, fmt.Errorf("%q is not a URL: %w", raw, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return BaseURL{}, fmt.Errorf("%q is not an absolute http or https URL", raw)
	case u.Host == "":
		return BaseURL{}, fmt.Errorf("%q has no host", raw)
	case u.User != nil:
		return BaseURL{}, fmt.Errorf("%q has credentials, which would be published in every document", raw)
	case u.RawQuery != "" || u.ForceQuery:
		return BaseURL{}, fmt.Errorf("%q has a query; a base URL is a directory", raw)
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return BaseURL{}, fmt.Errorf("%q has a fragment; a base URL is a directory", raw)
	}
	p := u.EscapedPath()
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return BaseURL{s: strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + p}, nil
}

// String returns the URL, ending in a slash.
func (b BaseURL) String() string { return b.s }

// IsZero reports whether b is unset.
func (b BaseURL) IsZero() bool { return b.s == "" }

// HasPath reports whether the URL has a path other than "/": its
// /.well-known/ is then not at the root of the host.
func (b BaseURL) HasPath() bool {
	u, _ := url.Parse(b.s)
	return u.Path != "/"
}

// Resolve returns the URL of rel, a slash-separated path relative to the
// base, with each segment percent-encoded from its bytes.
func (b BaseURL) Resolve(rel string) (string, error) {
	var sb strings.Builder
	sb.Grow(len(b.s) + len(rel)*3/2)
	sb.WriteString(b.s)
	appendEscapedPath(&sb, rel)
	if sb.Len() > MaxLocLength {
		return "", ErrLocTooLong
	}
	return sb.String(), nil
}

// appendEscapedPath writes rel with every byte but the RFC 3986
// unreserved characters (A-Z a-z 0-9 - . _ ~) and the slashes between
// segments percent-encoded, in upper-case hex. Encoding the sub-delimiters
// too costs nothing and spares Destinations the servers that read "+" as a
// space or ";" as a parameter.
func appendEscapedPath(sb *strings.Builder, rel string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(rel); i++ {
		c := rel[i]
		if c == '/' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' {
			sb.WriteByte(c)
			continue
		}
		sb.WriteByte('%')
		sb.WriteByte(hex[c>>4])
		sb.WriteByte(hex[c&15])
	}
}

// RelPath returns the path of loc relative to the base, decoded, and
// whether loc is under the base at all. It undoes Resolve.
func (b BaseURL) RelPath(loc string) (string, bool) {
	if !strings.HasPrefix(loc, b.s) {
		return "", false
	}
	p, err := url.PathUnescape(loc[len(b.s):])
	if err != nil {
		return "", false
	}
	return p, true
}
