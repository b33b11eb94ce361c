package generator

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/templates"
)

// hostOutputs are the files --host and the pages add, relative to the output.
var hostOutputs = append(append([]string(nil), hosting.RootFiles...), hosting.LandingPage, hosting.RobotsLines, hosting.HeadLink)

// TestHostGolden builds the example collection for every host and compares
// each file rsgen writes for them, and the pages, with testdata/golden
// (go test ./generator -run TestHostGolden -update rewrites them).
func TestHostGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, base, docs string
	}{
		{"root", "https://example.org/", ""},
		{"project-pages", "https://user.github.io/project/", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := copySite(t)
			cfg := checkTestConfig(t, src)
			cfg.Source = src
			cfg.BaseURL, _ = ParseBaseURL(tt.base)
			cfg.Hosts = hosting.Hosts
			if _, err := Build(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
			for _, name := range hostOutputs {
				got, err := os.ReadFile(filepath.Join(src, name))
				if err != nil {
					t.Fatal(err)
				}
				golden := filepath.Join("testdata", "golden", tt.name, strings.ReplaceAll(strings.TrimPrefix(name, "."), "/", "_"))
				if *update {
					if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, got, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if string(got) != string(want) {
					t.Errorf("%s differs from %s:\n%s", name, golden, got)
				}
			}
		})
	}
}

