package hosting

import (
	"errors"
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

// asHostError returns the HostError in err's chain, or err: a template
// that calls a function of the hosts fails with its words alone.
func asHostError(err error) error {
	var he *HostError
	if errors.As(err, &he) {
		return he
	}
	return err
}
