package previous

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/testenv"
)

// fixture copies testdata/name into a temporary directory: good, a
// previous build as rsgen publishes it; dump, one with a Change Dump;
// archive, one with a Change List Archive of two lists.
func fixture(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", name))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// edit replaces the first occurrence of old by new in the file rel of dir.
func edit(t *testing.T, dir, rel, old, new string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not contain %q", rel, old)
	}
	testenv.WriteFile(t, dir, rel, strings.Replace(string(b), old, new, 1))
}

// listData reads the bytes of cl with OpenList.
func listData(t *testing.T, site *Site, cl *ChangeList) []byte {
	t.Helper()
	rc, err := site.OpenList(context.Background(), cl)
	if err != nil {
		t.Fatalf("OpenList(%s): %v", cl.URL, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("reading %s again: %v", cl.URL, err)
	}
	return b
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

func TestReadDirectory(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "good")
	var notices []string
	site, err := readAll(context.Background(), dir, Options{At: mustTime(t, "2024-06-03T00:00:00Z"), Notice: func(m string) { notices = append(notices, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if site.DocsBase != "https://example.org/" || site.CapabilityList != "https://example.org/resourcesync/capabilitylist.xml" {
		t.Errorf("DocsBase %q, CapabilityList %q", site.DocsBase, site.CapabilityList)
	}
	if !site.At.Equal(mustTime(t, "2024-06-03T00:00:00Z")) {
		t.Errorf("At = %v", site.At)
	}
	if len(site.Resources) != 9 {
		t.Fatalf("%d resources, want 9", len(site.Resources))
	}
	i, ok := site.index("https://example.org/index.html")
	if !ok {
		t.Fatal("index.html not found")
	}
	r := site.Resources[i]
	if r.Length != 392 || r.Type != "text/html" || !r.Lastmod.Equal(mustTime(t, "2024-06-02T06:30:00Z")) ||
		hashing.FormatTokens(r.Hash) != "sha-256:caa40fb52882082aaca9f96ffb95f23169cc47b71ca5252a417fd06b948c6387" {
		t.Errorf("index.html read as %+v", r)
	}
	if _, ok := site.index("https://example.org/data/empty.txt"); ok {
		t.Error("a resource deleted before the last build was read")
	}
	if len(site.ChangeLists) != 2 {
		t.Fatalf("%d change lists, want 2", len(site.ChangeLists))
	}
	for k, want := range []struct{ rel, from, until string }{
		{"resourcesync/changelist-20240602T000000Z.xml", "2024-06-01T00:00:00Z", "2024-06-02T00:00:00Z"},
		{"resourcesync/changelist-20240603T000000Z.xml", "2024-06-02T00:00:00Z", "2024-06-03T00:00:00Z"},
	} {
		cl := site.ChangeLists[k]
		data, err := os.ReadFile(filepath.Join(dir, want.rel))
		if err != nil {
			t.Fatal(err)
		}
		if got := listData(t, site.Site, &cl); cl.Rel != want.rel || !cl.From.Equal(mustTime(t, want.from)) || !cl.Until.Equal(mustTime(t, want.until)) || string(got) != string(data) || cl.Bytes != int64(len(data)) {
			t.Errorf("change list %d: %s %v %v (%d bytes), want %+v", k, cl.Rel, cl.From, cl.Until, cl.Bytes, want)
		}
	}
	if site.ChangeDump != nil {
		t.Error("a Change Dump where there is none")
	}
	if len(notices) != 0 {
		t.Errorf("notices: %q", notices)
	}
}

func TestReadOpenChangeListIsNotCarried(t *testing.T) {
	t.Parallel()
	dir := fixture(t, "good")
	edit(t, dir, "resourcesync/changelist-20240603T000000Z.xml", ` until="2024-06-03T00:00:00Z"`, "")
	edit(t, dir, "resourcesync/changelist.xml", `from="2024-06-02T00:00:00Z" until="2024-06-03T00:00:00Z"`, `from="2024-06-02T00:00:00Z"`)
	var notices []string
	site, err := readAll(context.Background(), dir, Options{Notice: func(m string) { notices = append(notices, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(site.ChangeLists) != 1 || len(notices) != 1 || !strings.Contains(notices[0], "open Change List") {
		t.Errorf("%d lists, notices %q", len(site.ChangeLists), notices)
	}
}

// An open Change List that the Capability List points at (rsgen's
// changelist.xml while the history fits one document) is kept whole: its
// changes run to the Resource List's snapshot, and none may be later.
func TestReadOpenChangeList(t *testing.T) {
	t.Parallel()
	const open = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">
  <rs:ln rel="up" href="https://example.org/resourcesync/capabilitylist.xml"/>
  <rs:md capability="changelist" from="2024-06-01T00:00:00Z"/>
  <url><loc>https://example.org/a.txt</loc><rs:md change="created" datetime="2024-06-01T10:00:00Z"/></url>
  <url><loc>https://example.org/a.txt</loc><rs:md change="updated" datetime="DT"/></url>
</urlset>
`
	dir := fixture(t, "good")
	testenv.WriteFile(t, dir, "resourcesync/changelist.xml", strings.Replace(open, "DT", "2024-06-03T00:00:00Z", 1))
	site, err := readAll(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cl := site.OpenChangeList
	if len(site.ChangeLists) != 0 || cl == nil || cl.Rel != "resourcesync/changelist.xml" || cl.Entries != 2 ||
		!cl.From.Equal(mustTime(t, "2024-06-01T00:00:00Z")) || !cl.Until.IsZero() || !strings.Contains(string(listData(t, site.Site, cl)), "2024-06-01T10:00:00Z") {
		t.Errorf("closed lists %v, open list %+v", site.ChangeLists, cl)
	}
	testenv.WriteFile(t, dir, "resourcesync/changelist.xml", strings.Replace(open, "DT", "2024-06-03T00:00:01Z", 1))
	if _, err := readAll(context.Background(), dir, Options{}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "after the snapshot time") {
		t.Errorf("a change after the snapshot: %v", err)
	}
	// A bad length is not refused by Read, but by Check of the entries a
	// build publishes again: the second alone is good.
	bad := strings.Replace(strings.Replace(open, "DT", "2024-06-03T00:00:00Z", 1), `10:00:00Z"/>`, `10:00:00Z" length="-1"/>`, 1)
	testenv.WriteFile(t, dir, "resourcesync/changelist.xml", bad)
	if site, err = readAll(context.Background(), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	cl = site.OpenChangeList
	if err := cl.Check(0); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `changelist.xml line 5: the entry of https://example.org/a.txt: length="-1" is negative`) {
		t.Errorf("Check(0) = %v", err)
	}
	if err := cl.Check(1); err != nil {
		t.Errorf("Check(1) = %v, want nil", err)
	}
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	const (
		part1 = "resourcesync/resourcelist-00001.xml"
		part2 = "resourcesync/resourcelist-00002.xml"
		cl2   = "resourcesync/changelist-20240603T000000Z.xml"
		index = "resourcesync/changelist.xml"
		caps  = "resourcesync/capabilitylist.xml"
	)
	tests := []struct {
		name     string
		mutate   func(t *testing.T, dir string)
		location func(dir string) string // default: dir
		opts     Options
		kind     error
		doc      string // suffix of Error.Doc
		line     int
		msg      string // in the message
	}{
		{name: "no directory", location: func(dir string) string { return filepath.Join(dir, "nope") },
			kind: ErrUnreachable, doc: "nope", msg: "no such file"},
		{name: "a file, not a directory", location: func(dir string) string { return filepath.Join(dir, caps) },
			kind: ErrUnreachable, doc: "capabilitylist.xml", msg: "not a directory"},
		{name: "no source description", mutate: func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, ".well-known/resourcesync")) },
			kind: ErrUnreachable, doc: ".well-known/resourcesync", msg: "no such file"},
		{name: "an HTML page", mutate: func(t *testing.T, dir string) {
			testenv.WriteFile(t, dir, ".well-known/resourcesync", "<!DOCTYPE html>\n<html><body>Not found</body></html>\n")
		}, kind: ErrNotResourceSync, doc: ".well-known/resourcesync", line: 1, msg: "DOCTYPE"},
		{name: "another vocabulary", mutate: func(t *testing.T, dir string) {
			testenv.WriteFile(t, dir, ".well-known/resourcesync", `<?xml version="1.0"?>`+"\n"+`<feed xmlns="http://www.w3.org/2005/Atom"/>`)
		}, kind: ErrNotResourceSync, doc: ".well-known/resourcesync", line: 2, msg: "root element is <feed>"},
		{name: "a plain sitemap", mutate: func(t *testing.T, dir string) {
			testenv.WriteFile(t, dir, ".well-known/resourcesync", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.org/</loc></url></urlset>`)
		}, kind: ErrNotResourceSync, doc: ".well-known/resourcesync", msg: "the root has no <rs:md>"},
		{name: "entities", mutate: func(t *testing.T, dir string) {
			testenv.WriteFile(t, dir, part1, `<?xml version="1.0"?>`+"\n"+`<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]>`+"\n"+`<urlset>&lol2;</urlset>`)
		}, kind: ErrNotResourceSync, doc: part1, line: 2, msg: "DOCTYPE"},
		{name: "wrong capability", mutate: func(t *testing.T, dir string) {
			edit(t, dir, caps, `<rs:md capability="capabilitylist"/>`, `<rs:md capability="resourcelist" at="2024-06-03T00:00:00Z"/>`)
		}, kind: ErrCapability, doc: caps, msg: `capability "resourcelist" where "capabilitylist" was expected`},
		{name: "a part of another capability", mutate: func(t *testing.T, dir string) {
			edit(t, dir, part2, `capability="resourcelist"`, `capability="resourcedump"`)
		}, kind: ErrCapability, doc: part2},
		{name: "malformed XML", mutate: func(t *testing.T, dir string) {
			edit(t, dir, part2, "</lastmod>\n    <rs:md hash=\"sha-256:40b7", "</lastmod>\n    <rs:md hash=\"sha-256:40b7\" </url>")
		}, kind: ErrMalformed, doc: part2, line: 15, msg: "not well-formed"},
		{name: "truncated", mutate: func(t *testing.T, dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, part2))
			testenv.WriteFile(t, dir, part2, string(b[:len(b)/2]))
		}, kind: ErrMalformed, doc: part2, line: 13, msg: "unexpected EOF"},
		{name: "over the byte limit", opts: Options{maxBytes: 1000}, kind: ErrLimit, doc: part1, msg: "1000"},
		{name: "over the entry limit", opts: Options{maxEntries: 3}, kind: ErrLimit, doc: part1, line: 22, msg: "more than the 3 entries"},
		{name: "over the change list byte limit", opts: Options{maxChangeListBytes: 1000}, kind: ErrLimit, doc: cl2, msg: "2 so far, are more than 1000 bytes together"},
		{name: "over the change list byte limit at the first", opts: Options{maxChangeListBytes: 500}, kind: ErrLimit, doc: "changelist-20240602T000000Z.xml", msg: "1 so far, are more than 500 bytes"},
		{name: "over the resource limit", opts: Options{maxResources: 5}, kind: ErrLimit, doc: part2, line: 12, msg: "more than 5 resources"},
		{name: "previous snapshot later", opts: Options{At: time.Date(2024, 6, 2, 23, 59, 59, 0, time.UTC)},
			kind: ErrLater, doc: "resourcesync/resourcelist.xml", msg: "taken at 2024-06-03T00:00:00Z, later than this build's snapshot time 2024-06-02T23:59:59Z"},
		{name: "no at", mutate: func(t *testing.T, dir string) {
			edit(t, dir, "resourcesync/resourcelist.xml", ` at="2024-06-03T00:00:00Z"`, "")
		}, kind: ErrInvalid, doc: "resourcesync/resourcelist.xml", msg: "needs at on its root"},
		{name: "a malformed at", mutate: func(t *testing.T, dir string) {
			edit(t, dir, "resourcesync/resourcelist.xml", `at="2024-06-03T00:00:00Z"`, `at="yesterday"`)
		}, kind: ErrInvalid, doc: "resourcesync/resourcelist.xml", msg: "not a W3C Datetime"},
		{name: "a malformed lastmod", mutate: func(t *testing.T, dir string) {
			edit(t, dir, part2, "<lastmod>2024-01-01T00:00:00Z", "<lastmod>2024-13-01T00:00:00Z")
		}, kind: ErrInvalid, doc: part2, line: 7, msg: "lastmod"},
		{name: "a malformed hash", mutate: func(t *testing.T, dir string) {
			edit(t, dir, part2, "sha-256:40b7cd15101faf5439ae1a6892f215ebf0f789bd894d791926465355f98c9644", "sha-256:40b7")
		}, kind: ErrInvalid, doc: part2, line: 12, msg: "64 hex digits"},
		{name: "a malformed length", mutate: func(t *testing.T, dir string) {
			edit(t, dir, part2, `length="79"`, `length="-79"`)
		}, kind: ErrInvalid, doc: part2, line: 12, msg: "is negative"},
		{name: "a resource listed twice", mutate: func(t *testing.T, dir string) {
			edit(t, dir, part2, "https://example.org/images/logo.png", "https://example.org/index.html")
		}, kind: ErrInvalid, doc: part2, line: 22, msg: "listed twice"},
		{name: "a document outside the directory", mutate: func(t *testing.T, dir string) {
			edit(t, dir, caps, "https://example.org/resourcesync/resourcelist.xml", "https://example.org/../../../../etc/passwd")
		}, kind: ErrUnreachable, doc: "etc/passwd", msg: "leads outside"},
		{name: "a document on another site", mutate: func(t *testing.T, dir string) {
			edit(t, dir, caps, "https://example.org/resourcesync/resourcelist.xml", "https://elsewhere.example/resourcelist.xml")
		}, kind: ErrUnreachable, doc: "https://elsewhere.example/resourcelist.xml", msg: "is not under https://example.org/"},
		{name: "no capability list", mutate: func(t *testing.T, dir string) {
			edit(t, dir, ".well-known/resourcesync", `capability="capabilitylist"`, `capability="resourcelist"`)
		}, kind: ErrInvalid, doc: ".well-known/resourcesync", msg: "no Capability List"},
		{name: "no resource list", mutate: func(t *testing.T, dir string) {
			edit(t, dir, caps, `<rs:md capability="resourcelist"/>`, `<rs:md capability="resourcedump"/>`)
		}, kind: ErrInvalid, doc: caps, msg: "no Resource List"},
		{name: "a capability twice", mutate: func(t *testing.T, dir string) {
			edit(t, dir, caps, `<rs:md capability="changelist"/>`, `<rs:md capability="resourcelist"/>`)
		}, kind: ErrInvalid, doc: caps, line: 10, msg: `capability="resourcelist" is listed again`},
		{name: "an index that lists itself", mutate: func(t *testing.T, dir string) {
			edit(t, dir, index, "https://example.org/resourcesync/changelist-20240602T000000Z.xml", "https://example.org/resourcesync/changelist.xml")
		}, kind: ErrInvalid, doc: index, msg: "listed twice (a loop"},
		{name: "changes out of order", mutate: func(t *testing.T, dir string) {
			edit(t, dir, cl2, `datetime="2024-06-02T06:30:00Z"`, `datetime="2024-06-03T00:00:00Z"`)
			edit(t, dir, cl2, `change="deleted" datetime="2024-06-03T00:00:00Z"`, `change="deleted" datetime="2024-06-02T01:00:00Z"`)
		}, kind: ErrInvalid, doc: cl2, line: 12, msg: "entries go oldest first"},
		{name: "a change at no datetime", mutate: func(t *testing.T, dir string) {
			edit(t, dir, cl2, `datetime="2024-06-02T06:30:00Z"`, `datetime="soon"`)
		}, kind: ErrInvalid, doc: cl2, line: 7, msg: `<rs:md>: datetime="soon" is not a full W3C Datetime`},
		{name: "a change outside its list", mutate: func(t *testing.T, dir string) {
			edit(t, dir, cl2, `datetime="2024-06-02T06:30:00Z"`, `datetime="2024-06-01T06:30:00Z"`)
		}, kind: ErrInvalid, doc: cl2, line: 7, msg: "the document's from"},
		{name: "a change outside a list of year 1", mutate: func(t *testing.T, dir string) {
			const cl1, year1 = "resourcesync/changelist-20240602T000000Z.xml", `from="0001-01-01T00:00:00Z" until="0001-01-01T00:00:00Z"`
			edit(t, dir, index, `<rs:md from="2024-06-01T00:00:00Z" until="2024-06-02T00:00:00Z"/>`, `<rs:md/>`)
			edit(t, dir, cl1, `from="2024-06-01T00:00:00Z" until="2024-06-02T00:00:00Z"`, year1)
		}, kind: ErrInvalid, doc: "changelist-20240602T000000Z.xml", line: 7, msg: "is after the document's until=0001-01-01T00:00:00Z"},
		{name: "an unknown change", mutate: func(t *testing.T, dir string) {
			edit(t, dir, cl2, `change="updated"`, `change="modified"`)
		}, kind: ErrInvalid, doc: cl2, line: 7, msg: `change="modified"`},
		{name: "an index that disagrees with its list", mutate: func(t *testing.T, dir string) {
			edit(t, dir, index, `until="2024-06-02T00:00:00Z"`, `until="2024-06-02T12:00:00Z"`)
		}, kind: ErrInvalid, doc: "changelist-20240602T000000Z.xml", msg: "but its index says 2024-06-02T12:00:00Z"},
		{name: "lists that overlap", mutate: func(t *testing.T, dir string) {
			edit(t, dir, index, `from="2024-06-02T00:00:00Z" until="2024-06-03T00:00:00Z"`, `from="2024-06-01T12:00:00Z" until="2024-06-03T00:00:00Z"`)
			edit(t, dir, cl2, `from="2024-06-02T00:00:00Z"`, `from="2024-06-01T12:00:00Z"`)
		}, kind: ErrInvalid, doc: cl2, msg: "may not overlap"},
		{name: "a list after the snapshot", mutate: func(t *testing.T, dir string) {
			edit(t, dir, index, `until="2024-06-03T00:00:00Z"/>`+"\n  </sitemap>", `until="2024-06-04T00:00:00Z"/>`+"\n  </sitemap>")
			edit(t, dir, cl2, `until="2024-06-03T00:00:00Z"`, `until="2024-06-04T00:00:00Z"`)
		}, kind: ErrInvalid, doc: cl2, msg: "after the snapshot time of the Resource List"},
		{name: "a change list without from", mutate: func(t *testing.T, dir string) {
			edit(t, dir, cl2, ` from="2024-06-02T00:00:00Z"`, "")
		}, kind: ErrInvalid, doc: cl2, msg: "needs from on its root"},
		{name: "a URL that is not http", location: func(string) string { return "ftp://example.org/" },
			kind: ErrInvalid, doc: "ftp://example.org/", msg: "only http and https"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fixture(t, "good")
			if tt.mutate != nil {
				tt.mutate(t, dir)
			}
			loc := dir
			if tt.location != nil {
				loc = tt.location(dir)
			}
			site, err := readAll(context.Background(), loc, tt.opts)
			if err == nil {
				t.Fatalf("read %d resources, want an error", len(site.Resources))
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("error %q is of kind %v, want %v", err, pe.Kind, tt.kind)
			}
			if !strings.HasSuffix(filepath.ToSlash(pe.Doc), tt.doc) {
				t.Errorf("error names %q, want …%s", pe.Doc, tt.doc)
			}
			if tt.line != 0 && pe.Line != tt.line {
				t.Errorf("error at line %d, want %d: %v", pe.Line, tt.line, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not say %q", err, tt.msg)
			}
		})
	}
}

// A document of the previous directory that is a symbolic link leading
// outside it (or under a directory that is one) is refused, not read: a
// build would publish its bytes again. A link inside the directory is
// followed.
func TestReadDirectorySymlinkOutside(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	for _, tc := range []struct {
		name string
		set  func(t *testing.T, dir string)
		ok   bool
	}{
		{"a list linked outside", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "resourcesync", "changelist-20240602T000000Z.xml")
			data, _ := os.ReadFile(p)
			os.WriteFile(filepath.Join(outside, "cl.xml"), data, 0o644)
			os.Remove(p)
			if err := os.Symlink(filepath.Join(outside, "cl.xml"), p); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"the documents' directory linked outside", func(t *testing.T, dir string) {
			docs := filepath.Join(dir, "resourcesync")
			moved := filepath.Join(outside, "docs")
			if err := os.Rename(docs, moved); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(moved, docs); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a list linked inside", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "resourcesync", "changelist-20240602T000000Z.xml")
			if err := os.Rename(p, filepath.Join(dir, "cl.xml")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../cl.xml", p); err != nil {
				t.Fatal(err)
			}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fixture(t, "good")
			tc.set(t, dir)
			_, err := readAll(context.Background(), dir, Options{At: mustTime(t, "2024-06-03T00:00:00Z")})
			if tc.ok != (err == nil) || err != nil && !errors.Is(err, ErrUnreachable) {
				t.Errorf("Read: %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

// TestParseLocationRedacts: a location refused for credentials written
// into it, or for not being a URL, does not repeat the secret.
func TestParseLocationRedacts(t *testing.T) {
	t.Parallel()
	for _, loc := range []string{
		"s3://AKIA:s3cr/et@bucket/prefix/",
		"s3://AKIA:s3cret@bucket/",
		"https://user:s3cret@example.org/",
		"https://user:s3c%zzret@example.org/",
	} {
		_, err := ParseLocation(loc)
		if err == nil || strings.Contains(err.Error(), "s3cr") || strings.Contains(err.Error(), "AKIA") {
			t.Errorf("ParseLocation(%q): %v, want an error without the credentials", loc, err)
		}
	}
}
