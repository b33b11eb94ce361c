package hosting

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// How the hosts match the paths rsgen embeds in their configuration.
// nginx and Apache match the path of a request decoded (every %XX), with
// its "." and ".." segments resolved and its slashes merged: a rule must
// hold the path that way, never as the URL has it (/caf%C3%A9/ would
// never match). The _headers of Netlify and Cloudflare
// Pages match the path as the URL has it, percent-encoded, against a
// pattern in which "*" is a wildcard and ":name" a placeholder, with no
// escape for either.

// HostError is why the configuration of a host cannot serve the
// documents at a URL.
type HostError struct {
	Host string // the host, or the hosts of one file ("netlify, cloudflare")
	msg  string
}

func (e *HostError) Error() string { return e.msg }

// Check reports, for each of hosts that cannot serve the documents at
// docsURL and the resources at baseURLs (those of the same host), why not,
// in words for the person who chose the URL.
func Check(hosts []string, docsURL string, baseURLs ...string) []*HostError {
	du, err := url.Parse(docsURL)
	if err != nil {
		return []*HostError{{strings.Join(hosts, ", "), err.Error()}}
	}
	var errs []*HostError
	add := func(host string, err error) {
		if err != nil {
			errs = append(errs, &HostError{host, err.Error()})
		}
	}
	if slices.Contains(hosts, Nginx) {
		_, err := nginxLocation(du.EscapedPath())
		if err == nil {
			_, err = nginxString(docsURL)
		}
		add(Nginx, err)
	}
	if slices.Contains(hosts, Apache) {
		_, err := decodedPath(du.EscapedPath(), "Apache")
		add(Apache, err)
	}
	var headers []string
	for _, h := range []string{Netlify, Cloudflare} {
		if slices.Contains(hosts, h) {
			headers = append(headers, h)
		}
	}
	if len(headers) > 0 {
		err := headersPath(du.EscapedPath())
		for _, b := range baseURLs {
			if bu, perr := url.Parse(b); err == nil && perr == nil && bu.Host == du.Host {
				err = headersPath(bu.EscapedPath()) // the Link rule's path
			}
		}
		add(strings.Join(headers, ", "), err)
	}
	return errs
}

// decodedPath returns the URL path p (percent-encoded, as in a URL) as a
// server that decodes paths sees it, to match it: decoded, slashes merged.
// It refuses a path that has a dot segment once decoded, or a control
// character; server names the server in the error.
func decodedPath(p, server string) (string, error) {
	dec, err := url.PathUnescape(p)
	if err != nil {
		return "", &HostError{server, fmt.Sprintf("the URL path %q is not percent-encoded right: %v", p, err)}
	}
	for strings.Contains(dec, "//") {
		dec = strings.ReplaceAll(dec, "//", "/")
	}
	for _, seg := range strings.Split(dec, "/") {
		if seg == "." || seg == ".." {
			return "", &HostError{server, fmt.Sprintf("the URL path %q has a %q segment once decoded, which %s resolves: no rule of its own can match it", p, seg, server)}
		}
	}
	if strings.IndexFunc(dec, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return "", &HostError{server, fmt.Sprintf("the URL path %q holds a control character once decoded, which rsgen does not write into the configuration of %s", p, server)}
	}
	return dec, nil
}

// headersPath refuses a URL path that the _headers file would read as a
// pattern: a "*" (a wildcard on both hosts), a ":" that starts a segment
// (a placeholder on Netlify) or comes before a letter (a placeholder on
// Cloudflare Pages). Neither host has an escape for them; the same
// character percent-encoded is matched as written.
func headersPath(p string) error {
	for i := 0; i < len(p); i++ {
		c := p[i]
		placeholder := c == ':' && (i > 0 && p[i-1] == '/' || i+1 < len(p) && isASCIILetter(p[i+1]))
		if c != '*' && !placeholder {
			continue
		}
		what := "wildcard"
		if placeholder {
			what = "placeholder"
		}
		return &HostError{"", fmt.Sprintf("the URL path %q holds a %q, which _headers (Netlify, Cloudflare Pages) reads as a %s and has no escape for: write it %%%02X in the URL", p, string(c), what, c)}
	}
	return nil
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// What the .htaccess must know of Apache. %{REQUEST_URI} in an <If> is
// the path of a request decoded (above; MergeSlashes is on by default). The
// condition of <If "…"> is read twice: as a word of the configuration (in
// which \\ is \ and \" is ") and then as an expression, in which a string
// between ' takes a backslash before any character and reads %{ as a
// variable and $1 as a match, and a regular expression between m# and #
// ends at the first #, whatever comes before it. A value of Header reads
// % as the start of a format (%% is one %).

// apacheString returns the URL path p decoded, as Apache matches it,
// written for a string between ' of the condition of an <If>.
func apacheString(p string) (string, error) {
	dec, err := decodedPath(p, "Apache")
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	for i := 0; i < len(dec); i++ {
		switch c := dec[i]; c {
		case '\\':
			sb.WriteString(`\\\\`) // \\ for the expression, each doubled for the word
		case '"':
			sb.WriteString(`\"`) // for the word; the expression takes " as it is
		case '\'', '%':
			sb.WriteString(`\` + string(c))
		case '$':
			sb.WriteString(`\044`) // never "${", which the configuration may expand
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String(), nil
}

// apacheRegexp returns the URL path p decoded, as Apache matches it, as a
// regular expression that matches it alone, for an m#…# in the condition
// of an <If>.
func apacheRegexp(p string) (string, error) {
	dec, err := decodedPath(p, "Apache")
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	for i := 0; i < len(dec); i++ {
		switch c := dec[i]; {
		case strings.IndexByte(`#$"\`, c) >= 0:
			fmt.Fprintf(&sb, `\x%02x`, c) // the delimiter, "${", the word's quote and escape
		case strings.IndexByte(`.^|?*+()[]{}`, c) >= 0:
			sb.WriteString(`\` + string(c))
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String(), nil
}

// apacheHeader returns s written for the value of a Header directive
// between ".
func apacheHeader(s string) string {
	return strings.NewReplacer(`%`, `%%`, `\`, `\\\\`, `"`, `\"`).Replace(s)
}

// What the nginx snippet must know of nginx. Its configuration is read as
// tokens: an argument with a space, a quote, a ";", a brace or a backslash
// must be quoted, and in quotes a backslash escapes. A value of
// add_header takes "$" for a variable, and nginx has no escape for it.

// nginxLocation returns the argument of a location directive that
// matches the URL path p (percent-encoded, as in a URL) the way nginx
// matches a request for it, quoted if it needs to be.
func nginxLocation(p string) (string, error) {
	dec, err := decodedPath(p, "nginx")
	if err != nil {
		return "", err
	}
	return nginxQuote(dec, `"`), nil
}

// nginxString returns s as a quoted string of nginx, for a directive
// that takes variables (add_header): it refuses a "$".
func nginxString(s string) (string, error) {
	if strings.Contains(s, "$") {
		return "", &HostError{Nginx, fmt.Sprintf("%s holds a \"$\", which nginx reads as a variable in the Link header and has no escape for: write it %%24 in the URL", s)}
	}
	return nginxQuote(s, `'`), nil
}

// nginxQuote returns s unquoted if nginx reads it as one token as it is,
// else between quotes q with backslashes and q escaped.
func nginxQuote(s, q string) string {
	plain := s != "" && q == `"` && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-~", r))
	}) < 0
	if plain {
		return s
	}
	return q + strings.NewReplacer(`\`, `\\`, q, `\`+q).Replace(s) + q
}
