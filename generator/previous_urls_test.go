package generator

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/testenv"
)

// TestPreviousWithUnescapedURLs: a previous Resource List written by
// another tool, with <loc>s that are not percent-encoded (or encoded
// otherwise), names the same files as rsgen's: unchanged files are not a
// deletion and a creation, and a deletion is published in rsgen's form
// (issue 12, item 4).
func TestPreviousWithUnescapedURLs(t *testing.T) {
	t.Parallel()
	files := map[string]string{"café.txt": "c", "with space.txt": "w", "a+b.txt": "a", "tilde~.txt": "t", "gone é.txt": "g", "gone+.txt": "p"}
	tr := acNewTree(t, files, acT0)
	out := t.TempDir()
	mustBuild(t, acConfig(tr.dir, out, acDay(1)))
	rl := filepath.Join(out, docsDir, "resourcelist.xml")
	b, err := os.ReadFile(rl)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.NewReplacer(
		"https://example.org/caf%C3%A9.txt", "https://example.org/café.txt",
		"https://example.org/with%20space.txt", "https://example.org/with space.txt",
		"https://example.org/a%2Bb.txt", "HTTPS://Example.ORG:443/a+b.txt",
		"https://example.org/tilde~.txt", "https://example.org/tilde%7e.txt",
		"https://example.org/gone%20%C3%A9.txt", "https://example.org/gone é.txt",
		"https://example.org/gone%2B.txt", "https://example.org/gone+.txt",
	).Replace(string(b))
	if s == string(b) || strings.Contains(s, "%2B") {
		t.Fatalf("the Resource List is not what the test expects:\n%s", b)
	}
	if err := os.WriteFile(rl, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	tr.remove("gone é.txt")
	tr.remove("gone+.txt")
	cfg := acConfig(tr.dir, out, acDay(2))
	cfg.Changes.Previous = out
	rep := mustBuild(t, cfg)
	if rep.Changes.Created != 0 || rep.Changes.Updated != 0 || rep.Changes.Deleted != 2 {
		t.Errorf("report %+v, want the two files removed deleted and nothing else", rep.Changes)
	}
	_, entries := testenv.ReadDoc(t, filepath.Join(out, docsDir, "changelist.xml"))
	var got []string
	for _, e := range entries {
		got = append(got, e.MD.Change+" "+e.Loc)
	}
	slices.Sort(got)
	want := []string{rsxml.ChangeDeleted + " https://example.org/gone%20%C3%A9.txt", rsxml.ChangeDeleted + " https://example.org/gone%2B.txt"}
	if !slices.Equal(got, want) {
		t.Errorf("Change List %q, want %q", got, want)
	}
}

// A base URL whose path holds reserved characters, escapes or a name given
// raw is published as written (but for what RFC 3986 normalizes), and read
// back from the previous build in the same form: an unchanged rebuild
// finds no change ("+" and "%2B" are different paths, RFC 3986 6.2.2.2;
// the previous build's "a+b/" was read as "a%2Bb/" and every resource was
// deleted and created again).
func TestBaseURLReservedRoundTrip(t *testing.T) {
	t.Parallel()
	files := map[string]string{"f.txt": "f", "a+b/c d.txt": "c", "é@x.txt": "e"}
	for _, p := range [][2]string{
		{"a+b", "a+b"}, {"(x)", "(x)"}, {"@team", "@team"}, {"c++", "c++"}, {"a:b", "a:b"},
		{"!", "!"}, {"$", "$"}, {"&", "&"}, {"'", "'"}, {"*", "*"}, {",", ","}, {";", ";"}, {"=", "="},
		{"x!$&'()*+,;=:@y", "x!$&'()*+,;=:@y"}, {"a%2Bb", "a%2Bb"}, {"caf%C3%A9", "caf%C3%A9"}, {"café", "caf%C3%A9"},
	} {
		t.Run(p[0], func(t *testing.T) {
			t.Parallel()
			tr := acNewTree(t, files, acT0)
			out := t.TempDir()
			base, err := ParseBaseURL("https://example.org/" + p[0] + "/")
			if err != nil {
				t.Fatal(err)
			}
			want := "https://example.org/" + p[1] + "/"
			for day, prev := range []string{"", out} {
				cfg := acConfig(tr.dir, out, acDay(day+1))
				cfg.BaseURL, cfg.Changes.Previous = base, prev
				rep := mustBuild(t, cfg)
				if c := rep.Changes; c != nil && c.Created+c.Updated+c.Deleted != 0 {
					t.Errorf("an unchanged rebuild: %d created, %d updated, %d deleted", c.Created, c.Updated, c.Deleted)
				}
			}
			_, entries := testenv.ReadDoc(t, filepath.Join(out, docsDir, "resourcelist.xml"))
			for _, e := range entries {
				if !strings.HasPrefix(e.Loc, want) {
					t.Errorf("published %s, not under %s", e.Loc, want)
				}
			}
			if len(entries) != len(files) {
				t.Errorf("%d entries, want %d", len(entries), len(files))
			}
		})
	}
}
