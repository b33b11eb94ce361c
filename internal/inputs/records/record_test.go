package records

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

const sha = "sha-256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

// nextRecord returns a function that reads the records of r one at a
// time, as ReadBatch and Parse do in batches.
func nextRecord(r *Reader) func() (Record, error) {
	var b Batch
	pos := 0
	return func() (Record, error) {
		if pos >= b.Len() {
			if err := r.ReadBatch(&b, 256); err != nil {
				return Record{}, err
			}
			pos = 0
		}
		pos++
		rec, err := r.Parse(&b, pos-1)
		if err != nil {
			return rec, &badRecord{rec.Line, err}
		}
		return rec, nil
	}
}

// badRecord is a record Parse finds bad, at its line.
type badRecord struct {
	Line int
	Err  error
}

func (e *badRecord) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func readAll(t *testing.T, format Format, input string) ([]Record, []*badRecord) {
	t.Helper()
	r, err := NewReader(strings.NewReader(input), format)
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	var recs []Record
	var bad []*badRecord
	next := nextRecord(r)
	for {
		rec, err := next()
		if errors.Is(err, io.EOF) {
			return recs, bad
		}
		var re *badRecord
		if errors.As(err, &re) {
			bad = append(bad, re)
			continue
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		recs = append(recs, rec)
	}
}

func mustTokens(attr string) []hashing.Token {
	tokens, err := hashing.ParseAttr(attr)
	if err != nil {
		panic(err)
	}
	return tokens
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func TestGoodRecords(t *testing.T) {
	t.Parallel()
	full := Record{
		Line: 1, Loc: "https://example.org/records/1", LocIsURL: true,
		Lastmod: utc("2024-05-01T08:11:12Z"), Created: utc("2024-04-30T22:00:00Z"),
		Status: "published", Hash: mustTokens(sha + " md5:" + strings.Repeat("ab", 16)), Length: 12,
		Type: "text/html", Path: "files/1.html",
		Links: []rsxml.Link{
			{Rel: "describedby", Href: "https://example.org/records/1.json", Type: "application/json"},
			{Rel: "alternate", Href: "records/1.pdf", Type: "application/pdf", Modified: "2024-05-01T08:11:12Z"},
		},
		LinkURL: []bool{true, false},
	}
	tests := []struct {
		name   string
		format Format
		input  string
		want   Record
	}{
		{"jsonl full", JSONL,
			`{"loc":"HTTPS://Example.ORG/records/1","lastmod":"2024-05-01T10:11:12+02:00","created":"2024-04-30 23:00:00+01",` +
				`"status":"published","hash":"SHA-256:9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08  md5:` + strings.Repeat("AB", 16) + `",` +
				`"length":12,"type":"text/html; charset=UTF-8","path":"./files/1.html","deleted":false,` +
				`"links":[{"rel":"describedby","href":"https://example.org/records/1.json","type":"application/json"},` +
				`{"rel":"alternate","href":"records/1.pdf","type":"application/pdf","modified":"2024-05-01T10:11:12+0200"}]}`,
			full},
		{"csv full", CSV,
			"loc,lastmod,created,status,hash,length,type,path,deleted,link:describedby,link:describedby:type,link:alternate,link:alternate:type,link:alternate:modified\n" +
				`HTTPS://Example.ORG/records/1,2024-05-01T10:11:12+02:00,2024-04-30 23:00:00+01,published,"SHA-256:9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08 md5:` + strings.Repeat("AB", 16) + `",` +
				`12,text/html; charset=UTF-8,./files/1.html,f,https://example.org/records/1.json,application/json,records/1.pdf,application/pdf,2024-05-01T10:11:12+0200` + "\n",
			func() Record { r := full; r.Line = 2; return r }()},
		{"jsonl whole length written as a float", JSONL, `{"loc":"a","length":1024.00}`, Record{Line: 1, Loc: "a", Length: 1024}},
		{"jsonl minimal path and nulls", JSONL, "\n  \n" + `{"loc":"records/caf\u00e9 & cr\u00e8me","lastmod":null,"links":null,"length":null}` + "\r\n",
			Record{Line: 3, Loc: "records/café & crème", Length: -1}},
		{"jsonl tombstone with time", JSONL, `{"loc":"a","deleted":"2024-05-02T00:00:00-05:00","lastmod":"2024-05-01T00:00:00Z"}`,
			Record{Line: 1, Loc: "a", Length: -1, Deleted: true, DeletedAt: utc("2024-05-02T05:00:00Z"), Lastmod: utc("2024-05-01T00:00:00Z")}},
		{"jsonl tombstone boolean and draft", JSONL, `{"loc":"a","deleted":true,"status":"draft"}`,
			Record{Line: 1, Loc: "a", Length: -1, Deleted: true, Status: "draft"}},
		{"csv reduced date and empty cells", CSV, "\uFEFFlastmod,loc,deleted\n2024-05-01,./a:b,\n",
			Record{Line: 2, Loc: "a:b", Length: -1, Lastmod: utc("2024-05-01T00:00:00Z")}},
		{"csv fractional seconds", CSV, "loc,lastmod\nhttps://example.org/?q=1,2024-05-01T10:11:12.250Z\n",
			Record{Line: 2, Loc: "https://example.org/?q=1", LocIsURL: true, Length: -1, Lastmod: utc("2024-05-01T10:11:12.25Z")}},
		{"jsonl escapes", JSONL, `{"loc":"a\/b\"c\\d\ud83d\ude00"}`,
			Record{Line: 1, Loc: "a/b\"c\\d😀", Length: -1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs, bad := readAll(t, tc.format, tc.input)
			if len(bad) > 0 {
				t.Fatalf("bad records: %v", bad)
			}
			if len(recs) != 1 {
				t.Fatalf("got %d records, want 1", len(recs))
			}
			if got := recs[0]; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestBadRecords checks every kind of bad record: its line and reason.
func TestBadRecords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		format Format
		input  string
		line   int
		reason string // a part of the message
	}{
		{"missing loc", JSONL, `{"lastmod":"2024-05-01T00:00:00Z"}`, 1, "missing loc"},
		{"empty loc", JSONL, `{"loc":""}`, 1, "missing loc"},
		{"unparsable lastmod", JSONL, `{"loc":"a","lastmod":"yesterday"}`, 1, `lastmod: "yesterday" is not a date and time`},
		{"lastmod without zone", JSONL, `{"loc":"a","lastmod":"2024-05-01T10:11:12"}`, 1, "has no time zone"},
		{"lastmod out of range", JSONL, `{"loc":"a","lastmod":"2024-02-30T10:11:12Z"}`, 1, "lastmod:"},
		{"leap second", JSONL, `{"loc":"a","lastmod":"2016-12-31T23:59:60Z"}`, 1, `lastmod: "2016-12-31T23:59:60Z" is a leap second`},
		{"leap second with offset", CSV, "loc,created\na,2017-01-01 00:59:60.5+01:00\n", 2, "is a leap second"},
		{"lastmod past 9999 in UTC", JSONL, `{"loc":"a","lastmod":"9999-12-31T23:59:59-01:00"}`, 1, `lastmod: "9999-12-31T23:59:59-01:00" is in the year 10000 in UTC: a W3C Datetime can write only the years 0001 to 9999`},
		{"lastmod minutes past 9999", JSONL, `{"loc":"a","lastmod":"9999-12-31T23:59-01:00"}`, 1, "lastmod: \"9999-12-31T23:59-01:00\" is in the year 10000"},
		{"lastmod before 0001 in UTC", JSONL, `{"loc":"a","lastmod":"0001-01-01T00:00:00+01:00"}`, 1, "lastmod: \"0001-01-01T00:00:00+01:00\" is in the year 0 in UTC"},
		{"lastmod in the year 0000", CSV, "loc,lastmod\na,0000-06-01\n", 2, `lastmod: "0000-06-01" is in the year 0`},
		{"created past 9999", CSV, "loc,created\na,9999-12-31 23:59:59-01\n", 2, `created: "9999-12-31 23:59:59-01" is in the year 10000`},
		{"deleted past 9999", JSONL, `{"loc":"a","deleted":"9999-12-31T23:59:59-01:00"}`, 1, `deleted: "9999-12-31T23:59:59-01:00" is in the year 10000`},
		{"link modified past 9999", JSONL, `{"loc":"a","links":[{"rel":"alternate","href":"b","modified":"9999-12-31T23:59:59-01:00"}]}`, 1, `modified: "9999-12-31T23:59:59-01:00" is in the year 10000`},
		{"csv link modified before 0001", CSV, "loc,link:alternate,link:alternate:modified\na,b,0000-12-31T23:00:00Z\n", 2, `link:alternate: modified: "0000-12-31T23:00:00Z" is in the year 0`},
		{"second 60 of a bad date", JSONL, `{"loc":"a","lastmod":"2016-02-30T23:59:60Z"}`, 1, "is not a date and time"},
		{"created after lastmod", JSONL, `{"loc":"a","lastmod":"2024-05-01T00:00:00Z","created":"2024-05-02T00:00:00Z"}`, 1, "created 2024-05-02T00:00:00Z is after lastmod"},
		{"bad hash token", JSONL, `{"loc":"a","hash":"sha-256:xyz"}`, 1, "hash: hash token"},
		{"short hash", JSONL, `{"loc":"a","hash":"md5:abcd"}`, 1, "a md5 digest has 32 hex digits"},
		{"hash twice", JSONL, `{"loc":"a","hash":"md5:` + strings.Repeat("a", 32) + ` MD5:` + strings.Repeat("b", 32) + `"}`, 1, "names md5 twice"},
		{"bad length", JSONL, `{"loc":"a","length":-3}`, 1, `length: "-3" is not a whole number`},
		{"fractional length", JSONL, `{"loc":"a","length":1.5}`, 1, "not a whole number"},
		{"length with an empty fraction", JSONL, `{"loc":"a","length":"12."}`, 1, "not a whole number"},
		{"length as string", CSV, "loc,length\na,12kB\n", 2, `length: "12kB"`},
		{"length out of range", JSONL, `{"loc":"a","length":"99999999999999999999"}`, 1, "out of range"},
		{"bad type", JSONL, `{"loc":"a","type":"html"}`, 1, `type: "html" is not a media type`},
		{"type of no RFC 6838 name", JSONL, `{"loc":"a","type":"text/.x"}`, 1, `type: "text/.x" is not a media type`},
		{"bad deleted", CSV, "loc,deleted\na,maybe\n", 2, `"maybe" is neither true/false nor a time`},
		{"unknown field", JSONL, `{"loc":"a","title":"x","Lastmod":"y"}`, 1, `unknown fields "title", "Lastmod"`},
		{"unknown link attribute", JSONL, `{"loc":"a","links":[{"rel":"alternate","href":"b","lang":"fr"}]}`, 1, `unknown field "links.lang"`},
		{"field twice", JSONL, `{"loc":"a","loc":"b"}`, 1, `field "loc" is given twice`},
		{"wrong type", JSONL, `{"loc":5}`, 1, "loc: a number is not a string"},
		{"not an object", JSONL, `["loc","a"]`, 1, "not a JSON object"},
		{"truncated", JSONL, `{"loc":"a"`, 1, "unexpected end of line"},
		{"trailing text", JSONL, `{"loc":"a"} x`, 1, "text after the object"},
		{"invalid utf-8", JSONL, "{\"loc\":\"a\xff\"}", 1, "not valid UTF-8"},
		{"relative loc escaping", JSONL, `{"loc":"../etc/passwd"}`, 1, `".." segment`},
		{"loc with leading slash", JSONL, `{"loc":"/records/1"}`, 1, "starts with /"},
		{"loc ftp", JSONL, `{"loc":"ftp://example.org/a"}`, 1, "only http and https"},
		{"loc with space", JSONL, `{"loc":"https://example.org/a b"}`, 1, `character ' ' at byte`},
		{"loc non-ascii", JSONL, `{"loc":"https://example.org/café"}`, 1, "non-ASCII character"},
		{"loc with fragment", JSONL, `{"loc":"https://example.org/a#b"}`, 1, "has a fragment"},
		{"loc with credentials", JSONL, `{"loc":"https://u:p@example.org/a"}`, 1, "credentials"},
		{"loc bad escape", JSONL, `{"loc":"https://example.org/a%zz"}`, 1, "does not start an escape"},
		{"loc bad port", JSONL, `{"loc":"https://example.org:99999/"}`, 1, "port"},
		{"loc no host", JSONL, `{"loc":"https:///a"}`, 1, "no host"},
		{"loc too long", JSONL, `{"loc":"https://example.org/` + strings.Repeat("a", 2100) + `"}`, 1, "at most 2,048"},
		{"path escaping", JSONL, `{"loc":"a","path":"../secret"}`, 1, "leaves the directory of the export"},
		{"path absolute", JSONL, `{"loc":"a","path":"/etc/passwd"}`, 1, "is absolute"},
		{"path windows drive", JSONL, `{"loc":"a","path":"C:\\x"}`, 1, "is absolute"},
		{"link without href", JSONL, `{"loc":"a","links":[{"rel":"describedby"}]}`, 1, "link describedby has no href"},
		{"link without rel", JSONL, `{"loc":"a","links":[{"href":"https://example.org/x"}]}`, 1, "has no rel"},
		{"link javascript", JSONL, `{"loc":"a","links":[{"rel":"alternate","href":"javascript:alert(1)"}]}`, 1, "is a javascript: URI"},
		{"link vbscript", CSV, "loc,link:alternate\na,VBScript:msgbox\n", 2, "is a vbscript: URI"},
		{"link file", JSONL, `{"loc":"a","links":[{"rel":"describedby","href":"file:///etc/passwd"}]}`, 1, "is a file: URI"},
		{"link data", JSONL, `{"loc":"a","links":[{"rel":"describedby","href":"data:text/html,x"}]}`, 1, "is a data: URI"},
		{"link profile javascript", JSONL, `{"loc":"a","links":[{"rel":"describedby","href":"b","profile":"javascript:x"}]}`, 1, "is a javascript: URI"},
		{"link path not in a package", JSONL, `{"loc":"a","links":[{"rel":"alternate","href":"b","path":"files/b"}]}`, 1, `path: "files/b" is not the path of a file in a package`},
		{"link path of a folder", CSV, "loc,link:alternate,link:alternate:path\na,b,/files/\n", 2, `link:alternate: path: "/files/" is not the path of a file in a package`},
		{"link bad pri", JSONL, `{"loc":"a","links":[{"rel":"duplicate","href":"https://m.example.org/a","pri":0}]}`, 1, "pri"},
		{"link not an object", JSONL, `{"loc":"a","links":["x"]}`, 1, "is not a link object"},
		{"csv link attribute without href", CSV, "loc,link:alternate,link:alternate:type\na,,text/html\n", 2, "link:alternate has attributes but no href"},
		{"csv wrong field count", CSV, "loc,lastmod\na,2024-05-01T00:00:00Z,extra\n", 2, "3 fields, but the header has 2 columns"},
		{"csv one field", CSV, "loc,lastmod\na\n", 2, "1 field, but the header has 2 columns"},
		{"csv bare quote", CSV, "loc,lastmod\na\"b,x\n", 2, "bare \""},
		{"bad escape at its column", JSONL, `{"loc":"a\q"}`, 1, "escape code) at column 11"},
		{"bad unicode escape at its column", JSONL, `{"loc":"ab\u12"}`, 1, "escape) at column 15"},
		{"escape cut by the end of the line", JSONL, `{"loc":"a\`, 1, "unterminated string at column 11"},
		{"line too long", JSONL, `{"loc":"` + strings.Repeat("a", maxLineBytes) + `"}`, 1, "line longer than"},
		{"line number after blank lines", JSONL, "\n\n" + `{"loc":"a","lastmod":"x"}` + "\n", 3, "lastmod:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs, bad := readAll(t, tc.format, tc.input)
			if len(recs) != 0 || len(bad) != 1 {
				t.Fatalf("got %d records and %d bad ones (%v), want 1 bad", len(recs), len(bad), bad)
			}
			if bad[0].Line != tc.line {
				t.Errorf("line %d, want %d", bad[0].Line, tc.line)
			}
			if !strings.Contains(bad[0].Error(), tc.reason) {
				t.Errorf("error %q does not say %q", bad[0].Error(), tc.reason)
			}
		})
	}
}

func TestReadingGoesOnAfterBadRecords(t *testing.T) {
	t.Parallel()
	input := `{"loc":"a"}` + "\n" + `{"loc":` + "\n" + `{"loc":"b"}` + "\n" + `{"loc":"c","x":1}` + "\n" + `{"loc":"d"}`
	recs, bad := readAll(t, JSONL, input)
	var locs []string
	for _, r := range recs {
		locs = append(locs, r.Loc)
	}
	var lines []int
	for _, b := range bad {
		lines = append(lines, b.Line)
	}
	if !reflect.DeepEqual(locs, []string{"a", "b", "d"}) || !reflect.DeepEqual(lines, []int{2, 4}) {
		t.Errorf("records %v, bad lines %v", locs, lines)
	}
}

func TestCSVHeader(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, input, want string }{
		{"unknown columns", "loc,title,Lastmod\n", `unknown columns "title", "Lastmod"`},
		{"duplicate column", "loc,lastmod,lastmod\n", `column "lastmod" given twice`},
		{"no loc", "lastmod\n", "no loc column"},
		{"empty", "", "the export is empty"},
		{"attribute without href", "loc,link:alternate:type\n", `without its href column "link:alternate"`},
		{"bare link", "loc,link:\n", `unknown column "link:"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewReader(strings.NewReader(tc.input), CSV)
			if !errors.Is(err, ErrHeader) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want ErrHeader saying %q", err, tc.want)
			}
		})
	}
}

func TestCSVLinkRelWithColon(t *testing.T) {
	t.Parallel()
	recs, bad := readAll(t, CSV, "loc,link:http://www.openarchives.org/rs/terms/patch,link:http://www.openarchives.org/rs/terms/patch:type\n"+
		"a,https://example.org/a.diff,text/x-diff\n")
	if len(bad) > 0 || len(recs) != 1 {
		t.Fatalf("bad %v", bad)
	}
	want := []rsxml.Link{{Rel: "http://www.openarchives.org/rs/terms/patch", Href: "https://example.org/a.diff", Type: "text/x-diff"}}
	if !reflect.DeepEqual(recs[0].Links, want) {
		t.Errorf("links %+v", recs[0].Links)
	}
}

func TestParseTime(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"2024-05-01T10:11:12Z", "2024-05-01T10:11:12Z"},
		{"2024-05-01t10:11:12z", "2024-05-01T10:11:12Z"},
		{"2024-05-01T10:11:12+02:00", "2024-05-01T08:11:12Z"},
		{"2024-05-01 10:11:12.123456-0330", "2024-05-01T13:41:12.123456Z"},
		{"2024-01-01T00:30:00+01", "2023-12-31T23:30:00Z"},
		{"2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z"},
		{"2024", "2024-01-01T00:00:00Z"},
		{"2024-05-01T10:11+02:00", "2024-05-01T08:11:00Z"},
		{"2023-02-29T00:00:00Z", "error"},
		{"2024-05-01T24:00:00Z", "error"},
		{"2024-05-01T10:11:12", "error"},
		{"2024-05-01T10:11:12+2", "error"},
		{"2024-05-01T10:11:12.Z", "error"},
		{"9999-12-31T23:59:59Z", "9999-12-31T23:59:59Z"},
		{"9999-12-31T23:59:59-01:00", "error"},
		{"0001-01-01T01:00:00+01:00", "0001-01-01T00:00:00Z"},
		{"0001-01-01T00:59:59+01:00", "error"},
		{"0000", "error"},
		{"1714558272", "error"},
	}
	for _, tc := range tests {
		got, err := ParseTime(tc.in)
		s := "error"
		if err == nil {
			s = rsxml.FormatTime(got)
		}
		if s != tc.want {
			t.Errorf("ParseTime(%q) = %s (%v), want %s", tc.in, s, err, tc.want)
		}
	}
}

func TestFormatOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want Format
		ok   bool
	}{
		{"r.jsonl", JSONL, true}, {"R.NDJSON", JSONL, true}, {"dir/r.csv", CSV, true},
		{"r.csv.gz", CSV, true}, {"r.jsonl.GZ", JSONL, true}, {"r.json", 0, false}, {"-", 0, false}, {"r.gz", 0, false},
	}
	for _, tc := range tests {
		if f, ok := FormatOf(tc.name); f != tc.want || ok != tc.ok {
			t.Errorf("FormatOf(%q) = %v, %v", tc.name, f, ok)
		}
	}
}

