package validate

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/rsxml"
	"github.com/rsgen/rsgen/internal/units"
)

// The checks of single attribute and element values. Each returns a
// message saying what is wrong, or "" when the value is fine. They follow
// the official schemas (XSD types and patterns, with their white-space
// rules) and, where the spec says more, the spec.

// isXSDDateTime reports whether s has the lexical form of xsd:dateTime
// with the time zone the W3C Datetime profile requires once a time is
// given: YYYY-MM-DDThh:mm:ss[.s+](Z|±hh:mm). (By hand: a regexp costs a
// fifth of validating a large list.)
func isXSDDateTime(s string) bool {
	if len(s) < 20 || !isXSDDate(s[:10]) || s[10] != 'T' || !digitsAt(s, 11, 2) || s[13] != ':' ||
		!digitsAt(s, 14, 2) || s[16] != ':' || !digitsAt(s, 17, 2) {
		return false
	}
	rest := s[19:]
	if rest[0] == '.' {
		i := 1
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 1 {
			return false
		}
		rest = rest[i:]
	}
	return rest == "Z" || len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && digitsAt(rest, 1, 2) && rest[3] == ':' && digitsAt(rest, 4, 2)
}

// isXSDDate reports whether s is YYYY-MM-DD: xsd:date without the time
// zone the W3C profile does not allow on a date.
func isXSDDate(s string) bool {
	return len(s) == 10 && digitsAt(s, 0, 4) && s[4] == '-' && digitsAt(s, 5, 2) && s[7] == '-' && digitsAt(s, 8, 2)
}

func digitsAt(s string, i, n int) bool {
	if i+n > len(s) {
		return false
	}
	for _, c := range []byte(s[i : i+n]) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// checkDatetime checks a datetime attribute (at, completed, from, until,
// datetime, modified): an xsd:dateTime that is also a W3C Datetime, so a
// full date and time with seconds and a time zone.
func checkDatetime(v string) (time.Time, string) {
	s := strings.TrimSpace(v)
	if !isXSDDateTime(s) {
		return time.Time{}, fmt.Sprintf("%q is not a full W3C Datetime with seconds and time zone (YYYY-MM-DDThh:mm:ss[.s]Z, or ±hh:mm for Z), which the schema's xsd:dateTime and the W3C profile both accept", v)
	}
	return parseChecked(v, s)
}

// checkLastmod checks <lastmod>: xsd:date or xsd:dateTime, and a W3C Datetime.
func checkLastmod(v string) (time.Time, string) {
	s := strings.TrimSpace(v)
	if !isXSDDate(s) && !isXSDDateTime(s) {
		return time.Time{}, fmt.Sprintf("<lastmod> %q is neither a date (YYYY-MM-DD) nor a full W3C Datetime (YYYY-MM-DDThh:mm:ss[.s]Z)", v)
	}
	return parseChecked(v, s)
}

// parseChecked returns the time of s, a date or datetime whose form
// isXSDDate or isXSDDateTime accepted, checking that its fields are in
// range (as rsxml.ParseTime does, without its regexp).
func parseChecked(v, s string) (time.Time, string) {
	num := func(i, n int) int {
		x := 0
		for _, c := range []byte(s[i : i+n]) {
			x = x*10 + int(c-'0')
		}
		return x
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	var hour, minute, sec, nsec int
	loc := time.UTC
	if len(s) > 10 {
		hour, minute, sec = num(11, 2), num(14, 2), num(17, 2)
		rest := s[19:]
		if rest[0] == '.' {
			i := 1
			for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
				if i <= 9 {
					nsec = nsec*10 + int(rest[i]-'0')
				}
				i++
			}
			for j := min(i, 10); j < 10; j++ {
				nsec *= 10
			}
			rest = rest[i:]
		}
		if rest != "Z" {
			h, m := num(len(s)-5, 2), num(len(s)-2, 2)
			if h > 23 || m > 59 {
				return time.Time{}, fmt.Sprintf("%q: the time zone offset is out of range", v)
			}
			off := h*3600 + m*60
			if rest[0] == '-' {
				off = -off
			}
			loc = time.FixedZone(rest, off)
		}
	}
	if month < 1 || month > 12 || day < 1 || day > rsxml.DaysIn(year, month) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, fmt.Sprintf("%q: a field is out of range", v)
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, loc).UTC(), ""
}

