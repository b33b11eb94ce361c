package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/text/units"
)

const dryRunPrefix = "rsgen: dry run: "

// reportOne says on stderr what the build of cfg published, unless quiet,
// and returns the "partial" error of the files or records it left out.
func reportOne(stderr io.Writer, cfg generator.Config, rep *generator.Report, quiet bool) error {
	for _, p := range rep.Problems {
		fmt.Fprintf(stderr, "rsgen: skipped: %s\n", p.Error())
	}
	out, ex := cmp.Or(cfg.Out, cfg.Source), rep.Export
	what, extra := units.Count(rep.Files, "file")+" ("+units.FormatSize(rep.Bytes)+")", ""
	if ex != nil {
		what = units.Count(rep.Files, "record") + " (" + units.FormatSize(rep.Bytes) + ") from " + ex.Name
		if !quiet {
			extra = exportNotes(stderr, ex)
		}
	}
	switch {
	case quiet:
	case cfg.DryRun:
		fmt.Fprintf(stderr, "%swould publish %s in %s%s\n", dryRunPrefix, what, units.Count(rep.Documents, "document"), extra)
		printChanges(stderr, dryRunPrefix, rep, true)
		fmt.Fprintf(stderr, "%snothing was published; %s is as it was\n", dryRunPrefix, out)
	default:
		fmt.Fprintf(stderr, "rsgen: published %s in %s to %s in %s%s\n", what, units.Count(rep.Documents, "document"), out, rep.Elapsed.Round(time.Millisecond), extra)
		if ex == nil {
			printChanges(stderr, "rsgen: ", rep, false)
		}
		if apart(cfg.Source, cfg.Out) {
			fmt.Fprintf(stderr, "rsgen: notice: %s holds the documents, not the files of %s; to preview both: rsgen serve --%s %s %s\n",
				cfg.Out, cfg.Source, flagContent, cfg.Source, cfg.Out)
		}
	}
	if ex != nil && len(rep.Problems) > 0 {
		var what, hints []string
		if ex.Bad > 0 {
			what = append(what, units.Count(ex.Bad, "bad record")+" skipped")
			hints = append(hints, "fix them in the export; without --on-error=skip they fail the build")
		}
		if ex.Unpackaged > 0 {
			what = append(what, units.Count(ex.Unpackaged, "record")+" left out, "+units.Plural(ex.Unpackaged, "its file", "their files")+" could not be packaged")
			if ex.Changed > 0 {
				hints = append(hints, "publish again once the files are stable")
			}
			if ex.Changed < ex.Unpackaged { // a name a package cannot hold, a file that cannot be opened…
				hints = append(hints, "rename or fix the files named above, or take their records out of the export, or publish without a Resource Dump")
			}
		}
		if len(what) == 0 {
			what = append(what, units.Count(len(rep.Problems), "record")+" not published")
		}
		return &exitError{code: exitPartial, err: fmt.Errorf("%s (named above)", strings.Join(what, "; ")), hint: strings.Join(hints, "; ")}
	}
	return partial(rep.Problems, "fix or --exclude them; --on-error=fail makes this a failure")
}

// report says on stderr what the build of site published, unless quiet,
// and returns the "partial" error of the files it left out.
func (f *siteFile) report(stderr io.Writer, site generator.Site, rep *generator.SiteReport, quiet bool) error {
	var problems []report.Problem
	for i, r := range rep.Sets {
		for _, p := range r.Problems {
			fmt.Fprintf(stderr, "rsgen: skipped: set %s: %s\n", site.Sets[i].Set, p.Error())
		}
		problems = append(problems, r.Problems...)
		prefix, what := "rsgen: set "+site.Sets[i].Set+": ", units.Count(r.Files, "file")+" ("+units.FormatSize(r.Bytes)+") in "+units.Count(r.Documents, "document")
		switch {
		case quiet:
		case site.DryRun:
			fmt.Fprintf(stderr, "%sset %s: would publish %s\n", dryRunPrefix, site.Sets[i].Set, what)
			printChanges(stderr, dryRunPrefix+"set "+site.Sets[i].Set+": ", r, true)
		default:
			fmt.Fprintf(stderr, "%spublished %s\n", prefix, what)
			if r.Changes != nil {
				printChanges(stderr, prefix, r, false)
			}
		}
	}
	switch {
	case quiet:
	case site.DryRun:
		fmt.Fprintf(stderr, "%snothing was published; %s is as it was\n", dryRunPrefix, site.Out)
	default:
		fmt.Fprintf(stderr, "rsgen: published %s in %s to %s in %s\n", units.Count(len(rep.Sets), "set"),
			units.Count(rep.Documents, "document"), site.Out, rep.Elapsed.Round(time.Millisecond))
	}
	return partial(problems, "fix or exclude them in "+f.Path+"; fail-fast makes this a failure")
}

