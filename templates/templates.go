// Package templates holds the templates of the files rsgen writes for
// static hosts (--host) and the pages it always writes (the landing page,
// the robots.txt lines, the HTML head link), embedded in the binary.
//
// FS is the embedded set. Overlay puts a user's directory over it,
// Hugo-style: a file there with the name of a template replaces that
// template, the others stay embedded. Templates ending in .html.tmpl are
// html/template, the others text/template; hosting.Data is what they see.
//
// FS and the file systems Overlay returns may be used from several
// goroutines.
package templates

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// FS holds the embedded templates.
//
//go:embed *.tmpl
var FS embed.FS

// Names returns the names of the templates, sorted.
func Names() []string {
	entries, _ := fs.ReadDir(FS, ".")
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// Overlay returns the templates with those of dir in place of the embedded
// ones of the same name. A file in dir that is no template's name is an
// error (a typo would otherwise be ignored silently).
func Overlay(dir string) (fs.FS, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("templates directory: %w", err)
	}
	names := Names()
	var unknown []string
	for _, e := range entries {
		if !slices.Contains(names, e.Name()) {
			unknown = append(unknown, e.Name())
		} else if !e.Type().IsRegular() {
			return nil, fmt.Errorf("templates directory: %s is not a regular file", filepath.Join(dir, e.Name()))
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("templates directory %s has %s, which %s not a template's name (templates: %s)",
			dir, strings.Join(unknown, ", "), map[bool]string{true: "is", false: "are"}[len(unknown) == 1], strings.Join(names, ", "))
	}
	return overlay{user: os.DirFS(dir)}, nil
}

type overlay struct{ user fs.FS }

func (o overlay) Open(name string) (fs.File, error) {
	f, err := o.user.Open(name)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return f, err
	}
	return FS.Open(name)
}
