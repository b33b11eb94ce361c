package generator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadSite gives each set the keys of the top it takes: every one but
// describedby, and for a record export none of a tree's history; paths are
// the file's directory's; a mistake is at its line.
func TestReadSite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	f, err := ReadSite(write("ok.toml", "out = \"out\"\ndescribedby = \"https://example.org/a\"\nprevious = \"out\"\nhidden = true\n"+
		"[[set]]\nname = \"a\"\nsource = \"a\"\n[[set]]\nname = \"e\"\nexport = \"e.jsonl\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	a, e := f.Sets[0], f.Sets[1]
	if a.Config.Source != filepath.Join(dir, "a") || a.Config.Changes.Previous != filepath.Join(dir, "out") || !a.Config.Hidden || a.Keys["previous"] != 3 {
		t.Errorf("set a: %+v, keys %v", *a.Config, a.Keys)
	}
	if a.Config.Describedby != "" || e.Config.Changes.Previous != "" || e.Config.Hidden || e.Config.Out != filepath.Join(dir, "out") {
		t.Errorf("set e takes what it does not: %+v", *e.Config)
	}
	for text, want := range map[string]string{
		"[[set]]\nname = \"a\"\nout = \"x\"\n": "bad.toml:3: out applies to the whole site",
		"hidden = 1\n":                         "bad.toml:1: hidden: give true or false",
		"quiet = true\n":                       "bad.toml:1: quiet is not taken from the file: give --quiet",
		"hiden = true\n":                       "bad.toml:1: unknown key hiden (did you mean hidden?)",
	} {
		if _, err := ReadSite(write("bad.toml", text), "quiet"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %s", text, err, want)
		}
	}
}