func TestPublished(t *testing.T) {
	t.Parallel()
	for status, want := range map[string]bool{"": true, "published": true, "Published": true, "draft": false, "private": false} {
		r := Record{Status: status}
		if r.Published() != want {
			t.Errorf("status %q: Published() = %v", status, !want)
		}
	}
}

func TestGzipAndBatches(t *testing.T) {
	t.Parallel()
	var plain strings.Builder
	for i := 1; i <= 1000; i++ {
		if i%100 == 0 {
			plain.WriteString("\n")
		}
		fmt.Fprintf(&plain, `{"loc":"r/%d"}`+"\n", i)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(plain.String()))
	zw.Close()
	r, err := NewReader(&gz, JSONL)
	if err != nil {
		t.Fatal(err)
	}
	var b Batch
	n, line := 0, 0
	for {
		err := r.ReadBatch(&b, 64)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < b.Len(); i++ {
			rec, err := r.Parse(&b, i)
			n++
			if err != nil || rec.Loc != fmt.Sprintf("r/%d", n) || rec.Line <= line {
				t.Fatalf("record %d: %+v, %v", n, rec, err)
			}
			line = rec.Line
		}
	}
	if n != 1000 || line != 1010 {
		t.Errorf("%d records, last at line %d; want 1000 at line 1010", n, line)
	}
}

