package generator

import (
	"io"

	"github.com/rsgen/rsgen/internal/stage"
)

// newStage is stage.New, or stage.NewDry for a dry run.
func newStage(out string, dryRun bool) (*stage.Stage, error) {
	if dryRun {
		return stage.NewDry(out)
	}
	return stage.New(out)
}

// Names rsgen owns in the output directory.
const (
	docsDir      = stage.DocsDir      // every document but the Source Description; those of a set in DocsDir/<set>
	wellKnownDir = stage.WellKnownDir // RFC 8615
	stagePrefix  = stage.Prefix
)

// closeAfter closes c and returns err, or the error of Close if err is nil.
func closeAfter(c io.Closer, err error) error {
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	return err
}

// setDir is the directory of the documents of the resource set named set
// ("" for the one set of a build without sets).
func setDir(set string) string {
	if set == "" {
		return docsDir
	}
	return docsDir + "/" + set
}
