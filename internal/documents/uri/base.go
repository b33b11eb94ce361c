package uri

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxLocLength is the longest <loc> the Sitemap schema accepts.
const MaxLocLength = 2048

// ErrLocTooLong reports a file whose URL would pass MaxLocLength.
var ErrLocTooLong = errors.New("URL longer than the 2,048 characters a Sitemap <loc> may have")

// A Base is where a directory is served: an absolute http or https URL
// whose path ends in a slash.
type Base struct {
	s string
}

// ParseBase checks that raw is an absolute http(s) URL with an ASCII
// host and without query, fragment or credentials, and returns it in the
// normal form of Normalize with a trailing slash added to its path.
func ParseBase(raw string) (Base, error) {
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error // all url.Parse returns; it repeats the URL, which the message quotes
		errors.As(err, &ue)
		return Base{}, fmt.Errorf("%q is not a URL: %w", raw, ue.Err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return Base{}, fmt.Errorf("%q is not an absolute http or https URL", raw)
	case u.Hostname() == "":
		return Base{}, fmt.Errorf("%q has no host", raw)
	case u.User != nil:
		return Base{}, fmt.Errorf("%q has credentials, which would be published in every document", raw)
	case u.RawQuery != "" || u.ForceQuery:
		return Base{}, fmt.Errorf("%q has a query; a base URL is a directory", raw)
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return Base{}, fmt.Errorf("%q has a fragment; a base URL is a directory", raw)
	case strings.Contains(u.Host, "%"):
		return Base{}, fmt.Errorf("%q has an IPv6 zone or an escaped host, which no Destination elsewhere can reach", raw)
	case strings.ContainsFunc(u.Host, func(r rune) bool { return r >= utf8.RuneSelf }):
		return Base{}, fmt.Errorf("%q has a host that is not ASCII; give its ASCII (punycode, xn--…) form", raw)
	case !validHost(u):
		return Base{}, fmt.Errorf("%q has a host with characters a host name cannot have", raw)
	case !validPort(u.Port()):
		return Base{}, fmt.Errorf("%q has a port that is not a number from 1 to 65535", raw)
	}
	// As Normalize writes a path, "a+b" stays "a+b".
	n := Normalize(u.Scheme + "://" + u.Host + u.EscapedPath())
	if !strings.HasSuffix(n, "/") {
		n += "/"
	}
	return Base{s: n}, nil
}

// validHost reports whether the host of u is an IP literal or a host name
// made of the characters RFC 3986 allows in one (url.Parse lets others,
// such as '"', through).
func validHost(u *url.URL) bool {
	h := u.Hostname()
	if strings.HasPrefix(u.Host, "[") {
		return net.ParseIP(h) != nil
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !isUnreserved(c) && strings.IndexByte("!$&'()*+,;=", c) < 0 { // sub-delims
			return false
		}
	}
	return true
}

// String returns the URL, ending in a slash.
func (b Base) String() string { return b.s }

// IsZero reports whether b is unset.
func (b Base) IsZero() bool { return b.s == "" }

// HasPath reports whether the URL has a path other than "/": its
// /.well-known/ is then not at the root of the host.
func (b Base) HasPath() bool { return strings.Count(b.s, "/") > 3 } // scheme://host/

// Resolve returns the URL of rel, a slash-separated path relative to the
// base, with each segment percent-encoded from its bytes
// (AppendEscapedPath, the one mapping from paths to URLs).
func (b Base) Resolve(rel string) (string, error) {
	u := AppendEscapedPath(append(make([]byte, 0, len(b.s)+len(rel)*3/2), b.s...), rel)
	if len(u) > MaxLocLength {
		return "", ErrLocTooLong
	}
	return string(u), nil
}

// RelPath returns the path of loc relative to the base, decoded, and
// whether loc is the URL of a file under the base at all: it undoes
// Resolve. A URL with a query or fragment, or whose path has an empty, "."
// or ".." segment, an encoded slash or a NUL byte once decoded, names no
// file under the base: Resolve never makes one, and each would otherwise
// stand for a path that another URL names too.
func (b Base) RelPath(loc string) (string, bool) {
	raw, ok := strings.CutPrefix(loc, b.s)
	if !ok || raw == "" || strings.ContainsAny(raw, "?#") || strings.Contains(raw, "%2F") || strings.Contains(raw, "%2f") {
		return "", false
	}
	p, err := url.PathUnescape(raw)
	if err != nil || strings.IndexByte(p, 0) >= 0 {
		return "", false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", false
		}
	}
	return p, true
}

// validPort reports whether port, of a URL's host, is none or one a
// Destination can connect to (url.Parse takes any digits).
func validPort(port string) bool {
	n, err := strconv.Atoi(port)
	return port == "" || err == nil && n >= 1 && n <= 65535
}
