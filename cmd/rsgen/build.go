package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/inputs/bucket"
	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/internal/text/units"
)

// buildFlags are the flags of build, in the groups of its help.
func buildFlags() []cli.Flag {
	var flags []cli.Flag
	for _, g := range []struct {
		category string
		flags    []cli.Flag
	}{
		{"SOURCE TREE FLAGS", []cli.Flag{
			&cli.StringFlag{Name: flagBaseURL, EnvVars: []string{envBaseURL}, Usage: "`URL` where SOURCE is served (required; with --export, the URL relative locs are joined to)"},
			&cli.StringSliceFlag{Name: flagInclude, KeepSpace: true, Usage: "publish only files whose path matches `GLOB` (repeatable; ** matches across /)"},
			&cli.StringSliceFlag{Name: flagExclude, KeepSpace: true, Usage: "never publish files or directories whose path matches `GLOB` (repeatable)"},
			&cli.BoolFlag{Name: flagHidden, Usage: "publish hidden files and directories (names starting with .) too"},
			&cli.StringFlag{Name: flagOnError, Usage: "`POLICY` for a file that cannot be read or a bad record of --export: skip it (publish the rest, exit 3) or fail (publish nothing) (default: skip a file, fail at a bad record)"},
			&cli.IntFlag{Name: flagJobs, Aliases: []string{"j"}, Value: hashing.DefaultWorkers(), Usage: "`N` files read and hashed at once"},
		}},
		{"RECORD EXPORT FLAGS", []cli.Flag{
			&cli.StringFlag{Name: flagExport, Usage: "publish the records of `FILE` (JSON Lines or CSV, optionally gzipped; - for stdin) instead of SOURCE"},
		}},
		{"DUMP FLAGS", []cli.Flag{
			&cli.BoolFlag{Name: flagResourceDump, Usage: "also publish the files (an archive's members; with --export, the records' local files, which every published record then needs) as ZIP packages (resourcesync/resourcedump-00001.zip, …), each with its manifest.xml, listed in resourcesync/resourcedump.xml. With --previous, a build without it fails if the previous build had one: --resource-dump=false drops it on purpose"},
		}},
		// The features that carry state across builds: Change Lists, the
		// Change Dump, archives and the hash cache.
		{"CHANGE FLAGS", []cli.Flag{
			&cli.StringFlag{Name: flagPrevious, EnvVars: []string{envPrevious}, Usage: "`DIR|URL` of the previous build, as published: its output directory, the URL where it is served, or the bucket it was deployed to (s3://BUCKET/PREFIX/). Publishes a Change List of what changed since, and carries the earlier ones forward"},
			&cli.BoolFlag{Name: flagFirstBuildOK, Usage: "if nothing is published at --previous yet (no Source Description: no such directory, HTTP 404), publish a first build instead of failing; a broken or unreachable --previous still fails"},
			&cli.StringFlag{Name: flagChangesKeep, Value: defaultChangesKeep, Usage: "`DURATION` Change Lists (and Change Dump packages) stay published, e.g. 30d, 36h"},
			&cli.StringFlag{Name: flagArchive, Usage: "with `KEEP[,lists=EVERY][,dumps=EVERY]`, also publish a Change List Archive (and with --change-dump a Change Dump Archive), each build's changes kept as closed Change Lists for KEEP (at least --changes-keep, e.g. 365d), listed in resourcesync/changelist-archive.xml (needs --previous); lists=EVERY also archives the Resource List whole when the newest archived one is EVERY old or more (e.g. 30d; 1s: every build's but the first), dumps=EVERY the Resource Dump with its packages (with --resource-dump). 0 drops what --previous has (--archive 0, --archive 365d,lists=0); without the flag, a build fails if --previous has an archive"},
			&cli.BoolFlag{Name: flagChangeDump, Usage: "publish a Change Dump too: ZIP packages with the new bytes of what changed, and a manifest of every change (needs --previous). A build without it fails if --previous has one: --change-dump=false drops it on purpose"},
			&cli.StringFlag{Name: flagCache, EnvVars: []string{envCache}, Usage: "hash cache `FILE`: files whose size, times and inode are unchanged are not read again"},
		}},
		{"RESOURCE SET FLAGS", []cli.Flag{
			&cli.StringFlag{Name: flagConfig, Usage: "build the resource sets of the configuration `FILE` together, in place of SOURCE (docs/SETS.md; 'rsgen init' writes one)"},
			&cli.StringSliceFlag{Name: flagRemoveSet, Usage: "with --config: stop publishing the set `NAME` that --previous published, and its change history (. names the one set of a build without sets)"},
		}},
		// Allow on purpose what build refuses by default because it would
		// make every Destination delete its copies (generator/guards.go).
		{"GUARD FLAGS", []cli.Flag{
			&cli.BoolFlag{Name: flagAllowEmpty, Usage: "publish even if SOURCE (or --export) holds nothing to publish; with --previous every resource published before is then deleted"},
			&cli.StringFlag{Name: flagMaxDelete, Value: generator.DefaultDeleteLimit.String(), Usage: "fail if a build with --previous would delete more than `N` of the resources published before: a count, a percentage (5 deletions or fewer always pass), or all"},
			&cli.BoolFlag{Name: flagNewHistory, Usage: "if --previous was published at other URLs (a moved site), publish a first build, starting a new change history, instead of failing; no effect once --previous is this site's"},
		}},
		{"HOSTING FLAGS", []cli.Flag{
			&cli.StringSliceFlag{Name: flagHost, Usage: "write the configuration `HOST` needs to serve the output right: " + strings.Join(hosting.Hosts, ", ") + " (repeatable, or comma-separated)"},
		}},
		{"NOTIFICATION FLAGS", []cli.Flag{
			&cli.StringFlag{Name: flagHub, EnvVars: []string{envHub}, Usage: "advertise change and framework notification channels on the WebSub hub at `URL` in the Capability List (see rsgen notify)"},
		}},
		{"OUTPUT FLAGS", []cli.Flag{
			&cli.StringFlag{Name: flagOut, Aliases: []string{"o"}, Usage: "`DIR` to write the documents into (default: SOURCE)"},
			&cli.StringFlag{Name: flagDocsURL, EnvVars: []string{envDocsURL}, Usage: "`URL` where --out is served (default: --base-url)"},
			&cli.StringFlag{Name: flagHash, EnvVars: []string{envHash}, Value: "sha-256", Usage: "digests to publish, a comma-separated `LIST` of md5, sha-1, sha-256, blake3"},
			&cli.StringFlag{Name: flagAt, Usage: "snapshot `TIME` (RFC 3339); default: $SOURCE_DATE_EPOCH, else now. A fixed time gives byte-identical output"},
			&cli.DurationFlag{Name: flagTimeout, DefaultText: "no limit", Usage: "give up, publishing nothing, when the build takes longer than `DURATION`"},
			&cli.BoolFlag{Name: flagQuiet, Aliases: []string{"q"}, Usage: "print only errors: no progress, no summary"},
			&cli.BoolFlag{Name: flagDryRun, Usage: "do everything but publish: say what would be published, leave --out as it was, exit as the build would"},
			&cli.BoolFlag{Name: flagVerbose, Aliases: []string{"v"}, Usage: "with --dry-run, list on stdout the URLs that would be created, updated and deleted"},
		}},
	} {
		for _, f := range g.flags {
			// The field Category, which every flag type of urfave/cli v2
			// has, with no setter.
			reflect.ValueOf(f).Elem().FieldByName("Category").SetString(g.category)
		}
		flags = append(flags, g.flags...)
	}
	return flags
}

