package hosting

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseHosts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   []string
		want []string
		bad  bool
	}{
		{nil, nil, false},
		{[]string{"nginx"}, []string{Nginx}, false},
		{[]string{"s3,Netlify", " github-pages ", "nginx,s3"}, []string{GitHubPages, Netlify, Nginx, S3}, false},
		{[]string{"netlify,,"}, []string{Netlify}, false},
		{[]string{"vercel"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.in, "|"), func(t *testing.T) {
			got, err := ParseHosts(tt.in)
			if (err != nil) != tt.bad || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseHosts = %v, %v; want %v (error %v)", got, err, tt.want, tt.bad)
			}
		})
	}
}

func TestOurs(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"# Written by rsgen (--host netlify)\n/x\n":        true,
		"#!/bin/sh\n# Written by rsgen (--host s3)\n":      true,
		"/*\n  X-Frame-Options: DENY\n":                    false,
		"a\nb\nc\n# Written by rsgen, too late to count\n": false,
		"": false,
	}
	for in, want := range tests {
		if got := Ours([]byte(in)); got != want {
			t.Errorf("Ours(%q) = %v, want %v", in, got, want)
		}
		if want {
			continue
		}
		if marked := addMarker([]byte(in)); !Ours(marked) || !strings.HasSuffix(string(marked), in) {
			t.Errorf("addMarker(%q) = %q", in, marked)
		}
	}
	if got := string(addMarker([]byte("#!/bin/sh\necho hi\n"))); !strings.HasPrefix(got, "#!/bin/sh\n# Written by rsgen") {
		t.Errorf("the marker must follow the #! line: %q", got)
	}
}

