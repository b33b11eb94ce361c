package previous

import (
	"cmp"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/testenv"
)

// A Change List is read again from its file, and a copy that is no
// longer what Read checked (the same size or not) fails at its end with
// ErrChanged, naming the file.
func TestOpenListDirectory(t *testing.T) {
	t.Parallel()
	const rel = "resourcesync/changelist-20240603T000000Z.xml"
	for _, tt := range []struct {
		name   string
		change func(string) string
	}{
		{"unchanged", nil},
		{"the same size", func(s string) string { return strings.Replace(s, "2024-06-02T06:30:00Z", "2024-06-02T06:31:00Z", 1) }},
		{"longer", func(s string) string { return s + "\n" }},
		{"shorter", func(s string) string { return strings.TrimSuffix(s, "\n") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := fixture(t, "good")
			site, err := Read(context.Background(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			cl := &site.ChangeLists[1]
			if cl.Rel != rel {
				t.Fatalf("list 1 is %s", cl.Rel)
			}
			orig, err := os.ReadFile(filepath.Join(dir, rel))
			if err != nil {
				t.Fatal(err)
			}
			if tt.change != nil {
				testenv.WriteFile(t, dir, rel, tt.change(string(orig)))
			}
			rc, err := site.OpenList(context.Background(), cl)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			rc.Close()
			if tt.change == nil {
				if err != nil || string(got) != string(orig) {
					t.Errorf("read %d bytes again, err %v; want the %d published", len(got), err, len(orig))
				}
				return
			}
			var pe *Error
			if !errors.As(err, &pe) || !errors.Is(err, ErrChanged) || !strings.HasSuffix(filepath.ToSlash(pe.Doc), rel) {
				t.Errorf("err = %v, want an *Error of ErrChanged naming %s", err, rel)
			}
		})
	}
}

// Over HTTP a Change List is fetched again when it is opened, with the
// retries of Read; one the server now serves otherwise fails with
// ErrChanged.
func TestOpenListHTTP(t *testing.T) {
	t.Parallel()
	s := serve(t)
	site, err := Read(context.Background(), s.srv.URL, Options{HTTP: fast})
	if err != nil {
		t.Fatal(err)
	}
	cl := &site.ChangeLists[0]
	const p = "/resourcesync/changelist-20240602T000000Z.xml"
	if s.count(p) != 1 {
		t.Fatalf("%s fetched %d times by Read", p, s.count(p))
	}
	failed := false
	s.set(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == p && !failed {
			failed = true
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return true
		}
		return false
	})
	rc, err := site.OpenList(context.Background(), cl)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || int64(len(got)) != cl.Bytes || !strings.Contains(string(got), `capability="changelist"`) {
		t.Errorf("read %d bytes again (%v), want %d", len(got), err, cl.Bytes)
	}
	if s.count(p) != 3 {
		t.Errorf("%s fetched %d times, want 3 (Read, a failure, a retry)", p, s.count(p))
	}

	s.set(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == p {
			w.Write([]byte(strings.Repeat(" ", int(cl.Bytes))))
			return true
		}
		return false
	})
	rc, err = site.OpenList(context.Background(), cl)
	if err == nil {
		_, err = io.ReadAll(rc)
		rc.Close()
	}
	if !errors.Is(err, ErrChanged) {
		t.Errorf("a list served otherwise: err = %v, want ErrChanged", err)
	}
}

