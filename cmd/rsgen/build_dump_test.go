package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/internal/testenv"
)

// writeArchive writes files (name → content) into a .tgz or .zip.
func writeArchive(t *testing.T, path string, files map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	names := slices.Sorted(maps.Keys(files))
	if strings.HasSuffix(path, ".zip") {
		zw := zip.NewWriter(&buf)
		for _, n := range names {
			w, err := zw.Create(n)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(w, files[n])
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	} else {
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		for _, n := range names {
			tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), ModTime: time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)})
			io.WriteString(tw, files[n])
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		gz.Close()
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// --resource-dump with an archive as SOURCE, or with --export: it
// packages the members, or the records' local files; an export with a
// listed record that has none is refused as a usage error, and nothing is
// written.
func TestBuildResourceDumpSources(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"index.html": "<p>home</p>", "docs/a.txt": "a\n"}
	tgz, zipped := filepath.Join(dir, "site.tgz"), filepath.Join(dir, "site.zip")
	writeArchive(t, tgz, files)
	writeArchive(t, zipped, files)
	for name, body := range files {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	withFiles := write("files.jsonl", `{"loc":"a","lastmod":"2024-05-30T00:00:00Z","path":"docs/a.txt"}`+"\n"+
		`{"loc":"home","lastmod":"2024-05-30T00:00:00Z","path":"index.html"}`+"\n"+`{"loc":"old","deleted":"2024-05-30T00:00:00Z"}`+"\n")
	without := write("pages.jsonl", `{"loc":"a","lastmod":"2024-05-30T00:00:00Z","path":"docs/a.txt"}`+"\n"+`{"loc":"b","lastmod":"2024-05-30T00:00:00Z"}`+"\n")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"tgz", []string{tgz}, exitOK, "rsgen: published 2 files"},
		{"zip", []string{zipped}, exitOK, "rsgen: published 2 files"},
		{"export with files", []string{"--export", withFiles}, exitOK, "rsgen: published 2 records"},
		{"export without files", []string{"--export", without}, exitUsage,
			"rsgen: error: --resource-dump with --export: 1 published record of " + without + " has no path (first at line 2): a Resource Dump packages the records' local files, and must hold every resource of the Resource List (section 9); nothing was published\n" +
				"rsgen: hint: give every published record a path, the local file with its bytes, or drop --resource-dump\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"build", "--base-url", "https://example.org/", "--out", out, "--at", "2024-06-01T00:00:00Z", "--resource-dump"}, tt.args...)
			code, _, stderr := runCLI(t, t.Context(), args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Fatalf("exit %d, stderr %q; want %d, %q", code, stderr, tt.code, tt.stderr)
			}
			if tt.code != exitOK {
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Errorf("%s written after a usage error", out)
				}
				return
			}
			names := testenv.ZipNames(t, filepath.Join(out, "resourcesync", "resourcedump-00001.zip"))
			if want := []string{"docs/a.txt", "index.html", "manifest.xml"}; !slices.Equal(names, want) {
				t.Errorf("package holds %q, want %q", names, want)
			}
		})
	}
}

// The summary of an export whose files could not be packaged says so,
// apart from bad records, with the hint for why: files that changed
// before they were packaged, or names a package cannot hold.
func TestReportExportUnpackaged(t *testing.T) {
	p := func(line int, msg string) report.Problem {
		return report.Problem{Path: "r.jsonl", Line: line, Err: errors.New(msg)}
	}
	const renameHint = "rename or fix the files named above, or take their records out of the export, or publish without a Resource Dump"
	tests := []struct {
		bad, unpackaged, changed int
		want                     string
	}{
		{1, 0, 0, "rsgen: error: 1 bad record skipped (named above)\nrsgen: hint: fix them in the export; without --on-error=skip they fail the build\n"},
		{0, 2, 2, "rsgen: error: 2 records left out, their files could not be packaged (named above)\nrsgen: hint: publish again once the files are stable\n"},
		{2, 1, 1, "rsgen: error: 2 bad records skipped; 1 record left out, its file could not be packaged (named above)\n" +
			"rsgen: hint: fix them in the export; without --on-error=skip they fail the build; publish again once the files are stable\n"},
		{0, 1, 0, "rsgen: error: 1 record left out, its file could not be packaged (named above)\nrsgen: hint: " + renameHint + "\n"},
		{0, 3, 1, "rsgen: error: 3 records left out, their files could not be packaged (named above)\nrsgen: hint: publish again once the files are stable; " + renameHint + "\n"},
	}
	for _, tt := range tests {
		rep := &generator.Report{Export: &report.Export{Name: "r.jsonl", Bad: tt.bad, Unpackaged: tt.unpackaged, Changed: tt.changed}}
		for i := range tt.bad + tt.unpackaged {
			rep.Problems = append(rep.Problems, p(i+1, "x"))
		}
		var stderr bytes.Buffer
		code := printError(&stderr, reportOne(&stderr, generator.Config{}, rep, true))
		got := stderr.String()
		if code != exitPartial || !strings.HasSuffix(got, tt.want) {
			t.Errorf("exit %d:\n%s\nwant the end\n%s", code, got, tt.want)
		}
	}
}
