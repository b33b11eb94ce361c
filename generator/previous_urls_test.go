package generator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/rsxml"
)

// TestPreviousWithUnescapedURLs: a previous Resource List written by
// another tool, with <loc>s that are not percent-encoded (or encoded
// otherwise), names the same files as rsgen's: unchanged files are not a
// deletion and a creation, and a deletion is published in rsgen's form
// (issue 12, item 4).
func TestPreviousWithUnescapedURLs(t *testing.T) {
	files := map[string]string{"café.txt": "c", "with space.txt": "w", "a+b.txt": "a", "tilde~.txt": "t", "gone é.txt": "g"}
	tr := acNewTree(t, files, acT0)
	out := t.TempDir()
	acBuild(t, acConfig(tr.dir, out, acDay(1)))
	rl := filepath.Join(out, DocsDir, "resourcelist.xml")
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
	).Replace(string(b))
	if s == string(b) || strings.Contains(s, "%2B") {
		t.Fatalf("the Resource List is not what the test expects:\n%s", b)
	}
	if err := os.WriteFile(rl, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	tr.remove("gone é.txt")
	cfg := acConfig(tr.dir, out, acDay(2))
	cfg.Changes.Previous = out
	rep := acBuild(t, cfg)
	if rep.Changes.Created != 0 || rep.Changes.Updated != 0 || rep.Changes.Deleted != 1 {
		t.Errorf("report %+v, want the one file removed deleted and nothing else", rep.Changes)
	}
	_, entries := acReadDoc(t, filepath.Join(out, DocsDir, "changelist.xml"))
	var got []string
	for _, e := range entries {
		got = append(got, e.MD.Change+" "+e.Loc)
	}
	if want := rsxml.ChangeDeleted + " https://example.org/gone%20%C3%A9.txt"; len(got) != 1 || got[0] != want {
		t.Errorf("Change List %q, want [%q]", got, want)
	}
}
