package records

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/mediatype"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/documents/uri"
)

// A Record is one record of an export, checked and normalised.
type Record struct {
	Line int // line of the record in the export (where a CSV row starts)

	// Loc is the record's URL: an absolute http(s) URL (scheme and host in
	// lower case) if LocIsURL, else a raw path relative to the base URL,
	// checked by checkPath.
	Loc      string
	LocIsURL bool

	Lastmod   time.Time       // UTC; zero if not given
	Created   time.Time       // UTC; zero if not given
	Deleted   bool            // a tombstone
	DeletedAt time.Time       // when it was deleted, if given as a time (else its Lastmod is); UTC
	Status    string          // as given; "" if absent
	Hash      []hashing.Token // as given; nil if not given
	Length    int64           // bytes; -1 if not given
	Type      string          // bare media type; "" if not given
	Path      string          // local file, slash-separated, relative to the export's directory; "" if none
	Links     []rsxml.Link
	// LinkURL[i] reports whether the href of Links[i] is an absolute URI;
	// otherwise it is a raw path relative to the base URL, like Loc.
	LinkURL []bool
}

// Published reports whether the record may appear in a document: its
// status is "published" (in any case, spaces around it ignored) or absent.
// Drafts and every other status are never listed, not even as deletions.
func (r *Record) Published() bool {
	return r.Status == "" || strings.EqualFold(strings.TrimSpace(r.Status), "published")
}

// The fields of a record (JSON keys and CSV columns) besides its links, in
// the order the documentation lists them.
const (
	fieldLoc = iota
	fieldLastmod
	fieldCreated
	fieldDeleted
	fieldStatus
	fieldHash
	fieldLength
	fieldType
	fieldPath
	numFields
)

var fieldNames = [numFields]string{"loc", "lastmod", "created", "deleted", "status", "hash", "length", "type", "path"}

func fieldByName[S ~string | ~[]byte](name S) int {
	for i, n := range fieldNames {
		if n == string(name) {
			return i
		}
	}
	return -1
}

// linkAttrs are the attributes a link of a record may have (section 14);
// rel and href are required.
var linkAttrs = []string{"rel", "href", "type", "hash", "length", "modified", "encoding", "path", "pri", "profile"}

const statusPublished = "published"

func newRecord(line int) Record { return Record{Line: line, Length: -1} }

