package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// exportMessage is the form of every line rsgen prints on stderr.
var exportMessage = regexp.MustCompile(`^rsgen: (error|hint|skipped|notice|warning|published) .*[^.]$|^rsgen: (reading the export|checking the documents): (started|(done in|stopped after) .*)$|^rsgen: (error|hint|skipped|notice|warning): [^A-Z].*[^.]$`)

func TestCLIExport(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	absolute := write("abs.jsonl", `{"loc":"https://example.org/a","lastmod":"2024-05-30T00:00:00Z"}`+"\n"+
		`{"loc":"https://example.org/b","lastmod":"2024-05-31T00:00:00+02:00","status":"draft"}`+"\n")
	relative := write("rel.jsonl", `{"loc":"https://example.org/a","lastmod":"2024-05-30T00:00:00Z"}`+"\n"+`{"loc":"b","lastmod":"2024-05-30T00:00:00Z"}`+"\n")
	csvBad := write("bad.csv", "loc,title\na,b\n")
	noTime := write("notime.csv", "loc,lastmod\nhttps://example.org/a,\n")
	other := write("records.txt", `{"loc":"https://example.org/a"}`)
	archive := filepath.Join(dir, "site.tgz")
	os.WriteFile(archive, nil, 0o644)
	at := "--at=2024-06-01T00:00:00Z"
	// keys writes a configuration file of one set, the export file, with
	// the keys lines, and returns the flag that reads it.
	keys := func(name, export string, lines ...string) string {
		return "--config=" + write(name, "export = \""+export+"\"\n"+strings.Join(lines, "\n")+"\n")
	}

	tests := []struct {
		name   string
		args   []string
		code   int
		stderr []string // in this order
		output string   // a file the output must have, or "-" for no output at all
		noOut  bool     // give no --out
	}{
		{"absolute locs need no base", []string{"build", at, "--docs-url", "https://example.org/", "--export", absolute},
			0, []string{"rsgen: published 1 record (0 B) from " + absolute + " in 4 documents to OUT in", "1 draft not published, 1 change since 2024-05-02T00:00:00Z"}, "resourcesync/changelist.xml", false},
		{"relative loc without base", []string{"build", at, "--docs-url", "https://example.org/", "--export", relative},
			1, []string{"rsgen: error: " + relative + `:2: loc: "b" is a relative path and no base URL is given`,
				"rsgen: error: 1 bad record in " + relative + "; nothing was published", "rsgen: hint: fix them in the export, or give --on-error=skip to publish the rest"}, "-", false},
		{"skip bad records", []string{"build", at, "--docs-url", "https://example.org/", "--on-error=skip", "--export", relative},
			3, []string{"rsgen: skipped: " + relative + `:2: loc: "b" is a relative path`, "rsgen: published 1 record", "rsgen: error: 1 bad record skipped (named above)"}, "resourcesync/resourcelist.xml", false},
		{"relative loc with base", []string{"build", at, "--base-url", "https://example.org/", "--export", relative},
			0, []string{"rsgen: published 2 records"}, "resourcesync/resourcelist.xml", false},
		{"no change list", []string{"build", at, "--base-url", "https://example.org/", "--export", noTime},
			0, []string{"rsgen: warning: no Change List: 1 record has no lastmod", "rsgen: published 1 record"}, ".well-known/resourcesync", false},
		{"window 0", []string{"build", at, "--base-url", "https://example.org/", keys("window0.toml", noTime, `changes-window = "0"`)},
			0, []string{"rsgen: published 1 record"}, ".well-known/resourcesync", false},
		{"other host", []string{"build", at, "--base-url", "https://example.com/", "--export", absolute},
			0, []string{"rsgen: warning: 1 record is not on https://example.com, where the documents are served: https://example.org (1)"}, ".well-known/resourcesync", false},
		{"unknown column", []string{"build", "--base-url", "https://example.org/", "--export", csvBad},
			1, []string{`rsgen: error: record export ` + csvBad + `: bad CSV header: unknown column "title"`}, "-", false},
		{"source and export", []string{"build", "--base-url", "https://example.org/", "--export", absolute, dir},
			2, []string{"rsgen: error: --export does not apply with the SOURCE: give one of them"}, "-", false},
		{"export without out", []string{"build", "--base-url", "https://example.org/", "--export", absolute},
			2, []string{"rsgen: error: --export needs --out"}, "-", true},
		{"no URL for the documents", []string{"build", "--export", absolute},
			2, []string{"rsgen: error: --docs-url is required: the URL where the documents are served; or a base URL"}, "-", false},
		{"unknown format", []string{"build", "--base-url", "https://example.org/", keys("xml.toml", absolute, `export-format = "xml"`)},
			2, []string{`xml.toml:2: export-format "xml" is not valid: give jsonl or csv`}, "-", false},
		{"format from the name", []string{"build", "--base-url", "https://example.org/", "--export", other},
			2, []string{"rsgen: error: export-format (a key of the configuration file) is required: the name " + other + " does not tell it"}, "-", false},
		{"format given", []string{"build", at, "--base-url", "https://example.org/", keys("jsonl.toml", other, `export-format = "jsonl"`)},
			0, []string{"rsgen: published 1 record"}, ".well-known/resourcesync", false},
		{"bad window", []string{"build", "--base-url", "https://example.org/", keys("month.toml", absolute, `changes-window = "a month"`)},
			2, []string{"month.toml:2: changes-window:"}, "-", false},
		{"window without export", []string{"build", "--base-url", "https://example.org/", "--config", write("window.toml", "source = \""+dir+"\"\nchanges-window = \"7d\"\n")},
			2, []string{"window.toml:2: changes-window needs export: it applies to a record export only"}, "-", false},
		{"filter with export", []string{"build", "--base-url", "https://example.org/", "--exclude", "*.tmp", "--export", absolute},
			2, []string{"rsgen: error: --exclude does not apply with --export: records are selected by their status in the export"}, "-", false},
		{"archive without out", []string{"build", "--base-url", "https://example.org/", archive},
			2, []string{"rsgen: error: the SOURCE \"" + archive + "\" needs --out: the documents cannot be written into an archive"}, "-", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := tc.args
			if !tc.noOut {
				args = append([]string{args[0], "--out", out}, args[1:]...)
			}
			clearEnv(t)
			code, _, stderr := runCLI(t, t.Context(), args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			rest := stderr
			for _, want := range tc.stderr {
				want = strings.ReplaceAll(want, "OUT", out)
				i := strings.Index(rest, want)
				if i < 0 {
					t.Errorf("stderr lacks %q (in order):\n%s", want, stderr)
					break
				}
				rest = rest[i+len(want):]
			}
			for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
				if line != "" && !exportMessage.MatchString(line) {
					t.Errorf("message not in rsgen's style: %q", line)
				}
			}
			switch tc.output {
			case "-":
				if _, err := os.Stat(out); err == nil {
					t.Errorf("%s was created", out)
				}
			default:
				if _, err := os.Stat(filepath.Join(out, tc.output)); err != nil {
					t.Errorf("no %s: %v", tc.output, err)
				}
			}
		})
	}
}

// TestCLIExportStdin reads the export from standard input.
func TestCLIExportStdin(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.csv")
	os.WriteFile(in, []byte("loc,lastmod\nhttps://example.org/a,2024-05-30T00:00:00Z\n"), 0o644)
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stdin := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = stdin }()
	out := filepath.Join(t.TempDir(), "out")
	config := filepath.Join(t.TempDir(), "csv.toml")
	os.WriteFile(config, []byte("export = \"-\"\nexport-format = \"csv\"\n"), 0o644)
	clearEnv(t)
	code, _, stderr := runCLI(t, t.Context(), "build", "--out", out, "--docs-url", "https://example.org/", "--config", config)
	if code != 0 || !strings.Contains(stderr, "rsgen: published 1 record (0 B) from stdin") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
	code, _, stderr = runCLI(t, t.Context(), "build", "--out", out, "--docs-url", "https://example.org/", "--export", "-")
	if code != 2 || !strings.Contains(stderr, "export-format (a key of the configuration file) is required: the name - does not tell it") {
		t.Errorf("without a format: exit %d:\n%s", code, stderr)
	}
}