// Check refuses, as the previous build's (ErrInvalid, naming the list and
// the line), every value of an entry that a build writing it again would
// refuse, in validate's words, or could not write as it was read; a value
// validate only warns about, and rsxml writes as read, passes.
func TestCheckCarriedEntry(t *testing.T) {
	t.Parallel()
	const list = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:md capability="changelist" from="2024-06-01T00:00:00Z"/>
  <url>
    <loc>LOC</loc>ELEMS
    <rs:md change="created" DATETIMEATTRS/>LINKS
  </url>
</urlset>
`
	const loc = "https://example.org/a.txt"
	for _, tt := range []struct {
		loc, dt, elems, attrs, links string
		line                         int
		want                         string // "" if good
	}{
		{attrs: ` type="text/plain" hash="md5:0cc175b9c0f1b6a831c399e269772661" length="1"`},
		{attrs: ` modified="2024-06-01T10:00:00+00:00"`},                          // not in UTC: a warning
		{links: `<rs:ln rel="alternate Odd" href="https://example.org/a.html"/>`}, // an odd rel: a warning
		{attrs: ` type="zz"`, line: 6, want: `<rs:md>: type="zz" is not a media type`},
		{attrs: ` type="application/vnd.ms-excel"`, line: 6, want: `the official schema's pattern`},
		{attrs: ` type="text/plain; charset=utf-8"`, line: 6, want: `is not a bare media type`},
		{dt: "2024-06-01T10:00Z", line: 6, want: `<rs:md>: datetime="2024-06-01T10:00Z" is not a full W3C Datetime`},
		{attrs: ` completed="junk"`, line: 6, want: `<rs:md>: completed="junk" is not a full W3C Datetime`},
		{attrs: ` at="2024-06-01T10:00:00Z" completed="2024-06-01T09:00:00Z"`, line: 6, want: `completed=2024-06-01T09:00:00Z is before at=`},
		{attrs: ` from="2024-06-02T00:00:00Z" until="2024-06-01T00:00:00Z"`, line: 6, want: `until=2024-06-01T00:00:00Z is before from=`},
		{attrs: ` path="x/"`, line: 6, want: `path="x/" does not match the schema's pattern`},
		{attrs: ` foo="1"`, line: 6, want: `attribute "foo" is not one the schema declares`},
		{attrs: ` rs:length="1"`, line: 6, want: `attribute rs:length has the ResourceSync prefix`},
		{attrs: ` x:y="1" xmlns:x="urn:x"`, line: 6, want: `attribute y of namespace "urn:x" is not written again`},
		{loc: "https://e.o", line: 4, want: `<loc> "https://e.o" has 11 characters`},
		{loc: "https://example.org/a##b", line: 4, want: `is not a URI`},
		{elems: `<changefreq>sometimes</changefreq>`, line: 4, want: `<changefreq> "sometimes" is not one of`},
		{elems: `<priority>0.5</priority>`, line: 4, want: `<priority> "0.5" is not written again`},
		{elems: `<priority>7</priority>`, line: 4, want: `<priority> "7" is not a decimal from 0.0 to 1.0`},
		{links: `<rs:size>1</rs:size>`, line: 6, want: `element <rs:size> is not declared`},
		{links: `<x:y xmlns:x="urn:x"/>`, line: 6, want: `rsgen does not write it again`},
		{links: `<rs:ln href="https://example.org/b"/>`, line: 6, want: `<rs:ln> has no rel`},
		{links: `<rs:ln rel="a##b" href="https://example.org/b"/>`, line: 6, want: `rel="a##b" is neither a relation type nor a URI`},
		{links: `<rs:ln rel="alternate"/>`, line: 6, want: `<rs:ln rel="alternate"> has no href`},
		{links: `<rs:ln rel="alternate" href="https://example.org/b" pri="0"/>`, line: 6, want: `<rs:ln rel="alternate">: pri="0" is not an integer`},
		{links: `<rs:ln rel="alternate" href="https://example.org/b" type="zz"/>`, line: 6, want: `<rs:ln rel="alternate">: type="zz"`},
		{links: `<rs:ln rel="alternate" href="https://example.org/b" modified="2024"/>`, line: 6, want: `modified="2024" is not a full W3C Datetime`},
		{links: `<rs:ln rel="alternate" href="https://example.org/b" length="-1"/>`, line: 6, want: `length="-1" is negative`},
	} {
		doc := strings.NewReplacer("LOC", cmp.Or(tt.loc, loc), "DATETIME", `datetime="`+cmp.Or(tt.dt, "2024-06-01T10:00:00Z")+`"`, "ELEMS", tt.elems, "ATTRS", tt.attrs, "LINKS", tt.links).Replace(list)
		dir := fixture(t, "good")
		testenv.WriteFile(t, dir, "resourcesync/changelist.xml", doc)
		site, err := Read(context.Background(), dir, Options{})
		if err != nil {
			t.Fatalf("%s\n%v", doc, err)
		}
		err = site.OpenChangeList.Check(0)
		var pe *Error
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v, want nil", doc, err)
		case tt.want != "" && (!errors.As(err, &pe) || pe.Kind != ErrInvalid || pe.Line != tt.line || !strings.Contains(err.Error(), tt.want) ||
			!strings.HasSuffix(filepath.ToSlash(pe.Doc), "resourcesync/changelist.xml")):
			t.Errorf("%s: %v, want ErrInvalid on line %d saying %q", doc, err, tt.line, tt.want)
		}
	}
}
