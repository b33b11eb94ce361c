package tree

import (
	"path/filepath"
	"strings"
)

// Within reports whether path is root or below it. Both are clean and
// absolute.
func Within(root, path string) bool {
	if path == root {
		return true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(path, prefix)
}