// splitHashToken splits one token of a hash attribute, alg:digest, where
// alg is [A-Za-z0-9][A-Za-z0-9_.+-]* and digest is not empty.
func splitHashToken(tok string) (alg, digest string, ok bool) {
	alg, digest, ok = strings.Cut(tok, ":")
	if !ok || alg == "" || digest == "" {
		return "", "", false
	}
	for i := 0; i < len(alg); i++ {
		c := alg[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '_' && c != '.' && c != '+' && c != '-') {
			return "", "", false
		}
	}
	return alg, digest, true
}

// hashProblem is one problem of a hash attribute; nonHex problems are the
// ones --lenient-hash forgives.
type hashProblem struct {
	msg    string
	nonHex bool
}

// checkHash checks a hash attribute: space-separated alg:hexdigest tokens,
// each algorithm once, digests of the length their algorithm has. (It
// allocates nothing for a valid value: it runs once per entry.)
func checkHash(v string) []hashProblem {
	var probs []hashProblem
	var first [8]string
	algs := first[:0]        // the algorithms so far, the first 16
	var more map[string]bool // the others: a hostile value may have thousands
	n := 0
	for tok, rest := nextField(v); tok != ""; tok, rest = nextField(rest) {
		n++
		alg, digest, ok := splitHashToken(tok)
		if !ok {
			probs = append(probs, hashProblem{msg: fmt.Sprintf("hash token %q is not of the form alg:hexdigest", tok)})
			continue
		}
		alg = strings.ToLower(alg)
		if slices.Contains(algs, alg) || more[alg] {
			probs = append(probs, hashProblem{msg: fmt.Sprintf("hash names %s twice", alg)})
		}
		if len(algs) < 16 {
			algs = append(algs, alg)
		} else {
			if more == nil {
				more = make(map[string]bool)
			}
			more[alg] = true
		}
		if !isHex(digest) {
			probs = append(probs, hashProblem{msg: fmt.Sprintf("hash token %q: the digest is not hex, which section 7 requires (spec Example 27 is not hex either; --lenient-hash makes this a warning)", tok), nonHex: true})
			continue
		}
		if a, ok := hashing.Lookup(alg); ok && len(digest) != 2*a.Size() {
			want := 2 * a.Size()
			probs = append(probs, hashProblem{msg: fmt.Sprintf("hash token %q: a %s digest has %d hex digits, this one %d", tok, alg, want, len(digest))})
		}
	}
	if n == 0 {
		return []hashProblem{{msg: "hash attribute is empty"}}
	}
	return probs
}

// nextField returns the first field of s, as strings.Fields splits s,
// and what follows it: without the allocation of a slice or an iterator.
func nextField(s string) (field, rest string) {
	i := 0
	for i < len(s) {
		space, n := spaceAt(s, i)
		if !space {
			break
		}
		i += n
	}
	j := i
	for j < len(s) && s[j] > ' ' && s[j] < utf8.RuneSelf {
		j++ // printable ASCII, most of a hash attribute
	}
	for j < len(s) {
		space, n := spaceAt(s, j)
		if space {
			break
		}
		j += n
	}
	return s[i:j], s[j:]
}

// spaceAt reports whether the character at s[i] is white space to
// unicode.IsSpace, and its length.
func spaceAt(s string, i int) (bool, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return c == ' ' || c-'\t' <= '\r'-'\t', 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r), n
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return s != ""
}

