package generator

import (
	"context"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/internal/text/units"
	"github.com/rsgen/rsgen/validate"
)

// withFindings is msg followed by the first ten findings, a line each.
func withFindings(msg string, findings []validate.Finding) string {
	var b strings.Builder
	b.WriteString(msg)
	for i, f := range findings {
		if i == 10 {
			fmt.Fprintf(&b, "\n  … (%d more)", len(findings)-i)
			break
		}
		b.WriteString("\n  ")
		b.WriteString(f.String())
	}
	return b.String()
}

// checkStage validates the stage as rsgen validate reads a published
// directory: a build never publishes documents that fail. Warnings become
// one notice per rule. See BenchmarkCheck for its cost.
func checkStage(ctx context.Context, stg *stage.Stage, sets []*build, stats *report.Stats, notice func(string)) error {
	stats.Enter(report.PhaseChecking)
	cfg := sets[0].cfg
	if cfg.beforeCheck != nil {
		cfg.beforeCheck(stg)
	}
	rep, err := validate.Path(ctx, stg.Dir(), validate.Options{BaseURL: cfg.DocsURL.String(), Label: cfg.Out, MaxDocuments: math.MaxInt})
	if err != nil {
		return fmt.Errorf("checking the documents: %w", err)
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if rep.Errors > 0 {
		// Documents of the previous build published again are not a bug
		// of rsgen: they are named by the URLs they were read from.
		copied := map[string]string{}
		for _, b := range sets {
			for name, u := range b.docs.Copied {
				copied[filepath.Join(cfg.Out, filepath.FromSlash(b.docs.Dir+"/"+name))] = u
			}
		}
		var errs, named []validate.Finding
		for _, f := range rep.Findings {
			if f.Severity == validate.Error {
				errs = append(errs, f)
				if u, ok := copied[f.Document]; ok {
					f.Document = u
					named = append(named, f)
				}
			}
		}
		if len(named) > 0 && len(named) == len(errs) {
			return fmt.Errorf("%w: %s", errPrevious, withFindings("a document it published, to be published again, is not valid", named))
		}
		return failed(KindInvalidOutput, "%s", withFindings(fmt.Sprintf("this is a bug of rsgen: the documents it was about to publish fail validation with %s, so nothing was published", units.Count(rep.Errors, "error")), errs))
	}
	first := map[string]validate.Finding{}
	for _, f := range rep.Findings {
		if _, ok := first[f.Rule]; !ok {
			first[f.Rule] = f
		}
	}
	for _, r := range slices.Sorted(maps.Keys(first)) {
		f, more := first[r], ""
		if n := rep.ByRule[r] - 1; n > 0 {
			more = fmt.Sprintf(", and %d more like it", n)
		}
		notice(fmt.Sprintf("check: %s (%s%s)", f.Message, f.Rule, more))
	}
	return nil
}
