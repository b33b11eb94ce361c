package generator

import (
	"path/filepath"
	"strings"

	"github.com/rsgen/rsgen/internal/tree"
)

// The paths of a tree: which are published, and which lie within another.

// A Filter decides which files of a tree are published: see tree.Filter.
type Filter = tree.Filter

// A PatternError is a pattern of a Filter that is not valid (Filter.Validate).
type PatternError = tree.PatternError

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