// parseInteger reads an xsd:integer: an optional sign and digits, white
// space around allowed.
func parseInteger(v string) (int64, bool) {
	if len(v) > 0 && len(v) <= 18 && allDigits(v) {
		n := int64(0) // 18 digits cannot overflow
		for i := 0; i < len(v); i++ {
			n = n*10 + int64(v[i]-'0')
		}
		return n, true
	}
	s := strings.TrimSpace(v)
	if s == "" {
		return 0, false
	}
	digits := strings.TrimLeft(s, "+-")
	if len(s)-len(digits) > 1 || digits == "" {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// checkLength checks a length: the Content-Length of the resource.
func checkLength(v string) string {
	n, ok := parseInteger(v)
	if !ok {
		return fmt.Sprintf("length=%q is not an integer", v)
	}
	if n < 0 {
		return fmt.Sprintf("length=%q is negative; it is a Content-Length in bytes", v)
	}
	return ""
}

// checkPri checks the pri of a link: 1 to 999999.
func checkPri(v string) string {
	n, ok := parseInteger(v)
	if !ok || n < 1 || n > 999999 {
		return fmt.Sprintf("pri=%q is not an integer from 1 to 999999", v)
	}
	return ""
}

// checkPath checks a path against the schema's pattern /.*[^/] (a whole
// match, and "." does not match a line break).
func checkPath(v string) string {
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

// checkType checks a media type. bad says it is not a bare media type at
// all (an error); pattern that it is one, but one the schema's pattern
// [\w-]+/[\w-]+ rejects (dotted vendor names: a warning).
func checkType(v string) (bad, pattern string) {
	if !isMediaType(v) {
		if strings.ContainsAny(v, "; ") {
			return fmt.Sprintf("type=%q is not a bare media type: parameters such as charset do not belong in type", v), ""
		}
		return fmt.Sprintf("type=%q is not a media type (type/subtype, RFC 6838)", v), ""
	}
	if !matchesTypePattern(v) {
		return "", fmt.Sprintf("type=%q is a correct media type name, but the official schema's pattern [\\w-]+/[\\w-]+ rejects it (it has a dot or an underscore): schema-validating Destinations will reject the document", v)
	}
	return "", ""
}

// isMediaType reports whether v is type/subtype made of RFC 6838
// restricted names.
func isMediaType(v string) bool {
	typ, sub, ok := strings.Cut(v, "/")
	return ok && isRestrictedName(typ) && isRestrictedName(sub)
}

func isRestrictedName(s string) bool {
	if s == "" || len(s) > 127 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if i == 0 && !alnum || !alnum && !strings.ContainsRune("!#$&-^_.+", rune(c)) {
			return false
		}
	}
	return true
}

// matchesTypePattern matches v against the schema's [\w-]+/[\w-]+, where
// XSD's \w is every character but punctuation, separators and others
// (so "+" matches, "." and "_" do not).
func matchesTypePattern(v string) bool {
	typ, sub, ok := strings.Cut(v, "/")
	return ok && xsdWordDash(typ) && xsdWordDash(sub)
}

func xsdWordDash(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r == '-' {
			continue
		}
		if r < utf8.RuneSelf {
			// ASCII: Z is the space, C the controls.
			if r <= ' ' || r == 0x7f || unicode.IsPunct(r) {
				return false
			}
		} else if unicode.IsPunct(r) || unicode.In(r, unicode.Z, unicode.C) {
			return false
		}
	}
	return true
}

// isAnyURI approximates the xsd:anyURI check of libxml2 (which the official
// validator uses): characters URIs cannot carry are escaped first, then the
// result must parse as a URI reference.
func isAnyURI(v string) bool {
	_, ok := parseAnyURI(strings.TrimSpace(v))
	return ok
}

func parseAnyURI(s string) (*url.URL, bool) {
	if strings.Count(s, "#") > 1 {
		return nil, false
	}
	if unsafeAt(s) >= 0 {
		s = escapeUnsafe(s)
	}
	u, err := url.Parse(s)
	return u, err == nil
}

// unsafeURIChars are the ASCII characters a URI cannot carry unescaped.
const unsafeURIChars = "<>\"{}|\\^`"

// unsafeAt returns the index of the first byte of s a URI cannot carry, or -1.
func unsafeAt(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= 0x20 || c >= 0x7f || strings.IndexByte(unsafeURIChars, c) >= 0 {
			return i
		}
	}
	return -1
}

