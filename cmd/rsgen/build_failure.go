package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/inputs/bucket"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/storage/stage"
)

// buildFailure is the failure to report for err, the error of a build of
// cfg run under ctx, with a hint that says what to do; at says the
// snapshot time is from --at or the key at, not $SOURCE_DATE_EPOCH.
func (f *siteFile) buildFailure(c *cli.Context, ctx context.Context, cfg generator.Config, err error, at bool) error {
	n := f.name
	if c.Context.Err() != nil { // stopped by a signal: whatever the build was doing then failed with it
		return failure(errors.New("interrupted; nothing was published, the output is as it was"), "")
	}
	e := buildError(err)
	usage := func(hint string) error { return &exitError{code: exitUsage, err: err, hint: hint} }
	hint := ""
	switch {
	case e.Kind == generator.KindDumpNeedsFiles:
		return usageErr("give every published record a path, the local file with its bytes, or drop "+n(flagResourceDump),
			"%s with %s: %v", n(flagResourceDump), n(flagExport), err)
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
		hint = fmt.Sprintf("%s; to publish an empty Resource List on purpose%s add %s", what, also, n(flagAllowEmpty))
	case e.Kind == generator.KindMassDelete:
		hint = fmt.Sprintf("check %s; if these deletions are meant, allow them with %s %d (or a higher percentage, or all)", n(argSource), n(flagMaxDelete), e.N)
	case e.Kind == generator.KindOtherSite:
		hint = fmt.Sprintf("check %s (another site's, such as staging?); to start a new change history at %s on purpose, add %s", n(flagPrevious), e.URL, n(flagNewHistory))
	case e.Kind == generator.KindDropped:
		hint = droppedHint(e.Capability, n)
	case e.Kind == generator.KindSnapshotTime:
		source := n(flagAt)
		if !at {
			source = "$" + envSourceDateEpoch
		}
		err = fmt.Errorf("%w (this build's snapshot time, from %s)", err, source)
		hint = laterTime(at, n) + ", or leave " + n(flagAt) + " and $" + envSourceDateEpoch + " unset to take the clock"
	case errors.Is(err, previous.ErrLater): // a snapshot time from the clock can only be given by --at
		hint = n(flagPrevious) + " must be an earlier build: check it, or " + laterTime(at || !cfg.FixedTime, n)
	case e.Kind == generator.KindBadRecords:
		for _, p := range e.Problems {
			fmt.Fprintf(c.App.ErrWriter, "rsgen: error: %s\n", p.Error())
		}
		if more := e.N - len(e.Problems); more > 0 {
			fmt.Fprintf(c.App.ErrWriter, "rsgen: error: and %d more bad records\n", more)
		}
		hint = "fix them in the export, or give " + n(flagSkipBadRecords) + " to publish the rest"
	case c.Context.Err() == nil && errors.Is(context.Cause(ctx), errBuildTimeout):
		err = fmt.Errorf("the build took longer than --%s %v and was stopped; nothing was published, the output is as it was", flagTimeout, c.Duration(flagTimeout))
		hint = "allow more time with " + n(flagTimeout)
	case e.Kind == generator.KindFailFast:
		hint = "fix or " + n(flagExclude) + " the file, or drop " + n(flagFailFast) + " to publish the rest"
	case errors.Is(err, bucket.ErrConfig):
		return usage("check AWS_PROFILE, AWS_REGION and the shared config files (aws configure list shows what is found); docs/BUCKETS.md#configuration")
	case e.Kind == generator.KindSource && strings.HasPrefix(cfg.Source, "s3://"):
		return usage("give as " + n(argSource) + " s3://BUCKET/ or s3://BUCKET/PREFIX/ (docs/BUCKETS.md)")
	case e.Kind == generator.KindSource && strings.HasPrefix(cfg.Source, "s3-inventory://"):
		return usage("give as " + n(argSource) + " s3-inventory://BUCKET/KEY/manifest.json, the manifest of an S3 Inventory (docs/BUCKETS.md)")
	case e.Kind == generator.KindSource: // a wrong argument: a usage error
		return usage("give as " + n(argSource) + " an existing directory that rsgen can read")
	case errors.Is(err, stage.ErrBusy):
		hint = "two builds into one " + n(flagOut) + " could publish an older snapshot over a newer one: run them one after the other"
	case errors.Is(err, stage.ErrNotWritten):
		hint = "rsgen replaces the resourcesync/ folder of " + n(flagOut) + " at every build: move those files elsewhere, or choose another " + n(flagOut)
	case errors.Is(err, stage.ErrOlderSnapshot):
		hint = "give a later " + n(flagAt) + " (or SOURCE_DATE_EPOCH), or publish into another " + n(flagOut) + "; if the published snapshot time is wrong, remove resourcesync/ from " + n(flagOut) + " (Destinations then sync afresh)"
	case e.Kind == generator.KindOutput:
		hint = "give " + n(flagOut) + " a directory that rsgen can create and write into"
	case errors.Is(err, hosting.ErrNotOurs): // a host's file that is the user's
		hint = "move that file away; or, to keep a " + hosting.Headers + " or " + hosting.HTAccess + " of your own, add the lines '" +
			hosting.BlockBegin + "' and '" + hosting.BlockEnd + "' to it: rsgen then writes its part between them at every build and keeps the rest"
	case e.Kind == generator.KindLimit:
		flags := make([]string, len(e.Raise))
		for i, f := range e.Raise {
			flags[i] = n(cmp.Or(keyOf(f), f))
		}
		hint = "raise " + strings.Join(flags, " or ")
	case e.Kind == generator.KindInvalidOutput:
		hint = "please report it at https://github.com/rsgen/rsgen/issues with the findings above"
	case e.Kind == generator.KindPrevious || e.Kind == generator.KindClockBehind:
		hint = previousHint(err, e, n)
	}
	return failure(err, hint)
}