// set stores the value v of field f of r, checking it. An empty value is
// an absent field. A value in the bytes of a line is made a string only
// where the record keeps it.
func set[S ~string | ~[]byte](r *Record, f int, v S) error {
	if len(v) == 0 {
		return nil
	}
	var err error
	switch f {
	case fieldLoc:
		r.Loc, r.LocIsURL, err = checkLoc(string(v))
	case fieldLastmod:
		r.Lastmod, err = ParseTime(v)
	case fieldCreated:
		r.Created, err = ParseTime(v)
	case fieldDeleted:
		err = r.setDeleted(string(v))
	case fieldStatus:
		r.Status = statusPublished // one copy for all records
		if string(v) != statusPublished {
			r.Status = string(v)
		}
	case fieldHash:
		r.Hash, err = hashing.ParseAttr(string(v))
	case fieldLength:
		r.Length, err = parseLength(v)
	case fieldType:
		r.Type, err = checkType(v)
	case fieldPath:
		if err = checkLocalPath(string(v)); err == nil {
			r.Path = strings.TrimPrefix(string(v), "./")
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", fieldNames[f], err)
	}
	return nil
}

// setDeleted reads a boolean (in any case) or the time of the deletion.
func (r *Record) setDeleted(v string) error {
	switch strings.ToLower(v) {
	case "true", "t", "yes", "y", "1":
		r.Deleted = true
		return nil
	case "false", "f", "no", "n", "0":
		r.Deleted = false
		return nil
	}
	t, err := ParseTime(v)
	if errors.Is(err, errYears) {
		return err
	}
	if err != nil {
		return fmt.Errorf("%q is neither true/false nor a time of deletion", v)
	}
	r.Deleted, r.DeletedAt = true, t
	return nil
}

func (r *Record) finish() error {
	if r.Loc == "" {
		return errors.New("missing loc")
	}
	if !r.Created.IsZero() && !r.Lastmod.IsZero() && r.Created.Truncate(time.Second).After(r.Lastmod.Truncate(time.Second)) {
		return fmt.Errorf("created %s is after lastmod %s", rsxml.FormatTime(r.Created), rsxml.FormatTime(r.Lastmod))
	}
	return nil
}

func checkLoc(v string) (string, bool, error) {
	if uri.Scheme(v) != "" {
		u, err := checkURL(v)
		return u, true, err
	}
	p, err := checkPath(v)
	if err == nil && len(p) > uri.MaxLocLength {
		err = fmt.Errorf("path of %d characters: a Sitemap <loc> may have at most 2,048", len(p))
	}
	return p, false, err
}

// parseLength reads a number of bytes: digits, optionally followed by a
// fraction of zeros ("1024.0": JSON numbers are not typed, and exporters
// such as pandas write whole numbers so).
func parseLength[S ~string | ~[]byte](b S) (int64, error) {
	if n, ok := digits(b); ok && len(b) < 19 {
		return int64(n), nil
	}
	v := string(b)
	if whole, frac, ok := strings.Cut(v, "."); ok && whole != "" && frac != "" && strings.Trim(frac, "0") == "" {
		v = whole
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, fmt.Errorf("%q is not a whole number of bytes", v)
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is out of range", v)
	}
	return n, nil
}

// checkType returns the bare media type of v (parameters such as charset
// dropped: the type attribute carries none).
func checkType[S ~string | ~[]byte](v S) (string, error) {
	if t, ok := commonTypes[string(v)]; ok {
		return t, nil
	}
	t := mediatype.Bare(string(v))
	if !mediatype.Valid(t) {
		return "", fmt.Errorf("%q is not a media type such as text/html", v)
	}
	return t, nil
}

// commonTypes holds one copy of the media types most records have.
var commonTypes = func() map[string]string {
	m := map[string]string{}
	for _, t := range []string{"text/html", "application/xhtml+xml", "application/xml", "text/xml", "application/json",
		"application/ld+json", "application/pdf", "text/plain", "image/jpeg", "image/png", "image/tiff", "image/jp2",
		"audio/mpeg", "video/mp4", "application/rdf+xml", "text/turtle", "application/octet-stream", "application/zip"} {
		m[t] = t
	}
	return m
}()

// setLinkAttr stores attribute name of a link, checking its value; isURL
// is set for href.
func setLinkAttr(l *rsxml.Link, isURL *bool, name, v string) error {
	if v == "" {
		return nil
	}
	var err error
	switch name {
	case "rel":
		if strings.TrimSpace(v) != v || strings.ContainsAny(v, "\t\n\r") {
			err = fmt.Errorf("%q: a relation type has no surrounding or other white space than single spaces", v)
		}
		l.Rel = v
	case "href":
		if *isURL = uri.Scheme(v) != ""; *isURL {
			v, err = checkURI(v)
		} else {
			v, err = checkPath(v)
		}
		l.Href = v
	case "type":
		l.Type, err = checkType(v)
	case "hash":
		var tokens []hashing.Token
		tokens, err = hashing.ParseAttr(v)
		l.Hash = hashing.FormatTokens(tokens)
	case "length":
		var n int64
		if n, err = parseLength(v); err == nil {
			l.Length = strconv.FormatInt(n, 10)
		}
	case "modified":
		var t time.Time
		if t, err = ParseTime(v); err == nil {
			l.Modified = rsxml.FormatTime(t)
		}
	case "pri":
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 1 || n > 999999 || strconv.Itoa(n) != v {
			err = fmt.Errorf("%q is not a priority from 1 to 999999", v)
		}
		l.Pri = v
	case "profile":
		_, err = checkURI(v)
		l.Profile = v
	case "encoding":
		if !mediatype.IsName(v) {
			err = fmt.Errorf("%q is not a content coding such as gzip", v)
		}
		l.Encoding = v
	case "path": // the schema's pattern: /.*[^/]
		if len(v) < 2 || v[0] != '/' || v[len(v)-1] == '/' {
			err = fmt.Errorf("%q is not the path of a file in a package, such as /files/a.txt", v)
		}
		l.Path = v
	default:
		return fmt.Errorf("unknown link attribute %q (known: %s)", name, strings.Join(linkAttrs, ", "))
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func checkLink(l *rsxml.Link) error {
	switch {
	case l.Rel == "" && l.Href == "":
		return errors.New("a link needs rel and href")
	case l.Rel == "":
		return fmt.Errorf("link to %s has no rel", l.Href)
	case l.Href == "":
		return fmt.Errorf("link %s has no href", l.Rel)
	}
	return nil
}

// ParseTime reads a time of a record. The full form is a W3C Datetime with
// seconds and a time zone: 2024-05-01T10:11:12Z, 2024-05-01T12:11:12+02:00,
// with optional fractional seconds. Because databases export times that
// way, a space may stand for the T and the offset may be written +02, +0200
// or +02:00 (PostgreSQL writes "2024-05-01 12:11:12.5+02"). The reduced
// W3C forms 2024, 2024-05, 2024-05-01 and 2024-05-01T10:11Z are read too;
// a date alone is the start of that day in UTC.
//
// A time of day without a time zone is refused: it names no instant. The
// result is in UTC. It must fall in the years 0001 to 9999 there, which is
// all a W3C Datetime (and xsd:dateTime, which has no year 0000) can write:
// 9999-12-31T23:59:59-01:00 is refused.
func ParseTime[S ~string | ~[]byte](b S) (time.Time, error) {
	t, ok := parseFull(b)
	if !ok {
		var err error
		if t, err = parseOther(string(b)); err != nil {
			return time.Time{}, err
		}
	}
	if t.Before(time.Time{}) || !t.Before(yearTenThousand) {
		return time.Time{}, fmt.Errorf("%q is in the year %d in UTC: %w", string(b), t.Year(), errYears)
	}
	return t, nil
}

var (
	yearTenThousand = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	errYears        = errors.New("a W3C Datetime can write only the years 0001 to 9999")
)

// parseOther reads the forms of ParseTime that parseFull does not.
func parseOther(s string) (time.Time, error) {
	if len(s) >= 16 && (s[10] == 'T' || s[10] == 't' || s[10] == ' ') && !strings.ContainsAny(s[16:], "Zz+-") {
		return time.Time{}, fmt.Errorf("%q has no time zone (add Z for UTC, or an offset such as +02:00)", s)
	}
	t, err := rsxml.ParseTime(s)
	if err != nil && isLeapSecond(s) {
		return time.Time{}, fmt.Errorf("%q is a leap second, which Go's time and most readers of W3C Datetimes cannot hold: give the second before it (:59)", s)
	}
	if err != nil && strings.HasPrefix(s, "0000") {
		return time.Time{}, fmt.Errorf("%q is in the year 0 in UTC: %w", s, errYears)
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a date and time such as 2024-05-01T10:11:12Z", s)
	}
	return t, nil
}

// isLeapSecond reports whether s is a time of the 61st second of a
// minute, as UTC adds one to some minutes (2016-12-31T23:59:60Z).
func isLeapSecond(s string) bool {
	if len(s) < 20 || s[13] != ':' || s[16] != ':' || s[17:19] != "60" {
		return false
	}
	_, ok := parseFull(s[:17] + "59" + s[19:])
	return ok
}

// parseFull reads YYYY-MM-DD[T ]hh:mm:ss[.f+]ZONE, where ZONE is Z, ±hh,
// ±hhmm or ±hh:mm (t and z in either case), without allocating: it writes
// the value in the W3C form into a buffer that rsxml reads.
func parseFull[S ~string | ~[]byte](s S) (time.Time, bool) {
	if len(s) < 20 || s[10] != 'T' && s[10] != 't' && s[10] != ' ' {
		return time.Time{}, false
	}
	end := 19
	if s[end] == '.' {
		for end++; end < len(s) && s[end] >= '0' && s[end] <= '9'; end++ {
		}
	}
	var buf [40]byte
	w := buf[:0]
	for i := range end {
		w = append(w, s[i])
	}
	w[10] = 'T'
	switch z := s[end:]; len(z) {
	case 1:
		w = append(w, z[0]&^0x20) // z or Z: Z
	case 3: // ±hh
		w = append(w, z[0], z[1], z[2], ':', '0', '0')
	case 5: // ±hhmm
		w = append(w, z[0], z[1], z[2], ':', z[3], z[4])
	case 6: // ±hh:mm
		w = append(w, z[0], z[1], z[2], z[3], z[4], z[5])
	default:
		return time.Time{}, false
	}
	t, form, err := rsxml.ParseTimeForm(w)
	return t, err == nil && form == rsxml.Second
}

func digits[S ~string | ~[]byte](s S) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
