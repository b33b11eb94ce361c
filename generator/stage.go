package generator

import (
	"io"

	"github.com/rsgen/rsgen/internal/stage"
)

// A Stage is where a build writes what it publishes, moved into place only
// when complete: see package internal/stage.
type Stage = stage.Stage

// NewStage creates a staging directory inside out (stage.New).
func NewStage(out string) (*Stage, error) { return stage.New(out) }

// newStage is NewStage, or stage.NewDry for a dry run.
func newStage(out string, dryRun bool) (*Stage, error) {
	if dryRun {
		return stage.NewDry(out)
	}
	return stage.New(out)
}

// Names rsgen owns in the output directory.
const (
	docsDir       = stage.DocsDir       // every document but the Source Description; those of a set in DocsDir/<set>
	wellKnownDir  = stage.WellKnownDir  // RFC 8615
	WellKnownFile = stage.WellKnownFile // the Source Description (section 6.3.1)
	stagePrefix   = stage.Prefix
)

// The errors of an output directory that a build cannot publish into.
var (
	// ErrBusy: another build is publishing into it.
	ErrBusy = stage.ErrBusy
	// ErrNotWritten: its documents directory holds files rsgen did not
	// write.
	ErrNotWritten = stage.ErrNotWritten
	// ErrOlderSnapshot: the snapshot published there is newer.
	ErrOlderSnapshot = stage.ErrOlderSnapshot
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
