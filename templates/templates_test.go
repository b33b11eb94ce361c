package templates

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNames(t *testing.T) {
	t.Parallel()
	names := Names()
	if len(names) != 8 {
		t.Errorf("templates %v, want 8", names)
	}
}

func TestOverlay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "robots.txt.tmpl"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys, err := Overlay(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := fs.ReadFile(fsys, "robots.txt.tmpl"); string(got) != "mine\n" {
		t.Errorf("robots.txt.tmpl = %q, want the user's", got)
	}
	want, _ := fs.ReadFile(FS, "head.html.tmpl")
	if got, _ := fs.ReadFile(fsys, "head.html.tmpl"); string(got) != string(want) || len(want) == 0 {
		t.Errorf("head.html.tmpl is not the embedded one")
	}
	if err := os.WriteFile(filepath.Join(dir, "robots.tmpl"), []byte("typo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Overlay(dir); err == nil || !strings.Contains(err.Error(), "robots.tmpl") {
		t.Errorf("Overlay with a misnamed template: %v, want an error naming it", err)
	}
	if _, err := Overlay(filepath.Join(dir, "missing")); err == nil {
		t.Error("Overlay of a missing directory: no error")
	}
}