// droppedHint names the flags that keep or drop on purpose what the
// previous build published and this one would not.
func droppedHint(capability string, n func(string) string) string {
	switch capability {
	case rsxml.CapResourceDump, rsxml.CapChangeDump:
		flag := flagResourceDump
		if capability == rsxml.CapChangeDump {
			flag = flagChangeDump
		}
		return fmt.Sprintf("add %s to keep publishing it, or %s=false to drop it on purpose", n(flag), n(flag))
	case rsxml.CapResourceListArchive:
		return fmt.Sprintf("add %s to keep archiving Resource Lists, or %s to drop that archive on purpose", n(flagArchiveResourceLists+" EVERY"), n(flagArchiveResourceLists+" 0"))
	case rsxml.CapResourceDumpArchive:
		return fmt.Sprintf("add %s (with %s) to keep archiving Resource Dumps, or %s to drop that archive on purpose", n(flagArchiveResourceDumps+" EVERY"), n(flagResourceDump), n(flagArchiveResourceDumps+" 0"))
	}
	return fmt.Sprintf("add %s to keep archiving (at least %s), or %s to drop it on purpose", n(flagArchiveKeep+" DURATION"), n(flagChangesKeep), n(flagArchiveKeep+" 0"))
}

// previousHint names what to do about a failure to use --previous.
func previousHint(err error, e *generator.Error, n func(string) string) string {
	switch {
	case e.Kind == generator.KindClockBehind:
		return "wait until the clock has passed it, or give a later " + n(flagAt) + "; if that snapshot time is wrong, start afresh: remove resourcesync/ from " + n(flagOut) + " and build without " + n(flagPrevious)
	case errors.Is(err, previous.ErrChanged):
		return n(flagPrevious) + " was published again while this build ran: run the build again"
	case errors.Is(err, previous.ErrDeadline):
		return "if the server is slow but sound, allow it more time with " + n(flagFetchTimeout)
	case errors.Is(err, previous.ErrUnreachable) && errors.Is(err, previous.ErrNothingPublished):
		return "for the very first build there is nothing to compare with: leave " + n(flagPrevious) + " out, or add " + n(flagFirstBuildOK) + " to run the same command from the first deploy on"
	case errors.Is(err, previous.ErrUnreachable):
		return "check " + n(flagPrevious) + "; for the very first build there is nothing to compare with: leave " + n(flagPrevious) + " out"
	case errors.Is(err, previous.ErrNotResourceSync), errors.Is(err, previous.ErrCapability):
		return n(flagPrevious) + " must be the output directory of an earlier rsgen build, or the URL it is served at"
	case e.Drop != "":
		return "to go on without that archive, keeping the rest of the change history, add " + n(cmp.Or(keyOf(e.Drop), e.Drop))
	}
	return n(flagPrevious) + " must be a valid earlier build; to start the change history afresh, build once without it"
}

// laterTime says how to give a build a later snapshot time, naming where
// its time came from: --at (or the key at), else $SOURCE_DATE_EPOCH.
func laterTime(at bool, n func(string) string) string {
	if at {
		return "give this build a later " + n(flagAt)
	}
	return "give this build a later $" + envSourceDateEpoch + ", where its snapshot time came from"
}

func buildError(err error) *generator.Error {
	e := &generator.Error{}
	errors.As(err, &e)
	return e
}
