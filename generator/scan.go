package generator

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rsgen/rsgen/internal/display"
	"github.com/rsgen/rsgen/internal/tree"
)

// A Filter decides which files of a tree are published: see tree.Filter.
type Filter = tree.Filter

// A PatternError is a pattern of a Filter that is not valid (Filter.Validate).
type PatternError = tree.PatternError

// A Problem is a file that was not published, and why.
type Problem struct {
	Path string // relative to the source, or the record export
	Line int    // line of a bad record in the export; 0 for a file
	Dir  bool   // Path is a directory that could not be read (wholly or in part): its files are unknown
	Err  error
}

func (p Problem) Error() string {
	if p.Line > 0 {
		return printable(p.Path) + ":" + strconv.Itoa(p.Line) + ": " + p.Err.Error()
	}
	return printable(p.Path) + ": " + p.Err.Error()
}

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

// unwrapPath drops the path an *fs.PathError carries (display.WithoutPath).
func unwrapPath(err error) error { return display.WithoutPath(err) }
