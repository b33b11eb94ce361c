package main

import (
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/text/units"
)

// dryRunPrefix begins the summary lines of a build run with --dry-run.
const dryRunPrefix = "rsgen: dry run: "

// changeLister returns what Config.Changed calls with --dry-run -v: it
// prints each change on stdout, as "created URL"; nil otherwise.
func changeLister(c *cli.Context) func(change, loc string) {
	if !c.Bool(flagDryRun) || !c.Bool(flagVerbose) {
		return nil
	}
	w := c.App.Writer
	return func(change, loc string) { fmt.Fprintln(w, change, loc) }
}

// printDryRun says what a build of set ("" for a build without sets) run
// with --dry-run would have published.
func printDryRun(w io.Writer, set string, rep *generator.Report) {
	prefix := dryRunPrefix
	if set != "" {
		prefix += "set " + set + ": "
	}
	fmt.Fprintf(w, "%swould publish %s (%s) in %s\n", prefix, units.Count(rep.Files, "file"), units.FormatSize(rep.Bytes), units.Count(rep.Documents, "document"))
	if ch := rep.Changes; ch != nil {
		fmt.Fprintf(w, "%ssince %s: %d created, %d updated, %d deleted\n", prefix,
			rsxml.FormatTime(ch.Since.Truncate(time.Second)), ch.Created, ch.Updated, ch.Deleted)
	}
}

// printDryRunEnd ends the summary of a dry run into out.
func printDryRunEnd(w io.Writer, out string) {
	fmt.Fprintf(w, "%snothing was published; %s is as it was\n", dryRunPrefix, out)
}
