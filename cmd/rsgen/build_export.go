package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/text/units"
)

// badRecords prints the bad records of a failed build, one a line, and
// returns the hint for the error, or "" if err is not about bad records.
func badRecords(stderr io.Writer, err error, n namer) string {
	bre := buildError(err)
	if bre.Kind != generator.KindBadRecords {
		return ""
	}
	for _, p := range bre.Problems {
		fmt.Fprintf(stderr, "rsgen: error: %s\n", p.Error())
	}
	if n := bre.N - len(bre.Problems); n > 0 {
		fmt.Fprintf(stderr, "rsgen: error: and %d more bad records\n", n)
	}
	return "fix them in the export, or give " + n(flagSkipBadRecords) + " to publish the rest"
}

// exportUsageErr turns the failure of a build from a record export that
// the flags cannot make (--resource-dump, with records that have no local
// file) into a usage error, or returns nil.
func exportUsageErr(err error, n namer) error {
	if buildError(err).Kind != generator.KindDumpNeedsFiles {
		return nil
	}
	return usageErr("give every published record a path, the local file with its bytes, or drop "+n(flagResourceDump),
		"%s with %s: %v", n(flagResourceDump), n(flagExport), err)
}

// finishExport reports a build from a record export: skipped records,
// warnings, and the summary.
func finishExport(stderr io.Writer, cfg generator.Config, rep *generator.Report, quiet bool) error {
	ex := rep.Export
	for _, p := range rep.Problems {
		fmt.Fprintf(stderr, "rsgen: skipped: %s\n", p.Error())
	}
	if !quiet {
		for _, w := range ex.Warnings {
			fmt.Fprintf(stderr, "rsgen: warning: %s\n", w)
		}
		var notes []string
		if ex.Tombstones > 0 {
			notes = append(notes, units.Count(ex.Tombstones, "deletion"))
		}
		for _, s := range slices.Sorted(maps.Keys(ex.Withheld)) {
			notes = append(notes, fmt.Sprintf("%d %s not published", ex.Withheld[s], s))
		}
		if ex.ChangeList {
			notes = append(notes, fmt.Sprintf("%s since %s", units.Count(ex.Changes, "change"), rsxml.FormatTime(ex.From)))
		} else if ex.NoChanges {
			notes = append(notes, fmt.Sprintf("no change since %s, so no Change List", rsxml.FormatTime(ex.From)))
		}
		extra := ""
		if len(notes) > 0 {
			extra = "; " + strings.Join(notes, ", ")
		}
		if cfg.DryRun {
			fmt.Fprintf(stderr, "%swould publish %s (%s) from %s in %s%s\n", dryRunPrefix,
				units.Count(rep.Files, "record"), units.FormatSize(rep.Bytes), ex.Name, units.Count(rep.Documents, "document"), extra)
			printDryRunEnd(stderr, cfg.Out)
		} else {
			fmt.Fprintf(stderr, "rsgen: published %s (%s) from %s in %s to %s in %s%s\n",
				units.Count(rep.Files, "record"), units.FormatSize(rep.Bytes), ex.Name, units.Count(rep.Documents, "document"),
				cfg.Out, rep.Elapsed.Round(time.Millisecond), extra)
		}
	}
	if len(rep.Problems) == 0 {
		return nil
	}
	var what, hints []string
	if ex.Bad > 0 {
		what = append(what, units.Count(ex.Bad, "bad record")+" skipped")
		hints = append(hints, "fix them in the export; without --on-error=skip they fail the build")
	}
	if ex.Unpackaged > 0 {
		what = append(what, units.Count(ex.Unpackaged, "record")+" left out, "+units.Plural(ex.Unpackaged, "its file", "their files")+" could not be packaged")
		hints = append(hints, "publish again once the files are stable")
	}
	if len(what) == 0 {
		what = append(what, units.Count(len(rep.Problems), "record")+" not published")
	}
	return &exitError{code: exitPartial, err: fmt.Errorf("%s (named above)", strings.Join(what, "; ")), hint: strings.Join(hints, "; ")}
}
