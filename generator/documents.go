package generator

import (
	"path/filepath"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/validate"
)

// A docWriter writes the documents of a set of a build into its stage
// (package docs).
type docWriter = docs.Writer

// previousFault returns the error of findings (of the stage's check, whose
// documents are named under out) that are all in documents copied from the
// previous build (copied: their paths under out, slash-separated → the URL
// each was read from), named by that URL; or nil if one is a document this
// build wrote.
func previousFault(copied map[string]string, findings []validate.Finding, out string) *invalidPreviousError {
	if len(copied) == 0 {
		return nil
	}
	from := make(map[string]string, len(copied))
	for name, u := range copied {
		from[filepath.Join(out, filepath.FromSlash(name))] = u
	}
	e := &invalidPreviousError{}
	for _, f := range findings {
		u, ok := from[f.Document]
		if !ok {
			return nil
		}
		f.Document = u
		e.Findings = append(e.Findings, f)
	}
	return e
}