func buildCommand() *cli.Command {
	return withHelp(&cli.Command{
		Name:      "build",
		Usage:     "publish the ResourceSync documents of a tree, archive or export",
		ArgsUsage: "SOURCE | --export FILE | --config FILE",
		Description: `Scans SOURCE, hashes every published file in parallel and writes, into --out:
  .well-known/resourcesync           the Source Description
  resourcesync/capabilitylist.xml    the Capability List
  resourcesync/resourcelist.xml      the Resource List, or a Resource List
                                     Index over resourcelist-00001.xml, …
                                     past 50,000 entries or 50 MB
Everything is staged and moved into place only when complete.

SOURCE may also be a .tar, .tar.gz, .tgz or .zip archive of a tree. With
--export FILE, the records of a catalogue (JSON Lines or CSV) are published
instead, with a Change List of a trailing window (changelist.xml); see
docs/EXPORTS.md.

Flags may come before or after SOURCE; after --, every word is an argument.`,
		Flags:  buildFlags(),
		Action: runBuild,
	}, exitCodes,
		"# Publish public/, served at https://example.org/, into public/ itself\n"+
			"rsgen build public --base-url https://example.org/",
		"# In CI: the documents apart, with a Change List since what is live\n"+
			"rsgen build public --base-url https://example.org/ --out rs \\\n"+
			"  --previous https://example.org/ --first-build-ok",
		"# In a pull request: what the build would change, publishing nothing\n"+
			"rsgen build public --base-url https://example.org/ --out rs \\\n"+
			"  --previous https://example.org/ --dry-run -v",
		"# An archive, with its files as a Resource Dump\n"+
			"rsgen build site.tar.gz --base-url https://example.org/ --out rs \\\n"+
			"  --resource-dump",
		"# The records of a catalogue (see docs/EXPORTS.md)\n"+
			"rsgen build --export records.jsonl --base-url https://example.org/ --out rs",
		"# Several resource sets, from a file that 'rsgen init' starts (docs/SETS.md)\n"+
			"rsgen build --config rsgen.toml",
	)
}