// exportNotes prints the warnings of a record export and returns the end
// of its summary line: deletions, records withheld, its Change List.
func exportNotes(stderr io.Writer, ex *report.Export) string {
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
	if len(notes) == 0 {
		return ""
	}
	return "; " + strings.Join(notes, ", ")
}

// changeLister is what Config.Changed calls with --dry-run -v: it prints
// each change on stdout, as "created URL"; nil otherwise.
func changeLister(c *cli.Context) func(change, loc string) {
	if !c.Bool(flagDryRun) || !c.Bool(flagVerbose) {
		return nil
	}
	return func(change, loc string) { fmt.Fprintln(c.App.Writer, change, loc) }
}

// printChanges reports on one line what a build found changed, and what
// the hash cache spared; a dry run, only what changed.
func printChanges(w io.Writer, prefix string, rep *generator.Report, dryRun bool) {
	if rep.Cached > 0 && !dryRun {
		fmt.Fprintf(w, "%s%d of %s unchanged in the hash cache, not read\n", prefix, rep.Cached, units.Count(rep.Files, "file"))
	}
	ch := rep.Changes
	if ch == nil {
		return
	}
	fmt.Fprintf(w, "%ssince %s: %d created, %d updated, %d deleted", prefix, rsxml.FormatTime(ch.Since.Truncate(time.Second)), ch.Created, ch.Updated, ch.Deleted)
	if !dryRun {
		fmt.Fprintf(w, "; %s published", units.Count(ch.Lists, "Change List"))
		if ch.Dropped > 0 {
			fmt.Fprintf(w, ", %d older dropped", ch.Dropped)
		}
		if ch.Packages > 0 {
			fmt.Fprintf(w, ", %s in the Change Dump", units.Count(ch.Packages, "package"))
		}
		if ch.Archived > 0 {
			fmt.Fprintf(w, ", %s in the archive", units.Count(ch.Archived, "Change List"))
		}
	}
	fmt.Fprintln(w)
}

// partial is the error of a build that published the rest but left out
// problems, with hint, or nil: a directory that could not be read is not
// counted as files, which are not known.
func partial(problems []report.Problem, hint string) error {
	if len(problems) == 0 {
		return nil
	}
	dirs := 0
	for _, p := range problems {
		if p.Dir {
			dirs++
		}
	}
	var what []string
	if files := len(problems) - dirs; files > 0 {
		what = append(what, units.Count(files, "file")+" could not be published")
	}
	if dirs > 0 {
		what = append(what, units.Count(dirs, "directory")+" could not be read, so files in "+units.Plural(dirs, "it", "them")+" may be missing")
	}
	return &exitError{code: exitPartial, err: errors.New(strings.Join(what, ", and ") + " (named above)"), hint: hint}
}

// apart reports whether out is a directory other than the directory
// source, so has none of the files the documents list.
func apart(source, out string) bool {
	if out == "" {
		return false
	}
	src, err1 := os.Stat(source)
	dst, err2 := os.Stat(out)
	return err1 == nil && err2 == nil && src.IsDir() && !os.SameFile(src, dst)
}

func noticer(stderr io.Writer, quiet bool) func(msg string) {
	return func(msg string) {
		if !quiet {
			fmt.Fprintf(stderr, "rsgen: notice: %s\n", msg)
		}
	}
}
