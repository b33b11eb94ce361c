package generator

import (
	"github.com/rsgen/rsgen/internal/storage/stage"
)

// Names rsgen owns in the output directory.
const (
	docsDir      = stage.DocsDir      // every document but the Source Description; those of a set in DocsDir/<set>
	wellKnownDir = stage.WellKnownDir // RFC 8615
	stagePrefix  = stage.Prefix
)

// setDir is the directory of the documents of the resource set named set
// ("" for the one set of a build without sets).
func setDir(set string) string {
	if set == "" {
		return docsDir
	}
	return docsDir + "/" + set
}
