package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
)

// laterTime says how to give a build a later snapshot time, naming where
// its time came from: --at, else $SOURCE_DATE_EPOCH.
func laterTime(c *cli.Context, n namer) string {
	if c.String(flagAt) != "" {
		return "give this build a later " + n(flagAt)
	}
	return "give this build a later $" + envSourceDateEpoch + ", where its snapshot time came from"
}

// guardFailure turns an error of a guard into the failure to report,
// with a hint naming the flag that allows on purpose what it refused; it
// returns nil if err is not a guard's.
func guardFailure(c *cli.Context, cfg generator.Config, err error, n namer) error {
	switch e := buildError(err); {
	case e.Kind == generator.KindEmptySource:
		for _, p := range e.Problems { // why each file was refused
			fmt.Fprintf(c.App.ErrWriter, "rsgen: skipped: %s\n", p.Error())
		}
		what := "check " + n(argSource) + " (did the site's own build fail?)"
		if cfg.Export != "" {
			what = "check " + n(flagExport) + " (did the export fail upstream?)"
		}
		also := ""
		if cfg.Changes.Previous != "" {
			also = ", which deletes every resource published before,"
		}
		return failure(err, fmt.Sprintf("%s; to publish an empty Resource List on purpose%s add %s", what, also, n(flagAllowEmpty)))
	case e.Kind == generator.KindMassDelete:
		return failure(err, fmt.Sprintf("check %s; if these deletions are meant, allow them with %s %d (or a higher percentage, or all)", n(argSource), n(flagMaxDelete), e.N))
	case e.Kind == generator.KindOtherSite:
		return failure(err, fmt.Sprintf("check %s (another site's, such as staging?); to start a new change history at %s on purpose, add %s", n(flagPrevious), e.URL, n(flagNewHistory)))
	case e.Kind == generator.KindDropped && (e.Capability == rsxml.CapResourceDump || e.Capability == rsxml.CapChangeDump):
		flag := flagResourceDump
		if e.Capability == rsxml.CapChangeDump {
			flag = flagChangeDump
		}
		return failure(err, fmt.Sprintf("add %s to keep publishing it, or %s=false to drop it on purpose", n(flag), n(flag)))
	case e.Kind == generator.KindDropped && e.Capability == rsxml.CapResourceListArchive:
		return failure(err, fmt.Sprintf("add %s to keep archiving Resource Lists, or %s to drop that archive on purpose", n(flagArchiveResourceLists+" EVERY"), n(flagArchiveResourceLists+" 0")))
	case e.Kind == generator.KindDropped && e.Capability == rsxml.CapResourceDumpArchive:
		return failure(err, fmt.Sprintf("add %s (with %s) to keep archiving Resource Dumps, or %s to drop that archive on purpose", n(flagArchiveResourceDumps+" EVERY"), n(flagResourceDump), n(flagArchiveResourceDumps+" 0")))
	case e.Kind == generator.KindDropped:
		return failure(err, fmt.Sprintf("add %s to keep archiving (at least %s), or %s to drop it on purpose", n(flagArchiveKeep+" DURATION"), n(flagChangesKeep), n(flagArchiveKeep+" 0")))
	case e.Kind == generator.KindSnapshotTime:
		source := n(flagAt)
		if c.String(flagAt) == "" {
			source = "$" + envSourceDateEpoch
		}
		return failure(fmt.Errorf("%w (this build's snapshot time, from %s)", err, source),
			laterTime(c, n)+", or leave "+n(flagAt)+" and $"+envSourceDateEpoch+" unset to take the clock")
	case errors.Is(err, previous.ErrLater) && cfg.FixedTime:
		return failure(err, n(flagPrevious)+" must be an earlier build: check it, or "+laterTime(c, n))
	}
	return nil
}
