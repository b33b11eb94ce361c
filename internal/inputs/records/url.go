package records

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rsgen/rsgen/internal/documents/uri"
)

// uriChars marks the bytes that may appear as they are in a URI after its
// scheme (RFC 3986: unreserved, gen-delims but [ ], sub-delims, and % for
// escapes, checked separately).
var uriChars = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range "-._~:/?#@!$&'()*+,;=%" {
		t[c] = true
	}
	return t
}()

// checkURL checks that s is an absolute http or https URL that can be
// published as it is: a host, no credentials, no fragment, and nothing
// that should have been percent-encoded. It returns s in the normal form
// of RFC 3986 (sections 6.2.2 and 6.2.3), so that two spellings of one
// URL are one: scheme and host in lower case, without the default port of
// the scheme, "/" for an empty path, percent escapes in upper case and
// unreserved characters unescaped.
func checkURL(s string) (string, error) {
	scheme := uri.Scheme(s)
	if scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("%q is a %s: URL; only http and https URLs are published", s, scheme)
	}
	rest := s[len(scheme)+1:]
	if !strings.HasPrefix(rest, "//") {
		return "", fmt.Errorf("%q has no host (expected %s://HOST/…)", s, scheme)
	}
	rest = rest[2:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	host := rest[:end]
	if err := checkHost(host); err != nil {
		return "", fmt.Errorf("%q: %w", s, err)
	}
	tail := rest[end:]
	if i := strings.IndexByte(tail, '#'); i >= 0 {
		return "", fmt.Errorf("%q has a fragment (#%s), which names part of a page, not a resource", s, tail[i+1:])
	}
	if err := checkURIChars(tail); err != nil {
		return "", fmt.Errorf("%q: %w", s, err)
	}
	if len(s) > uri.MaxLocLength {
		return "", fmt.Errorf("URL of %d characters: a Sitemap <loc> may have at most 2,048", len(s))
	}
	u := uri.Normalize(s) // checked above: nothing is escaped but what was
	pathStart := len(scheme) + 3 + strings.IndexByte(u[len(scheme)+3:], '/')
	if path, _, _ := strings.Cut(u[pathStart:], "?"); strings.Contains(path, "/.") { // maybe a dot segment
		u = u[:pathStart] + removeDotSegments(path) + u[pathStart+len(path):]
	}
	return u, nil
}

// removeDotSegments resolves the "." and ".." segments of the absolute
// path p as RFC 3986 section 5.2.4 says: "/a/./b" is "/a/b", "/a/b/../c"
// is "/a/c", and ".." above the root stays at the root ("/../z" is "/z").
// Escaped dots were decoded first (section 6.2.2.2: "." is unreserved), so
// that "/%2e%2e/z" is "/z" too.
func removeDotSegments(p string) string {
	segs := strings.Split(p[1:], "/")
	out := make([]string, 0, len(segs))
	for i, seg := range segs {
		last := i == len(segs)-1
		switch seg {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, seg)
		}
	}
	return "/" + strings.Join(out, "/")
}

// checkHost checks the authority of an http(s) URL: a host name or an IP
// literal in brackets, and an optional port.
func checkHost(a string) error {
	if a == "" {
		return errors.New("no host")
	}
	if strings.IndexByte(a, '@') >= 0 {
		return errors.New("has credentials (user@), which would be published in every document")
	}
	host, port := a, ""
	if a[0] == '[' {
		i := strings.IndexByte(a, ']')
		if i < 0 {
			return errors.New("unclosed [ in the host")
		}
		host, port = a[1:i], a[i+1:]
		if host == "" {
			return errors.New("empty IP literal")
		}
		if strings.Trim(host, "0123456789abcdefABCDEF:.") != "" {
			return fmt.Errorf("IP literal [%s] has a character other than hex digits, colons and dots", host)
		}
		if port != "" && port[0] != ':' {
			return errors.New("text after the ] of an IP literal")
		}
	} else if i := strings.IndexByte(a, ':'); i >= 0 {
		host, port = a[:i], a[i:]
	}
	if port != "" {
		p := port[1:]
		if n, ok := digits(p); !ok || p == "" || len(p) > 5 || n > 65535 {
			return fmt.Errorf("port %q is not a number from 0 to 65535", p)
		}
	}
	if host == "" {
		return errors.New("no host")
	}
	if a[0] == '[' {
		return nil
	}
	for j := 0; j < len(host); j++ {
		c := host[j]
		if !(c == '-' || c == '.' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return fmt.Errorf("host %q has a character other than letters, digits, - and . (write an internationalised name in its xn-- form)", host)
		}
	}
	return nil
}