func TestHostFilesAreNotContent(t *testing.T) {
	t.Parallel()
	src := copySite(t)
	cfg := checkTestConfig(t, src)
	cfg.Source = src
	cfg.Hosts = hosting.Hosts
	cfg.Filter.Hidden = true // .htaccess and .nojekyll would be published otherwise
	rep, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep2, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files != rep2.Files {
		t.Errorf("the second build published %d files, the first %d: rsgen's own files were taken for content", rep2.Files, rep.Files)
	}
	list, err := os.ReadFile(filepath.Join(src, docsDir, "resourcelist.xml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range hosting.RootFiles {
		if strings.Contains(string(list), "example.org/"+name+"<") {
			t.Errorf("%s is published as content", name)
		}
	}
}

func TestHostFileOfTheUser(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, content, host string
		refused                   bool
	}{
		{"their _headers", hosting.Headers, "/*\n  X-Frame-Options: DENY\n", hosting.Netlify, true},
		{"their .htaccess", hosting.HTAccess, "Options -Indexes\n", hosting.Apache, true},
		{"our _headers", hosting.Headers, "# " + hosting.Marker + " (--host netlify)\n/old\n", hosting.Cloudflare, false},
		{"their _headers, no --host needing it", hosting.Headers, "/*\n  X-Frame-Options: DENY\n", hosting.Nginx, false},
		{"their .nojekyll", hosting.NoJekyll, "theirs\n", hosting.GitHubPages, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			p := filepath.Join(out, tt.file)
			if err := os.WriteFile(p, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := checkTestConfig(t, out)
			cfg.Hosts = []string{tt.host}
			_, err := Build(context.Background(), cfg)
			after, _ := os.ReadFile(p)
			if tt.refused {
				if !errors.Is(err, hosting.ErrNotOurs) {
					t.Fatalf("Build: %v, want a refusal", err)
				}
				if string(after) != tt.content {
					t.Errorf("%s was changed", tt.file)
				}
				if _, err := os.Stat(filepath.Join(out, docsDir)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("something was published: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ours := hosting.Ours(after)
			switch {
			case tt.file == hosting.NoJekyll && string(after) != tt.content:
				t.Errorf("their .nojekyll was replaced")
			case tt.host != hosting.Nginx && tt.file != hosting.NoJekyll && (!ours || strings.Contains(string(after), "/old")):
				t.Errorf("our old %s was not rewritten:\n%s", tt.file, after)
			case tt.host == hosting.Nginx && string(after) != tt.content:
				t.Errorf("%s was touched though no --host needs it", tt.file)
			}
		})
	}
}

func TestTemplateOverride(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	cfg := checkTestConfig(t, out)
	cfg.Hosts = []string{hosting.Netlify}
	cfg.Templates = overlayFS{fstest.MapFS{
		"headers.tmpl":    {Data: []byte("{{.SourceDescriptionPath}}\n  Content-Type: application/xml\n")},
		"robots.txt.tmpl": {Data: []byte("Sitemap: {{.ResourceListURL}}\n")},
	}}
	if _, err := Build(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	headers, _ := os.ReadFile(filepath.Join(out, hosting.Headers))
	if !hosting.Ours(headers) || !strings.Contains(string(headers), "/.well-known/resourcesync\n  Content-Type: application/xml\n") {
		t.Errorf("_headers from the user's template, with rsgen's marker added, is:\n%s", headers)
	}
	robots, _ := os.ReadFile(filepath.Join(out, hosting.RobotsLines))
	if string(robots) != "Sitemap: https://example.org/resourcesync/resourcelist.xml\n" {
		t.Errorf("robots.txt lines from the user's template: %q", robots)
	}
	page, _ := os.ReadFile(filepath.Join(out, hosting.LandingPage))
	if !strings.Contains(string(page), "<h1>ResourceSync</h1>") {
		t.Error("the landing page is not the embedded template's")
	}
}

// overlayFS is templates.Overlay over an fstest.MapFS.
type overlayFS struct{ user fs.FS }

func (o overlayFS) Open(name string) (fs.File, error) {
	if f, err := o.user.Open(name); err == nil {
		return f, nil
	}
	return templates.FS.Open(name)
}

func TestS3ScriptIsShell(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	script := filepath.Join("testdata", "golden", "root", hosting.S3Script)
	if out, err := exec.Command(sh, "-n", script).CombinedOutput(); err != nil {
		t.Errorf("sh -n %s: %v\n%s", script, err, out)
	}
}

// A published file whose name starts with "-" is uploaded as a file, not
// taken by the AWS CLI for an option (--acl=public-read-write…).
func TestS3ScriptNamesLikeOptions(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	src := t.TempDir()
	testenv.WriteFile(t, src, "--acl=public-read-write", "plain text")
	testenv.WriteFile(t, src, "-rf", "plain text")
	fixMtimes(t, src)
	cfg := testConfig(t, src, src)
	cfg.Hosts = []string{hosting.S3}
	mustBuild(t, cfg)
	// A fake aws that writes each invocation's arguments on a line.
	bin := t.TempDir()
	calls := filepath.Join(t.TempDir(), "calls")
	fake := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\t' \"$a\"; done >> " + calls + "\necho >> " + calls + "\n"
	if err := os.WriteFile(filepath.Join(bin, "aws"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sh, filepath.Join(src, hosting.S3Script), "s3://bucket")
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	data, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	copied := 0
	for line := range strings.Lines(string(data)) {
		args := strings.Split(line, "\t")
		if len(args) < 3 || args[0] != "s3" || args[1] != "cp" {
			continue
		}
		if strings.HasPrefix(args[2], "-") {
			t.Errorf("aws %s: the file is taken for an option", strings.Join(args, " "))
		}
		if strings.Contains(args[2], "-rf") || strings.Contains(args[2], "--acl") {
			copied++
		}
	}
	if copied != 2 {
		t.Errorf("the files were copied %d times, want 2:\n%s", copied, data)
	}
}

func TestRobotsTxtIsNeverWritten(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, robots string
		notice       bool
	}{
		{"without the Sitemap line", "User-agent: *\nDisallow: /tmp/\n", true},
		{"with it", "User-agent: *\nSitemap: https://example.org/resourcesync/resourcelist.xml\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			p := filepath.Join(out, "robots.txt")
			if err := os.WriteFile(p, []byte(tt.robots), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := checkTestConfig(t, out)
			var notices []string
			cfg.Notice = func(msg string) { notices = append(notices, msg) }
			if _, err := Build(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(p); string(got) != tt.robots {
				t.Errorf("robots.txt changed to %q", got)
			}
			noticed := strings.Contains(strings.Join(notices, "\n"), "robots.txt does not name the Resource List")
			if noticed != tt.notice {
				t.Errorf("notices %q; want the robots.txt one: %v", notices, tt.notice)
			}
			lines, _ := os.ReadFile(filepath.Join(out, hosting.RobotsLines))
			if !strings.Contains(string(lines), "\nSitemap: https://example.org/resourcesync/resourcelist.xml\n") {
				t.Errorf("%s: %q", hosting.RobotsLines, lines)
			}
		})
	}
}

// With --out outside SOURCE and the documents served where the resources
// are, SOURCE's resourcesync/ and .well-known/resourcesync would have the
// URLs of rsgen's own documents (left over from a build into SOURCE, say):
// they are not content, as for an archive. Served elsewhere, they are.
func TestSourceFilesAtTheURLsOfTheDocuments(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	testenv.WriteFile(t, src, "page.html", "<p>page</p>")
	testenv.WriteFile(t, src, "resourcesync/resourcelist.xml", "<urlset/>")
	testenv.WriteFile(t, src, ".well-known/resourcesync", "<urlset/>")
	testenv.WriteFile(t, src, ".well-known/security.txt", "Contact: x")
	fixMtimes(t, src)
	for _, tt := range []struct {
		docs string
		want []string
	}{
		{"", []string{".well-known/security.txt", "page.html"}},
		{"https://example.org/rs/", []string{".well-known/resourcesync", ".well-known/security.txt", "page.html", "resourcesync/resourcelist.xml"}},
	} {
		t.Run("docs at "+tt.docs, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			cfg := testConfig(t, src, out)
			cfg.Filter.Hidden = true
			if tt.docs != "" {
				cfg.DocsURL = mustBaseURL(t, tt.docs)
			}
			mustBuild(t, cfg)
			f, err := os.Open(filepath.Join(out, docsDir, "resourcelist.xml"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			_, entries, err := rsxml.ReadAll(f, rsxml.ReadOptions{MaxBytes: rsxml.MaxBytes})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range entries {
				got = append(got, strings.TrimPrefix(e.Loc, "https://example.org/"))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("published %q, want %q", got, tt.want)
			}
		})
	}
}

// A user's _headers whose block for rsgen is broken is refused, unchanged,
// with errors the CLI's hint reads (hostfiles.TestHeadersMergedInBlock
// shows one merged in its block, TestCloudflareRuleLimitCountsTheUsersRules
// the rules counted with the user's).
func TestHostFileBrokenBlock(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	p := filepath.Join(out, hosting.Headers)
	broken := "/*\n  X-Frame-Options: DENY\n# BEGIN rsgen\n"
	if err := os.WriteFile(p, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := checkTestConfig(t, out)
	cfg.Hosts = []string{hosting.Netlify}
	if _, err := Build(context.Background(), cfg); !errors.Is(err, hosting.ErrNotOurs) {
		t.Fatalf("Build with a broken block: %v, want hosting.ErrNotOurs (the CLI hint reads it)", err)
	}
	if got, _ := os.ReadFile(p); string(got) != broken {
		t.Errorf("_headers was changed:\n%s", got)
	}
}
