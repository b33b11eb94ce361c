package generator

import (
	"github.com/rsgen/rsgen/internal/tree"
)

// A Filter decides which files of a tree are published: see tree.Filter.
type Filter = tree.Filter

// A PatternError is a pattern of a Filter that is not valid (Filter.Validate).
type PatternError = tree.PatternError