// A user's file merged once keeps rsgen's marker near its top. If its
// block is later broken (a second BEGIN, an END deleted), it must still
// count as the user's: overwriting it would lose their own rules.
func TestOursBrokenBlock(t *testing.T) {
	t.Parallel()
	merged, ok := Merge([]byte("# BEGIN rsgen\n# END rsgen\n/custom\n  X-Mine: keep\n"), []byte("# Written by rsgen (--host netlify)\n/x\n"))
	if !ok {
		t.Fatal("Merge refused an empty block")
	}
	for name, data := range map[string]string{
		"second begin":  string(merged) + "# BEGIN rsgen\n",
		"end deleted":   strings.Replace(string(merged), "# END rsgen\n", "", 1),
		"begin deleted": strings.Replace(string(merged), "# BEGIN rsgen\n", "", 1),
	} {
		if Ours([]byte(data)) {
			t.Errorf("%s: Ours = true for a user's file with a broken block: the next build would overwrite it", name)
		}
		out := t.TempDir()
		if err := os.WriteFile(filepath.Join(out, Headers), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := CheckConflicts(out, []string{Netlify}); err == nil {
			t.Errorf("%s: CheckConflicts = nil, want the broken block named as a conflict", name)
		}
	}
}

func TestCheckConflicts(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(out, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(Headers, "/*\n  X-Frame-Options: DENY\n")
	write(NginxConf, "# Written by rsgen (--host nginx)\n")
	write(NoJekyll, "")
	if err := CheckConflicts(out, []string{GitHubPages, Nginx, Apache}); err != nil {
		t.Errorf("no conflict expected: %v", err)
	}
	err := CheckConflicts(out, []string{Cloudflare})
	if err == nil || !strings.Contains(err.Error(), Headers) {
		t.Errorf("CheckConflicts = %v, want their _headers named", err)
	}
}

// A user's file past maxConfig (sparse: nothing is read) is named with
// why rsgen refuses it, by the check and by the writer alike.
func TestConfigTooLarge(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, Headers), []byte(BlockBegin+"\n"+BlockEnd+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(out, Headers), maxConfig+1); err != nil {
		t.Fatal(err)
	}
	_, merr := Merged(out, Headers, nil)
	for _, err := range []error{CheckConflicts(out, []string{Netlify}), merr} {
		if err == nil || !strings.Contains(err.Error(), Headers) || !strings.Contains(err.Error(), "not a configuration file rsgen can merge into") {
			t.Errorf("error = %v, want _headers named as too large to merge into", err)
		}
	}
}

func TestShquote(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"data/a.txt": "data/a.txt", "annual report/README": "'annual report/README'", "it's": `'it'\''s'`, "": "''", "$HOME": "'$HOME'",
	} {
		if got := shquote(in); got != want {
			t.Errorf("shquote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestUploadedTyped(t *testing.T) {
	t.Parallel()
	var got []TypedFile
	for _, f := range []TypedFile{
		{"a.html", "text/html"}, {"b.PNG", "image/png"}, {"c.jsonl", "application/jsonl"},
		{"README", "text/plain"}, {"d.xml", "application/xml"}, {"e.txt", ""},
		// Published hidden files (--hidden): the site's sync leaves them out.
		{".well-known/security.txt", "text/plain"}, {"a/.b/c.html", "text/html"},
	} {
		if UploadedTyped(f) {
			got = append(got, f)
		}
	}
	want := []TypedFile{{"c.jsonl", "application/jsonl"}, {"README", "text/plain"}, {"d.xml", "application/xml"},
		{".well-known/security.txt", "text/plain"}, {"a/.b/c.html", "text/html"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("uploaded typed: %v, want %v", got, want)
	}
}

func TestAWSGlob(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"a/b.txt":       "a/b.txt",
		"odd [1]*?.txt": "odd [[]1][*][?].txt",
		"-rf":           "-rf",
	} {
		if got := awsGlob(in); got != want {
			t.Errorf("awsGlob(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	ours := "# Written by rsgen\n/x\n  Content-Type: application/xml\n"
	tests := []struct {
		name, theirs, want string
		ok                 bool
	}{
		{"block in the middle", "/*\n  X-Frame-Options: DENY\n# BEGIN rsgen\nold\n# END rsgen\n/a\n  B: c\n",
			"/*\n  X-Frame-Options: DENY\n# BEGIN rsgen\n" + ours + "# END rsgen\n/a\n  B: c\n", true},
		{"empty block first, CRLF, no final newline", "# BEGIN rsgen\r\n# END rsgen",
			"# BEGIN rsgen\r\n" + strings.ReplaceAll(ours, "\n", "\r\n") + "# END rsgen", true},
		{"CRLF around an LF block", "/*\r\n  A: b\r\n# BEGIN rsgen\r\nold\r\n# END rsgen\r\n",
			"/*\r\n  A: b\r\n# BEGIN rsgen\r\n" + strings.ReplaceAll(ours, "\n", "\r\n") + "# END rsgen\r\n", true},
		{"indented markers", "  # BEGIN rsgen\n  # END rsgen\n", "  # BEGIN rsgen\n" + ours + "  # END rsgen\n", true},
		{"no block", "/*\n  X-Frame-Options: DENY\n", "", false},
		{"no end", "# BEGIN rsgen\n/*\n", "", false},
		{"end first", "# END rsgen\n# BEGIN rsgen\n", "", false},
		{"two blocks", "# BEGIN rsgen\n# END rsgen\n# BEGIN rsgen\n# END rsgen\n", "", false},
		{"a marker inside a line", "/x # BEGIN rsgen\n# END rsgen\n", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Merge([]byte(tt.theirs), []byte(ours))
			if ok != tt.ok || string(got) != tt.want {
				t.Errorf("Merge = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
			if ok && Ours(got) {
				t.Errorf("the merged file counts as rsgen's: the next build would overwrite it")
			}
		})
	}
}

func TestHeaderRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		data string
		want int
	}{
		{"", 0},
		{"# only a comment\n\n", 0},
		{"/a\n  Content-Type: application/xml\n/b\n  X: y\n", 2},
		{"/a\r\n  X: y\r\n\r\n# c\r\n/b\r\n\tX: y\r\n", 2},
		{"/*\n  X-Frame-Options: DENY\n# BEGIN rsgen\n/x\n  A: b\n# END rsgen\nhttps://example.org/*\n  B: c", 3},
	}
	for _, tt := range tests {
		if got := HeaderRules([]byte(tt.data)); got != tt.want {
			t.Errorf("HeaderRules(%q) = %d, want %d", tt.data, got, tt.want)
		}
	}
}

// TestConfigThroughLink: a _headers or .htaccess in the output (often
// SOURCE, which anyone with commit rights shapes) that is a symbolic link
// is never read through: merging rsgen's block into the file it leads to
// would publish the bytes of a file outside the output.
func TestConfigThroughLink(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "their.htaccess")
	if err := os.WriteFile(outside, []byte("SECRET\n# BEGIN rsgen\n# END rsgen\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{Headers, HTAccess} {
		out := t.TempDir()
		if err := os.Symlink(outside, filepath.Join(out, name)); err != nil {
			t.Skip(err)
		}
		if data, err := readConfig(filepath.Join(out, name)); err == nil {
			t.Errorf("readConfig read %q through a symbolic link, want an error", data)
		}
		err := CheckConflicts(out, []string{Netlify, Apache})
		if !errors.Is(err, ErrNotOurs) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: CheckConflicts = %v, want the link named as a conflict", name, err)
		}
	}
}

// Merged is what a build stages: rsgen's bytes, or a user's file with them
// in its block; a user's file whose block went away since CheckConflicts
// is refused.
func TestMerged(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	ours := []byte("# " + Marker + "\n/x\n")
	for _, tt := range []struct {
		name, theirs, want string
		refused            bool
	}{
		{Headers, "", string(ours), false},
		{Headers, "/a\n  X: y\n" + BlockBegin + "\nold\n" + BlockEnd + "\n", "/a\n  X: y\n" + BlockBegin + "\n" + string(ours) + BlockEnd + "\n", false},
		{HTAccess, "# " + Marker + "\nold\n", string(ours), false},
		{HTAccess, "Options -Indexes\n", "", true},
		{NginxConf, "the user's\n", string(ours), false}, // not mergeable: CheckConflicts refuses it first
	} {
		p := filepath.Join(out, tt.name)
		os.Remove(p)
		if tt.theirs != "" {
			if err := os.WriteFile(p, []byte(tt.theirs), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := Merged(out, tt.name, ours)
		if tt.refused != errors.Is(err, ErrNotOurs) || (!tt.refused && (err != nil || string(got) != tt.want)) {
			t.Errorf("Merged %s over %q = %q, %v; want %q (refused %v)", tt.name, tt.theirs, got, err, tt.want, tt.refused)
		}
	}
}