// leapSecond matches the seconds of a time given as 60: a leap second.
var leapSecond = regexp.MustCompile(`T\d\d:\d\d:60`)

// snapshotTime reads --at, else $SOURCE_DATE_EPOCH; fixed reports that one
// was given. Config.Validate checks its range.
func snapshotTime(at string) (t time.Time, fixed bool, err error) {
	if at != "" {
		t, err := time.Parse(time.RFC3339Nano, at)
		switch {
		case err != nil && leapSecond.MatchString(at):
			return t, false, flagErr(flagAt, "give the second before it (:59) or after it", " %q is a leap second, which rsgen cannot represent", at)
		case err != nil:
			return t, false, flagErr(flagAt, "for example --at 2024-05-01T12:00:00Z", " %q is not an RFC 3339 time", at)
		}
		return t.UTC(), true, nil
	}
	if s, ok := os.LookupEnv(envSourceDateEpoch); ok && s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return t, false, usageErr("it is a number of seconds since 1970-01-01 UTC", "$%s=%q is not a number of seconds", envSourceDateEpoch, s)
		}
		return time.Unix(n, 0).UTC(), true, nil
	}
	return time.Time{}, false, nil
}

func runBuild(c *cli.Context) error {
	if c.String(flagConfig) != "" {
		return runSite(c)
	}
	if c.IsSet(flagRemoveSet) {
		return flagErr(flagRemoveSet, "sets are built from a configuration file", " needs --%s", flagConfig)
	}
	args := c.Args().Slice()
	switch {
	case len(args) == 0 && c.String(flagExport) == "":
		return usageErr("give a directory, or a .tar, .tar.gz, .tgz or .zip archive of one: rsgen build SOURCE --base-url URL "+
			"(or, for a record export, --export FILE)", "no SOURCE given")
	case len(args) > 1:
		return usageErr("give one SOURCE; quote a path with spaces", "too many arguments: %s", strings.Join(args, " "))
	}
	cfg, _, err := lineConfig(c)
	if err != nil {
		return err
	}
	cfg.Source = c.Args().First()
	return buildOne(c, cfg, func(ctx context.Context, err error) error {
		if ue := fieldsErr(err, withFlags(c), "see 'rsgen build --help'", fieldHints); ue != nil {
			return ue
		}
		return buildFailure(c, ctx, cfg, err, cliName)
	})
}