func escapeUnsafe(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= 0x20 || c >= 0x7f || strings.IndexByte(unsafeURIChars, c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// checkLoc checks a <loc>: bad for what the schema or spec reject, escape
// for characters a URI should carry percent-encoded.
func checkLoc(v string) (bad, escape string) {
	if len(v) >= 12 && len(v) <= 2048 && isPlainURL(v) {
		// What checkLocFully accepts without a word, recognized without
		// parsing: the <loc>s of nearly every list (FuzzPlainURL).
		return "", rawDelimiter(v)
	}
	bad, escape = checkLocFully(v)
	if bad == "" && escape == "" {
		escape = rawDelimiter(v)
	}
	return bad, escape
}

// rawDelimiter says when a <loc> holds a raw "#", or a raw "?" followed by
// what does not look like a query (no "="): as a "?" or "#" of a file name
// written unescaped does (…/what?.txt), which makes the URL name another
// resource (…/what). A query of name=value pairs is taken as meant.
func rawDelimiter(v string) string {
	rest, _, hasFrag := strings.Cut(v, "#")
	if hasFrag {
		return fmt.Sprintf("<loc> %q has a raw #, which starts a fragment: the URL names %s, which is what Destinations fetch; a # in a name is written %%23", clip(v), clip(rest))
	}
	if path, query, ok := strings.Cut(v, "?"); ok && !strings.Contains(query, "=") {
		return fmt.Sprintf("<loc> %q has a raw ?, which starts a query: the URL names %s with the query %q; a ? in a name is written %%3F", clip(v), clip(path), clip(query))
	}
	return ""
}

func checkLocFully(v string) (bad, escape string) {
	n := utf8.RuneCountInString(v)
	if n < 12 || n > 2048 {
		return fmt.Sprintf("<loc> %q has %s; the schema wants 12 to 2,048", clip(v), units.Count(n, "character")), ""
	}
	u, ok := parseAnyURI(v)
	if !ok {
		return fmt.Sprintf("<loc> %q is not a URI", clip(v)), ""
	}
	if !u.IsAbs() || u.Host == "" && u.Opaque == "" {
		return fmt.Sprintf("<loc> %q is not an absolute URI: Destinations cannot dereference it", clip(v)), ""
	}
	if i := unsafeAt(v); i >= 0 {
		return "", fmt.Sprintf("<loc> %q has a character that should be percent-encoded (%q)", clip(v), firstRune(v[i:]))
	}
	return "", ""
}

// isPlainURL reports whether v is scheme://host[:port] followed by
// nothing, or by a path and query of unreserved characters, sub-delims,
// ":", "@", "/", "?" and well-formed percent escapes (RFC 3986), where
// scheme is [A-Za-z][A-Za-z0-9+.-]* and host [A-Za-z0-9.-]+: an absolute
// URI that url.Parse accepts and that has nothing to escape.
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
		case c == '%' && i+2 < len(v) && isHexDigit(v[i+1]) && isHexDigit(v[i+2]):
			i += 2
		default:
			return false
		}
	}
	return true
}

// plainURIChar marks the characters of a path or query isPlainURL
// accepts as they are: unreserved, sub-delims, ":", "@", "/" and "?".
var plainURIChar = func() (t [256]bool) {
	for c := range len(t) {
		t[c] = isAlpha(byte(c)) || isDigit(byte(c)) || strings.IndexByte("-._~!$&'()*+,;=:@/?", byte(c)) >= 0
	}
	return t
}()

func isAlpha(c byte) bool    { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isHexDigit(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func firstRune(s string) string {
	_, n := utf8.DecodeRuneInString(s)
	return s[:n]
}

// clip shortens long values quoted in messages.
func clip(s string) string {
	if len(s) <= 120 {
		return s
	}
	cut := 100
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// regRel is the syntax of a registered relation type (RFC 5988 reg-rel-type).
var regRel = regexp.MustCompile(`^[a-z][a-z0-9.\-]*$`)

// checkRel checks a rel value: bad when the schema's union of reg-rel-type
// and anyURI rejects it, odd when it is neither a registered-form name nor
// an absolute URI (which RFC 5988 asks for).
func checkRel(v string) (bad, odd string) {
	if regRel.MatchString(v) {
		return "", ""
	}
	if !isAnyURI(v) {
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

// isUTC reports whether a valid datetime is given in UTC ("Z").
func isUTC(v string) bool { return strings.HasSuffix(strings.TrimSpace(v), "Z") }

// zeroOffset reports whether a valid datetime is given with the offset
// +00:00 or -00:00: in UTC, though not in the form the spec recommends.
func zeroOffset(v string) bool {
	v = strings.TrimSpace(v)
	return strings.HasSuffix(v, "+00:00") || strings.HasSuffix(v, "-00:00")
}
