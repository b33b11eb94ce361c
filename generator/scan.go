package generator

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rsgen/rsgen/generator/internal/report"
	"github.com/rsgen/rsgen/internal/display"
	"github.com/rsgen/rsgen/internal/tree"
)

// A Filter decides which files of a tree are published: see tree.Filter.
type Filter = tree.Filter

// A PatternError is a pattern of a Filter that is not valid (Filter.Validate).
type PatternError = tree.PatternError

// A Problem is a file (or a directory, or a record of an export) that a
// build could not publish, and why (package report).
type Problem = report.Problem

// printable quotes a name that a terminal or a log would not show as it
// is (display.Name).
func printable(name string) string { return display.Name(name) }

// within reports whether path is root or below it. Both are clean and absolute.
func within(root, path string) bool {
	if path == root {
		return true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(path, prefix)
}

func displayRel(rel string) string { return display.Rel(rel) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// unwrapPath drops the path an *fs.PathError carries (display.WithoutPath).
func unwrapPath(err error) error { return display.WithoutPath(err) }