// buildOne publishes cfg, the one set of a build without sets, whose
// options are those of c or of a configuration file of one set; fail is
// the failure to report for an error of the build run under ctx.
func buildOne(c *cli.Context, cfg generator.Config, fail func(ctx context.Context, err error) error) error {
	stderr := c.App.ErrWriter
	quiet := c.Bool(flagQuiet)
	cfg.Stats = new(report.Stats)
	cfg.Notice = noticer(stderr, quiet)
	cfg.DryRun, cfg.Changed = c.Bool(flagDryRun), changeLister(c)
	if !quiet && !cfg.BaseURL.IsZero() && cfg.BaseURL.HasPath() && cfg.DocsURL.IsZero() {
		fmt.Fprintf(stderr, "rsgen: warning: --base-url %s has a path, so the Source Description is not at the root of the host; give Destinations its URL: %s%s\n",
			cfg.BaseURL, cfg.BaseURL, stage.WellKnownFile)
	}
	ctx, cancel, err := buildContext(c)
	if err != nil {
		return err
	}
	defer cancel()
	stopProgress := startProgress(stderr, cfg.Stats, quiet, cfg.Export != "")
	rep, err := generator.Build(ctx, cfg)
	stopProgress(err != nil)
	if err != nil {
		return fail(ctx, err)
	}
	if rep.Export != nil {
		return finishExport(stderr, cfg, rep, quiet)
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(stderr, "rsgen: skipped: %s\n", p.Error())
	}
	out := cfg.Out
	if out == "" {
		out = cfg.Source
	}
	switch {
	case quiet:
	case cfg.DryRun:
		printDryRun(stderr, "", rep)
		printDryRunEnd(stderr, out)
	default:
		fmt.Fprintf(stderr, "rsgen: published %s (%s) in %s to %s in %s\n",
			units.Count(rep.Files, "file"), units.FormatSize(rep.Bytes), units.Count(rep.Documents, "document"), out, rep.Elapsed.Round(time.Millisecond))
		printChanges(stderr, "rsgen: ", rep)
		if apart(cfg.Source, cfg.Out) {
			fmt.Fprintf(stderr, "rsgen: notice: %s holds the documents, not the files of %s; to preview both: rsgen serve --%s %s %s\n",
				cfg.Out, cfg.Source, flagContent, cfg.Source, cfg.Out)
		}
	}
	if len(rep.Problems) > 0 {
		return &exitError{code: exitPartial, err: errors.New(partialSummary(rep.Problems)),
			hint: "fix or --exclude them; --on-error=fail makes this a failure"}
	}
	return nil
}

// buildFailure is the failure to report for err, the error of a build of
// cfg run under ctx, with a hint that says what to do, naming flags with n.
func buildFailure(c *cli.Context, ctx context.Context, cfg generator.Config, err error, n namer) error {
	if c.Context.Err() != nil { // stopped by a signal: whatever the build was doing then failed with it
		return failure(errors.New("interrupted; nothing was published, the output is as it was"), "")
	}
	stderr := c.App.ErrWriter
	if ue := exportUsageErr(err, n); ue != nil {
		return ue
	}
	if ge := guardFailure(c, cfg, err, n); ge != nil {
		return ge
	}
	hint := badRecords(stderr, err, n)
	switch kind := buildError(err); {
	case c.Context.Err() == nil && errors.Is(context.Cause(ctx), errBuildTimeout):
		err = fmt.Errorf("the build took longer than --%s %v and was stopped; nothing was published, the output is as it was", flagTimeout, c.Duration(flagTimeout))
		hint = "allow more time with " + n(flagTimeout)
	case hint != "":
	case kind.Kind == generator.KindFailFast:
		hint = "fix or " + n(flagExclude) + " the file, or drop " + n(flagFailFast) + " to publish the rest"
	case errors.Is(err, bucket.ErrConfig):
		return &exitError{code: exitUsage, err: err, hint: "check AWS_PROFILE, AWS_REGION and the shared config files (aws configure list shows what is found); docs/BUCKETS.md#configuration"}
	case kind.Kind == generator.KindSource && strings.HasPrefix(cfg.Source, "s3://"):
		return &exitError{code: exitUsage, err: err, hint: "give as " + n(argSource) + " s3://BUCKET/ or s3://BUCKET/PREFIX/ (docs/BUCKETS.md)"}
	case kind.Kind == generator.KindSource && strings.HasPrefix(cfg.Source, "s3-inventory://"):
		return &exitError{code: exitUsage, err: err, hint: "give as " + n(argSource) + " s3-inventory://BUCKET/KEY/manifest.json, the manifest of an S3 Inventory (docs/BUCKETS.md)"}
	case kind.Kind == generator.KindSource: // a wrong argument: a usage error
		return &exitError{code: exitUsage, err: err, hint: "give as " + n(argSource) + " an existing directory that rsgen can read"}
	case errors.Is(err, stage.ErrBusy):
		hint = "two builds into one " + n(flagOut) + " could publish an older snapshot over a newer one: run them one after the other"
	case errors.Is(err, stage.ErrNotWritten):
		hint = "rsgen replaces the resourcesync/ folder of " + n(flagOut) + " at every build: move those files elsewhere, or choose another " + n(flagOut)
	case errors.Is(err, stage.ErrOlderSnapshot):
		hint = "give a later " + n(flagAt) + " (or SOURCE_DATE_EPOCH), or publish into another " + n(flagOut) + "; if the published snapshot time is wrong, remove resourcesync/ from " + n(flagOut) + " (Destinations then sync afresh)"
	case kind.Kind == generator.KindOutput:
		hint = "give " + n(flagOut) + " a directory that rsgen can create and write into"
	case errors.Is(err, hosting.ErrNotOurs): // a host's file that is the user's
		hint = "move that file away; or, to keep a " + hosting.Headers + " or " + hosting.HTAccess + " of your own, add the lines '" +
			hosting.BlockBegin + "' and '" + hosting.BlockEnd + "' to it: rsgen then writes its part between them at every build and keeps the rest"
	case kind.Kind == generator.KindLimit:
		flags := make([]string, len(kind.Raise))
		for i, f := range kind.Raise {
			flags[i] = n(cmp.Or(keyOf(f), f))
		}
		hint = "raise " + strings.Join(flags, " or ")
	case kind.Kind == generator.KindInvalidOutput:
		hint = "please report it at https://github.com/rsgen/rsgen/issues with the findings above"
	case changesHint(err, n) != "":
		hint = changesHint(err, n)
	}
	return failure(err, hint)
}

