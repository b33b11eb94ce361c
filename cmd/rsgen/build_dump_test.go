package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuildResourceDumpFlags(t *testing.T) {
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string   // a substring of stderr
		files  []string // under resourcesync/
		absent string   // under resourcesync/
	}{
		{name: "dump", args: []string{"--resource-dump"}, code: exitOK,
			files: []string{"resourcedump.xml", "resourcedump-00001.zip", "resourcedump-00001.manifest.xml"}},
		{name: "options", args: []string{"--resource-dump", "--dump-max-bytes", "2MB", "--dump-compression", "store"}, code: exitOK,
			files: []string{"resourcedump.xml", "resourcedump-00001.zip"}},
		{name: "no dump", args: nil, code: exitOK, files: []string{"resourcelist.xml"}, absent: "resourcedump.xml"},
		{name: "size without dump", args: []string{"--dump-max-bytes", "2MB"}, code: exitUsage,
			stderr: "rsgen: error: --dump-max-bytes has no effect without --resource-dump\nrsgen: hint: add --resource-dump\n"},
		{name: "bad size", args: []string{"--resource-dump", "--dump-max-bytes", "lots"}, code: exitUsage, stderr: "--dump-max-bytes: "},
		{name: "bad compression", args: []string{"--resource-dump", "--dump-compression", "zstd"}, code: exitUsage,
			stderr: `rsgen: error: --dump-compression: "zstd" is not a compression (auto, store or deflate)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"rsgen", "build", "--base-url", "https://example.org/", "--out", out, "--at", "2024-06-01T00:00:00Z", "-q"}, tt.args...)
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append(args, src), &stdout, &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.stderr) {
				t.Fatalf("exit %d, stderr %q; want %d, %q", code, stderr.String(), tt.code, tt.stderr)
			}
			for _, f := range tt.files {
				if _, err := os.Stat(filepath.Join(out, "resourcesync", f)); err != nil {
					t.Error(err)
				}
			}
			if tt.absent != "" {
				if _, err := os.Stat(filepath.Join(out, "resourcesync", tt.absent)); !os.IsNotExist(err) {
					t.Errorf("%s written", tt.absent)
				}
			}
			if tt.code != exitOK {
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Errorf("%s written after a usage error", out)
				}
			}
		})
	}
}
