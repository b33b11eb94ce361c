package rules

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rsgen/rsgen/internal/documents/mediatype"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/text/units"
)

// The checks of single values return what is wrong, or "". They follow
// the official schemas (XSD types and patterns, their white-space rules)
// and, where it says more, the spec.

// Datetime checks a datetime attribute: an xsd:dateTime that is also
// a W3C Datetime, with seconds and a time zone.
func Datetime(v string) (time.Time, string) {
	t, p, err := rsxml.ParseTimeForm(strings.TrimSpace(v)) // white space the schema's types collapse
	if p != rsxml.Second {
		return time.Time{}, fmt.Sprintf("%q is not a full W3C Datetime with seconds and time zone (YYYY-MM-DDThh:mm:ss[.s]Z, or ±hh:mm for Z), which the schema's xsd:dateTime and the W3C profile both accept", v)
	}
	if err != nil {
		return time.Time{}, err.Error()
	}
	return t, ""
}

// ParseInteger reads an xsd:integer, white space around allowed.
func ParseInteger(v string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	return n, err == nil
}

func Pri(v string) string {
	n, ok := ParseInteger(v)
	if !ok || n < 1 || n > 999999 {
		return fmt.Sprintf("pri=%q is not an integer from 1 to 999999", v)
	}
	return ""
}

// Path checks a path against the schema's pattern /.*[^/] (a whole
// match, and "." does not match a line break).
func Path(v string) string {
	var why string
	switch {
	case v == "" || v[0] != '/':
		why = "it does not start with /"
	case v[len(v)-1] == '/':
		why = "it ends with /"
	case strings.ContainsAny(v, "\r\n"):
		why = "it has a line break"
	default:
		return ""
	}
	return fmt.Sprintf("path=%q does not match the schema's pattern /.*[^/]: %s", v, why)
}

// Type checks a media type: bad if it is not a bare one (an error),
// pattern if the schema's [\w-]+/[\w-]+ rejects it (a warning).
func Type(v string) (bad, pattern string) {
	if !mediatype.Valid(v) {
		if strings.ContainsAny(v, "; ") {
			return fmt.Sprintf("type=%q is not a bare media type: parameters such as charset do not belong in type", v), ""
		}
		return fmt.Sprintf("type=%q is not a media type (type/subtype, RFC 6838)", v), ""
	}
	if !mediatype.SchemaValid(v) {
		return "", fmt.Sprintf("type=%q is a correct media type name, but the official schema's pattern [\\w-]+/[\\w-]+ rejects it (it has a dot or an underscore): schema-validating Destinations will reject the document", v)
	}
	return "", ""
}

// IsAnyURI approximates libxml2's xsd:anyURI (the official validator's):
// characters URIs cannot carry are escaped, then it must parse.
func IsAnyURI(v string) bool {
	_, ok := parseAnyURI(strings.TrimSpace(v))
	return ok
}

func parseAnyURI(s string) (*url.URL, bool) {
	if strings.Count(s, "#") > 1 {
		return nil, false
	}
	if strings.IndexFunc(s, unsafeURI) >= 0 {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if unsafeURI(rune(s[i])) {
				fmt.Fprintf(&b, "%%%02X", s[i])
			} else {
				b.WriteByte(s[i])
			}
		}
		s = b.String()
	}
	u, err := url.Parse(s)
	return u, err == nil
}

// unsafeURI reports whether a URI cannot carry r unescaped.
func unsafeURI(r rune) bool { return r <= 0x20 || r >= 0x7f || strings.ContainsRune("<>\"{}|\\^`", r) }

// Loc checks a <loc>: bad for what the schema or spec reject, escape
// for what should be percent-encoded.
func Loc(v string) (bad, escape string) {
	if len(v) >= 12 && len(v) <= 2048 && isPlainURL(v) {
		// What locFully accepts without a word, recognized without
		// parsing: the <loc>s of nearly every list (FuzzPlainURL).
		return "", rawDelimiter(v)
	}
	bad, escape = locFully(v)
	if bad == "" && escape == "" {
		escape = rawDelimiter(v)
	}
	return bad, escape
}

// rawDelimiter says when a <loc> holds a raw "#", or a raw "?" before no
// "=": a "?" or "#" of a file name written unescaped (…/what?.txt) makes
// the URL name another resource (…/what).
func rawDelimiter(v string) string {
	rest, _, hasFrag := strings.Cut(v, "#")
	if hasFrag {
		return fmt.Sprintf("<loc> %q has a raw #, which starts a fragment: the URL names %s, which is what Destinations fetch; a # in a name is written %%23", Clip(v), Clip(rest))
	}
	if path, query, ok := strings.Cut(v, "?"); ok && !strings.Contains(query, "=") {
		return fmt.Sprintf("<loc> %q has a raw ?, which starts a query: the URL names %s with the query %q; a ? in a name is written %%3F", Clip(v), Clip(path), Clip(query))
	}
	return ""
}

