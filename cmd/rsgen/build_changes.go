package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/text/units"
)

// userAgent is the User-Agent of the requests of a build.
func userAgent() string { return "rsgen/" + version() + " (+https://github.com/rsgen/rsgen)" }

// defaultChangesKeep is the default of --changes-keep.
const defaultChangesKeep = "30d"

// changesHint names what to do about a failure to use --previous.
func changesHint(err error, n namer) string {
	switch kind := buildError(err); {
	case kind.Kind != generator.KindPrevious && kind.Kind != generator.KindClockBehind:
		return ""
	case kind.Kind == generator.KindClockBehind:
		return "wait until the clock has passed it, or give a later " + n(flagAt) + "; if that snapshot time is wrong, start afresh: remove resourcesync/ from " + n(flagOut) + " and build without " + n(flagPrevious)
	case errors.Is(err, previous.ErrLater):
		return n(flagPrevious) + " must be an earlier build: check it, or give this build a later " + n(flagAt)
	case errors.Is(err, previous.ErrChanged):
		return n(flagPrevious) + " was published again while this build ran: run the build again"
	case errors.Is(err, previous.ErrDeadline):
		return "if the server is slow but sound, allow it more time with " + n(flagFetchTimeout)
	case errors.Is(err, previous.ErrUnreachable):
		if errors.Is(err, previous.ErrNothingPublished) {
			return "for the very first build there is nothing to compare with: leave " + n(flagPrevious) + " out, or add " + n(flagFirstBuildOK) + " to run the same command from the first deploy on"
		}
		return "check " + n(flagPrevious) + "; for the very first build there is nothing to compare with: leave " + n(flagPrevious) + " out"
	case errors.Is(err, previous.ErrNotResourceSync), errors.Is(err, previous.ErrCapability):
		return n(flagPrevious) + " must be the output directory of an earlier rsgen build, or the URL it is served at"
	case kind.Drop != "":
		return "to go on without that archive, keeping the rest of the change history, add " + n(cmp.Or(keyOf(kind.Drop), kind.Drop))
	}
	return n(flagPrevious) + " must be a valid earlier build; to start the change history afresh, build once without it"
}

// printChanges reports what a build found changed, on one line, and what
// the hash cache spared.
func printChanges(w io.Writer, prefix string, rep *generator.Report) {
	if rep.Cached > 0 {
		fmt.Fprintf(w, "%s%d of %s unchanged in the hash cache, not read\n", prefix, rep.Cached, units.Count(rep.Files, "file"))
	}
	ch := rep.Changes
	if ch == nil {
		return
	}
	fmt.Fprintf(w, "%ssince %s: %d created, %d updated, %d deleted; %s published", prefix,
		rsxml.FormatTime(ch.Since.Truncate(time.Second)), ch.Created, ch.Updated, ch.Deleted, units.Count(ch.Lists, "Change List"))
	if ch.Dropped > 0 {
		fmt.Fprintf(w, ", %d older dropped", ch.Dropped)
	}
	if ch.Packages > 0 {
		fmt.Fprintf(w, ", %s in the Change Dump", units.Count(ch.Packages, "package"))
	}
	if ch.Archived > 0 {
		fmt.Fprintf(w, ", %s in the archive", units.Count(ch.Archived, "Change List"))
	}
	fmt.Fprintln(w)
}