// checkURIChars checks that s has only characters a URI may carry as they
// are, and well-formed percent escapes.
func checkURIChars(s string) error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !uriChars[c] {
			if c >= 0x80 {
				return fmt.Errorf("non-ASCII character at byte %d: percent-encode its UTF-8 bytes", i)
			}
			return fmt.Errorf("character %q at byte %d must be percent-encoded", c, i)
		}
		if c == '%' {
			if i+2 >= len(s) || !uri.IsHex(s[i+1]) || !uri.IsHex(s[i+2]) {
				return fmt.Errorf("%% at byte %d does not start an escape such as %%20", i)
			}
			i += 2
		}
	}
	return nil
}

// linkSchemes are the schemes a link's href or profile may have besides
// http and https: identifiers of the things a link points to (a DOI, a
// handle, an ARK, a URN, an info: or tag: URI), a mail address, and ftp,
// which mirrors still serve. Others are refused: javascript: and vbscript:
// run code where a client renders the href, file: names a file on the
// reader's own machine, data: carries content instead of naming it.
var linkSchemes = map[string]bool{
	"urn": true, "info": true, "doi": true, "hdl": true, "ark": true, "tag": true, "mailto": true, "ftp": true,
}

// checkURI checks that s is an absolute URI that a link may point to: an
// http or https URL, returned as checkURL returns it, or a URI of a scheme
// that identifies a resource (linkSchemes), with nothing that should have
// been percent-encoded.
func checkURI(s string) (string, error) {
	switch scheme := uri.Scheme(s); {
	case scheme == "":
		return s, fmt.Errorf("%q is not an absolute URI", s)
	case scheme == "http" || scheme == "https":
		return checkURL(s)
	case !linkSchemes[scheme]:
		return s, fmt.Errorf("%q is a %s: URI; a link points to an http or https URL, a path, or an identifier (urn:, info:, doi:, hdl:, ark:, tag:, mailto:, ftp:)", s, scheme)
	default:
		if err := checkURIChars(s[len(scheme)+1:]); err != nil {
			return s, fmt.Errorf("%q: %w", s, err)
		}
	}
	return s, nil
}

// checkPath checks a location given as a path, relative to the base URL.
// A path is raw text, not percent-encoded: the generator encodes it the
// way it encodes file names. It must not start with a slash and must have
// no empty, "." or ".." segment (a trailing slash is kept: a page such as
// "collections/maps/" is a resource). A leading "./" is dropped, so that a
// path whose first segment holds a colon can be told from a URL.
func checkPath(s string) (string, error) {
	if scheme := uri.Scheme(s); scheme != "" {
		return "", fmt.Errorf("%q is a %s: URL; only http and https URLs are published (write a path whose first segment has a colon as ./%s)", s, scheme, s)
	}
	p := strings.TrimPrefix(s, "./")
	switch {
	case p == "":
		return "", errors.New("empty path")
	case strings.HasPrefix(p, "//"):
		return "", fmt.Errorf("%q is a network-path reference: give an absolute URL", s)
	case p[0] == '/':
		return "", fmt.Errorf("%q starts with /: give a path relative to the base URL, or an absolute URL", s)
	}
	body := strings.TrimSuffix(p, "/")
	for seg := range strings.SplitSeq(body, "/") {
		switch seg {
		case "":
			return "", fmt.Errorf("%q has an empty segment (//)", s)
		case ".", "..":
			return "", fmt.Errorf("%q has a %q segment; give the path it stands for", s, seg)
		}
	}
	return p, nil
}

// checkLocalPath checks the path of a local file, relative to the
// directory of the export, slash-separated.
func checkLocalPath(s string) error {
	switch {
	case s == "":
		return errors.New("empty path")
	case s[0] == '/' || s[0] == '\\' || isDrive(s):
		return fmt.Errorf("%q is absolute: give a path relative to the directory of the export", s)
	case strings.HasSuffix(s, "/"):
		return fmt.Errorf("%q ends in a slash: a path names a file", s)
	}
	for seg := range strings.SplitSeq(strings.TrimPrefix(s, "./"), "/") {
		switch seg {
		case "":
			return fmt.Errorf("%q has an empty segment (//)", s)
		case ".":
			return fmt.Errorf("%q has a . segment", s)
		case "..":
			return fmt.Errorf("%q leaves the directory of the export (..); files outside it are never read", s)
		}
	}
	return nil
}

// isDrive reports whether s starts with a Windows drive ("C:", "C:/…").
func isDrive(s string) bool {
	return len(s) >= 2 && s[1] == ':' && ('a' <= s[0]|0x20 && s[0]|0x20 <= 'z') &&
		(len(s) == 2 || s[2] == '/' || s[2] == '\\')
}
