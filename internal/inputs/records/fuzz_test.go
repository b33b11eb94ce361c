package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/documents/uri"
)

// seedCorpus fails the fuzz test when its seed corpus in testdata/fuzz is
// missing: a renamed target must not run without its seeds unnoticed.
func seedCorpus(f *testing.F) {
	f.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", f.Name(), "*"))
	if len(files) == 0 {
		f.Fatalf("no seed corpus in testdata/fuzz/%s", f.Name())
	}
}

// FuzzParseJSONLine holds the hand-written parser to encoding/json: what
// it accepts, encoding/json reads as the same record, and what
// encoding/json reads as an object it never calls malformed.
func FuzzParseJSONLine(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, line []byte) {
		rec, err := parseJSONLine(line, 7)
		var obj map[string]any
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		jsonErr := dec.Decode(&obj)
		if jsonErr == nil {
			if _, err := dec.Token(); !errors.Is(err, io.EOF) {
				jsonErr = errors.New("text after the object")
			}
		}
		isObject := jsonErr == nil && obj != nil && json.Valid(line)
		if err != nil {
			if rec.Line != 7 {
				t.Fatalf("error %v of a record at line %d, not 7", err, rec.Line)
			}
			syntax := strings.Contains(err.Error(), "not a JSON object") && !strings.Contains(err.Error(), "nested too deep")
			if syntax && isObject && utf8.Valid(line) {
				t.Fatalf("encoding/json reads %q as an object, ParseJSONLine says %v", line, err)
			}
			return
		}
		if !isObject {
			t.Fatalf("ParseJSONLine accepts %q, encoding/json does not (%v)", line, jsonErr)
		}
		want, err := recordFromMap(obj, 7)
		if err != nil {
			t.Fatalf("ParseJSONLine accepts %q, the same fields through encoding/json do not: %v", line, err)
		}
		if !reflect.DeepEqual(rec, want) {
			t.Fatalf("%q:\nParseJSONLine %+v\nencoding/json %+v", line, rec, want)
		}
		checkInvariants(t, &rec)
	})
}

// recordFromMap builds a record from what encoding/json decoded.
func recordFromMap(obj map[string]any, line int) (Record, error) {
	rec := newRecord(line)
	for k, v := range obj {
		if k == "links" {
			list, _ := v.([]any)
			for _, lv := range list {
				m, _ := lv.(map[string]any)
				var l rsxml.Link
				var isURL bool
				for ak, av := range m {
					s := ""
					switch x := av.(type) {
					case string:
						s = x
					case json.Number:
						s = x.String()
					}
					if err := setLinkAttr(&l, &isURL, ak, s); err != nil {
						return rec, err
					}
				}
				rec.Links = append(rec.Links, l)
				rec.LinkURL = append(rec.LinkURL, isURL)
			}
			continue
		}
		f := fieldByName(k)
		switch x := v.(type) {
		case string:
			if err := set(&rec, f, x); err != nil {
				return rec, err
			}
		case json.Number:
			if err := set(&rec, f, x.String()); err != nil {
				return rec, err
			}
		case bool:
			rec.Deleted = x
		}
	}
	return rec, rec.finish()
}

// checkInvariants checks what every accepted record promises.
func checkInvariants(t *testing.T, rec *Record) {
	t.Helper()
	if rec.Loc == "" {
		t.Fatal("accepted without loc")
	}
	if rec.LocIsURL {
		if u, err := checkURL(rec.Loc); err != nil || u != rec.Loc {
			t.Fatalf("loc %q is not a normalised URL: %v", rec.Loc, err)
		}
	} else if p, err := checkPath(rec.Loc); err != nil || p != rec.Loc && "./"+p != rec.Loc {
		if err != nil || uri.Scheme(rec.Loc) == "" {
			t.Fatalf("loc %q is not a path: %v", rec.Loc, err)
		}
	}
	for _, tm := range []time.Time{rec.Lastmod, rec.Created, rec.DeletedAt} {
		if !tm.IsZero() && tm.Location() != time.UTC {
			t.Fatalf("time %v is not in UTC", tm)
		}
	}
	if attr := hashing.FormatTokens(rec.Hash); attr != "" {
		if again, err := hashing.ParseAttr(attr); err != nil || hashing.FormatTokens(again) != attr {
			t.Fatalf("hash %q does not parse back: %v", attr, err)
		}
	}
	if len(rec.Links) != len(rec.LinkURL) {
		t.Fatalf("%d links, %d LinkURL", len(rec.Links), len(rec.LinkURL))
	}
	for _, l := range rec.Links {
		if l.Rel == "" || l.Href == "" {
			t.Fatalf("link without rel or href: %+v", l)
		}
	}
}

// FuzzCSV reads arbitrary CSV: no panic, every bad record at a line of the
// input, lines in order, every record holding its promises.
func FuzzCSV(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), CSV)
		if err != nil {
			return
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		last := 0
		next := nextRecord(r)
		for {
			rec, err := next()
			if errors.Is(err, io.EOF) {
				return
			}
			line := rec.Line
			var re *badRecord
			if errors.As(err, &re) {
				line = re.Line
			} else if err != nil {
				t.Fatalf("Next: %v", err)
			} else {
				checkInvariants(t, &rec)
			}
			if line < 2 || line > lines || line < last {
				t.Fatalf("record at line %d (previous %d, %d lines)", line, last, lines)
			}
			last = line
		}
	})
}
