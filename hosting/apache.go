package hosting

import (
	"fmt"
	"strings"
)

// What the .htaccess must know of Apache. %{REQUEST_URI} in an <If> is
// the path of a request decoded (every %XX), its dot segments resolved and
// its slashes merged (MergeSlashes, on by default), as nginx sees it. The
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
