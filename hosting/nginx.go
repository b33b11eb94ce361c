package hosting

import (
	"fmt"
	"strings"
)

// What the nginx snippet must know of nginx. Its configuration is read as
// tokens: an argument with a space, a quote, a ";", a brace or a backslash
// must be quoted, and in quotes a backslash escapes. A location matches
// the path of a request decoded (decodedPath, paths.go). A value of
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
