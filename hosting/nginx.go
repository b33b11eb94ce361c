package hosting

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// What the nginx snippet must know of nginx. Its configuration is read as
// tokens: an argument with a space, a quote, a ";", a brace or a backslash
// must be quoted, and in quotes a backslash escapes. A location matches
// the path of a request decoded (every %XX), with its "." and ".."
// segments resolved and its slashes merged: a location must be written
// that way, never as the URL has it (issue 22, item 11: /caf%C3%A9/ never
// matched). A value of add_header takes "$" for a variable, and nginx has
// no escape for it.

// CheckNginx reports whether the nginx snippet can serve the documents
// published at docsURL: an error says why not, in words for the person
// who chose the URL.
func CheckNginx(docsURL string) error {
	u, err := url.Parse(docsURL)
	if err != nil {
		return err
	}
	if _, err := nginxLocation(u.EscapedPath()); err != nil {
		return err
	}
	_, err = nginxString(docsURL)
	return err
}

// nginxError is why a URL cannot go into the nginx snippet.
type nginxError struct{ msg string }

func (e *nginxError) Error() string { return e.msg }

// nginxLocation returns the argument of a location directive that
// matches the URL path p (percent-encoded, as in a URL) the way nginx
// matches a request for it, quoted if it needs to be.
func nginxLocation(p string) (string, error) {
	dec, err := url.PathUnescape(p)
	if err != nil {
		return "", &nginxError{fmt.Sprintf("the URL path %q is not percent-encoded right: %v", p, err)}
	}
	for strings.Contains(dec, "//") {
		dec = strings.ReplaceAll(dec, "//", "/")
	}
	for _, seg := range strings.Split(dec, "/") {
		if seg == "." || seg == ".." {
			return "", &nginxError{fmt.Sprintf("the URL path %q has a %q segment once decoded, which nginx resolves: it cannot match a location of its own", p, seg)}
		}
	}
	if strings.IndexFunc(dec, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return "", &nginxError{fmt.Sprintf("the URL path %q holds a control character once decoded, which rsgen does not write into nginx's configuration", p)}
	}
	return nginxQuote(dec, `"`), nil
}

// nginxString returns s as a quoted string of nginx, for a directive
// that takes variables (add_header): it refuses a "$".
func nginxString(s string) (string, error) {
	if strings.Contains(s, "$") {
		return "", &nginxError{fmt.Sprintf("%s holds a \"$\", which nginx reads as a variable in the Link header and has no escape for: write it %%24 in the URL", s)}
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

// asNginxError returns the nginxError in err's chain, or err.
func asNginxError(err error) error {
	var ne *nginxError
	if errors.As(err, &ne) {
		return ne
	}
	return err
}
