package generator

import (
	"github.com/rsgen/rsgen/internal/tree"
)

// A Filter decides which files of a tree are published: see tree.Filter.
type Filter = tree.Filter