func TestCorruptGzip(t *testing.T) {
	t.Parallel()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(strings.Repeat(`{"loc":"a"}`+"\n", 1000)))
	zw.Close()
	data := gz.Bytes()[:gz.Len()/2]
	r, err := NewReader(bytes.NewReader(data), JSONL)
	if err != nil {
		t.Fatal(err)
	}
	next := nextRecord(r)
	for {
		_, err := next()
		var re *badRecord
		if errors.As(err, &re) {
			continue
		}
		if err == nil {
			continue
		}
		if errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "decompressing") {
			t.Fatalf("truncated gzip: %v, want a decompression error", err)
		}
		return
	}
}

// Absolute URLs are published in the normal form of RFC 3986 (sections
// 6.2.2 and 6.2.3), so that two records for one resource are found to be
// duplicates, and a URL given absolute matches the one rsgen makes of a
// path (upper-case escapes, unreserved characters as they are).
func TestURLNormalForm(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"https://example.org/a", "https://example.org/a"},
		{"HTTPS://Example.ORG:443/a", "https://example.org/a"},
		{"http://example.org:80/a", "http://example.org/a"},
		{"https://example.org:8443/a", "https://example.org:8443/a"},
		{"http://example.org:443/a", "http://example.org:443/a"},
		{"https://[::1]:443/a", "https://[::1]/a"},
		{"https://example.org", "https://example.org/"},
		{"https://example.org?x=1", "https://example.org/?x=1"},
		{"https://example.org/caf%c3%a9", "https://example.org/caf%C3%A9"},
		{"https://example.org/%61%2fb%7E?q=%7e%20", "https://example.org/a%2Fb~?q=~%20"},
		// RFC 3986 section 5.2.4, also for escaped dots (section 6.2.2.2)
		{"https://example.org/a/./b", "https://example.org/a/b"},
		{"https://example.org/a/b/../c", "https://example.org/a/c"},
		{"https://example.org/%2e%2e/z", "https://example.org/z"},
		{"https://example.org/a/%2E/b/%2e%2E/c?x=/../y", "https://example.org/a/c?x=/../y"},
		{"https://example.org/../../z", "https://example.org/z"},
		{"https://example.org/a/b/..", "https://example.org/a/"},
		{"https://example.org/a/.", "https://example.org/a/"},
		{"https://example.org/..", "https://example.org/"},
		{"https://example.org/a//../b", "https://example.org/a/b"},
		{"https://example.org/a..b/.c/..d", "https://example.org/a..b/.c/..d"},
	}
	for _, tt := range tests {
		got, err := checkURL(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("CheckURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			continue
		}
		if again, _ := checkURL(got); again != got {
			t.Errorf("CheckURL(%q) = %q: not a normal form", got, again)
		}
	}
}

// A link's href may be an identifier of another scheme than http(s).
func TestLinkSchemes(t *testing.T) {
	t.Parallel()
	for _, href := range []string{"https://example.org/x", "urn:isbn:0451450523", "info:doi/10.1000/182", "doi:10.1000/182",
		"hdl:20.1000/100", "ark:/13030/tf5p30086k", "tag:example.org,2024:x", "mailto:curator@example.org", "ftp://ftp.example.org/a"} {
		recs, bad := readAll(t, JSONL, `{"loc":"a","links":[{"rel":"describedby","href":"`+href+`"}]}`)
		if len(recs) != 1 || len(bad) != 0 {
			t.Errorf("href %s: %v", href, bad)
		}
	}
}
