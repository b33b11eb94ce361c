package tree

import (
	"path"
	"strings"
	"testing"
)

// PruneDir prunes a directory by the include patterns only when no file
// under it can be published: for every pattern and directory of a table,
// a pruned directory holds no file that Publishes takes, and the sets of a
// shared source that include one part each (articles/**) prune the rest.
func TestPruneDirByInclude(t *testing.T) {
	files := []string{"a.html", "articles/x.html", "articles/2024/y.html", "data/x.csv", "data/articles/z.html",
		"docs/a/b/c.pdf", "docs/x.html", "d{x}/f.txt", "s10/f.txt", "s1/f.txt", "s1/sub/g.txt"}
	patterns := [][]string{{"articles/**"}, {"*.html"}, {"**/*.html"}, {"docs/*/b/*.pdf"}, {"docs/**/*.pdf"},
		{"data/*.csv", "articles/**"}, {"{articles,data}/**"}, {"s1/**"}, {"s?/*"}, {"d\\{x\\}/*"}, {"[ad]*/**"}, {"articles"}}
	for _, include := range patterns {
		f := &Filter{Include: include}
		for _, file := range files {
			for dir := path.Dir(file); dir != "."; dir = path.Dir(dir) {
				if f.PruneDir(path.Base(dir), dir) && f.Publishes(path.Base(file), file) {
					t.Errorf("include %q: %s pruned, yet %s is published", include, dir, file)
				}
			}
		}
	}
	for include, pruned := range map[string][]string{
		"articles/**":    {"data", "docs", "s1"},
		"s1/**":          {"s10", "articles", "data"},
		"*.html":         {"articles", "data"},
		"docs/*/b/*.pdf": {"articles", "docs/a/c", "docs/a/b/d"},
	} {
		f := &Filter{Include: []string{include}}
		for _, dir := range pruned {
			if !f.PruneDir(path.Base(dir), dir) {
				t.Errorf("include %q: %s is walked", include, dir)
			}
		}
		if first, _, _ := strings.Cut(include, "/"); !strings.ContainsAny(first, "*?[{") && f.PruneDir(first, first) {
			t.Errorf("include %q: %s is pruned", include, first)
		}
	}
}

// A walk may start in the directories every include pattern names
// literally before a name of its own.
func TestFilterUnder(t *testing.T) {
	for _, tt := range []struct {
		include []string
		want    string
	}{
		{nil, ""},
		{[]string{"s7/**"}, "s7"},
		{[]string{"docs/2024/*.html"}, "docs/2024"},
		{[]string{"docs/2024/*.html", "docs/2025/**"}, "docs"},
		{[]string{"docs/a/**", "data/**"}, ""},
		{[]string{"a.html"}, ""},
		{[]string{"**/*.html"}, ""},
		{[]string{"a/*/b/**"}, "a"},
		{[]string{"{a,b}/**"}, ""},
		{[]string{"a\\*/**"}, ""},
		{[]string{"../x/**"}, ""},
		{[]string{"docs/**", "docs"}, ""},
	} {
		f := &Filter{Include: tt.include}
		if got := strings.Join(f.under(), "/"); got != tt.want {
			t.Errorf("include %q: start in %q, want %q", tt.include, got, tt.want)
		}
	}
}

// PublishesPath takes a path met whole (an archive's member, an object's
// key) as the walk would: no directory on its way hidden or excluded.
func TestPublishesPath(t *testing.T) {
	f := &Filter{Exclude: []string{"drafts", "**/*.tmp"}}
	for rel, want := range map[string]bool{
		"a.html":          true,
		"docs/a/b.pdf":    true,
		"drafts/x.html":   false, // an excluded directory prunes what it holds
		"docs/x.tmp":      false,
		".git/config":     false, // hidden
		"docs/.hidden/x":  false,
		"docs/.x":         false,
		"draftsman/x.txt": true,
	} {
		if got := f.PublishesPath(rel); got != want {
			t.Errorf("PublishesPath(%q) = %v, want %v", rel, got, want)
		}
	}
}