func locFully(v string) (bad, escape string) {
	n := utf8.RuneCountInString(v)
	if n < 12 || n > 2048 {
		return fmt.Sprintf("<loc> %q has %s; the schema wants 12 to 2,048", Clip(v), units.Count(n, "character")), ""
	}
	u, ok := parseAnyURI(v)
	if !ok {
		return fmt.Sprintf("<loc> %q is not a URI", Clip(v)), ""
	}
	if !u.IsAbs() || u.Host == "" && u.Opaque == "" {
		return NotAbsolute(v), ""
	}
	if i := strings.IndexFunc(v, unsafeURI); i >= 0 {
		_, n := utf8.DecodeRuneInString(v[i:])
		return "", fmt.Sprintf("<loc> %q has a character that should be percent-encoded (%q)", Clip(v), v[i:i+n])
	}
	return "", ""
}

// NotAbsolute is what is wrong with a <loc> that is not an absolute URI.
func NotAbsolute(loc string) string {
	return fmt.Sprintf("<loc> %q is not an absolute URI: Destinations cannot dereference it", Clip(loc))
}

// isPlainURL reports whether v is scheme://host[:port], then a path and
// query of unreserved characters, sub-delims, ":", "@", "/", "?" and
// percent escapes (RFC 3986): an absolute URI url.Parse accepts with
// nothing to escape.
func isPlainURL(v string) bool {
	i := 0
	for i < len(v) && (isAlpha(v[i]) || i > 0 && (isDigit(v[i]) || v[i] == '+' || v[i] == '-' || v[i] == '.')) {
		i++
	}
	if i == 0 || !strings.HasPrefix(v[i:], "://") {
		return false
	}
	i += 3
	host := i
	for i < len(v) && (isAlpha(v[i]) || isDigit(v[i]) || v[i] == '-' || v[i] == '.') {
		i++
	}
	if i == host {
		return false
	}
	if i < len(v) && v[i] == ':' {
		i++
		for i < len(v) && isDigit(v[i]) {
			i++
		}
	}
	if i < len(v) && v[i] != '/' && v[i] != '?' {
		return false
	}
	for ; i < len(v); i++ {
		c := v[i]
		switch {
		case plainURIChar[c]:
		case c == '%' && i+2 < len(v) && uri.IsHex(v[i+1]) && uri.IsHex(v[i+2]):
			i += 2
		default:
			return false
		}
	}
	return true
}

var plainURIChar = func() (t [256]bool) {
	for c := range len(t) {
		t[c] = isAlpha(byte(c)) || isDigit(byte(c)) || strings.IndexByte("-._~!$&'()*+,;=:@/?", byte(c)) >= 0
	}
	return t
}()

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func Clip(s string) string {
	if len(s) <= 120 {
		return s
	}
	cut := 100
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// regRel is RFC 5988's reg-rel-type.
var regRel = regexp.MustCompile(`^[a-z][a-z0-9.\-]*$`)

// Rel checks a rel: bad when the schema's union of reg-rel-type and
// anyURI rejects it, odd when RFC 5988 would (no absolute URI).
func Rel(v string) (bad, odd string) {
	if regRel.MatchString(v) {
		return "", ""
	}
	if !IsAnyURI(v) {
		return fmt.Sprintf("rel=%q is neither a relation type nor a URI", v), ""
	}
	for _, tok := range strings.Fields(v) {
		if regRel.MatchString(tok) {
			continue
		}
		if u, err := url.Parse(tok); err != nil || !u.IsAbs() {
			return "", fmt.Sprintf("rel=%q: %q is neither a registered relation type (lower case) nor an absolute URI", v, tok)
		}
	}
	return "", ""
}

// Changefreq judges a <changefreq> (the Sitemap schema's), "" if absent.
func Changefreq(v string) string {
	if v == "" || slices.Contains([]string{"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"}, v) {
		return ""
	}
	return fmt.Sprintf("<changefreq> %q is not one of always, hourly, daily, weekly, monthly, yearly, never", v)
}

// Priority judges a <priority>: an xsd:decimal from 0.0 to 1.0 (the
// Sitemap schema's), "" if absent.
func Priority(v string) string {
	if v == "" || validPriority(v) {
		return ""
	}
	return fmt.Sprintf("<priority> %q is not a decimal from 0.0 to 1.0", v)
}

func validPriority(v string) bool {
	s := strings.TrimSpace(v)
	intPart, frac, _ := strings.Cut(s, ".")
	intPart = strings.TrimPrefix(intPart, "+")
	if intPart == "" && frac == "" || !allDigits(intPart) || !allDigits(frac) {
		return false
	}
	intPart = strings.TrimLeft(intPart, "0")
	switch intPart {
	case "":
		return true
	case "1":
		return strings.Trim(frac, "0") == ""
	}
	return false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ExtraAttr judges an attribute of <rs:md> or <rs:ln> that rsxml has no
// field for: undeclared if the schema does not declare it and it is in no
// namespace, prefix if it is in the ResourceSync namespace.
func ExtraAttr(a rsxml.Attr) (undeclared, prefix string) {
	switch {
	case a.Space == "" && a.Name == "xmlns":
	case a.Space == "":
		return fmt.Sprintf("attribute %q is not one the schema declares; attributes of other communities belong in their own namespace", a.Name), ""
	case a.Space == rsxml.NSRS:
		return "", fmt.Sprintf("attribute rs:%s has the ResourceSync prefix; ResourceSync attributes carry none", a.Name)
	}
	return "", ""
}