// buildError is the *generator.Error in err, or a zero one.
func buildError(err error) *generator.Error {
	e := &generator.Error{}
	errors.As(err, &e)
	return e
}

// partialSummary says what a build that published the rest left out:
// files, and directories that could not be read, whose files are not
// known, so are not counted as files.
func partialSummary(problems []report.Problem) string {
	files, dirs := 0, 0
	for _, p := range problems {
		if p.Dir {
			dirs++
		} else {
			files++
		}
	}
	var what []string
	if files > 0 {
		what = append(what, units.Count(files, "file")+" could not be published")
	}
	switch {
	case dirs == 1:
		what = append(what, "1 directory could not be read, so files in it may be missing")
	case dirs > 1:
		what = append(what, strconv.Itoa(dirs)+" directories could not be read, so files in them may be missing")
	}
	return strings.Join(what, ", and ") + " (named above)"
}

// apart reports whether out is a directory other than the directory
// source: served as it is, it has none of the files the documents list.
func apart(source, out string) bool {
	if out == "" {
		return false
	}
	src, err1 := os.Stat(source)
	dst, err2 := os.Stat(out)
	return err1 == nil && err2 == nil && src.IsDir() && !os.SameFile(src, dst)
}

// noticer prints the notices of a build on stderr, unless quiet.
func noticer(stderr io.Writer, quiet bool) func(msg string) {
	return func(msg string) {
		if !quiet {
			fmt.Fprintf(stderr, "rsgen: notice: %s\n", msg)
		}
	}
}

// buildContext is the context of a build: c's, ended at --timeout.
func buildContext(c *cli.Context) (context.Context, context.CancelFunc, error) {
	d := c.Duration(flagTimeout)
	switch {
	case d < 0:
		return nil, nil, usageErr("for example --"+flagTimeout+" 30m; leave it out for no limit", "--%s must not be negative", flagTimeout)
	case d > 0:
		ctx, cancel := context.WithTimeoutCause(c.Context, d, errBuildTimeout)
		return ctx, cancel, nil
	}
	return c.Context, func() {}, nil
}

// errBuildTimeout is the cause of a build's end at --timeout.
var errBuildTimeout = errors.New("the build took too long")
