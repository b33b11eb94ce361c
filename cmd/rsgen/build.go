package main

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/hosting"
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
			&cli.StringFlag{Name: flagBaseURL, EnvVars: []string{"RSGEN_BASE_URL"}, Usage: "`URL` where SOURCE is served (required; with --export, the URL relative locs are joined to)"},
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
			&cli.StringFlag{Name: flagPrevious, EnvVars: []string{"RSGEN_PREVIOUS"}, Usage: "`DIR|URL` of the previous build, as published: its output directory, the URL where it is served, or the bucket it was deployed to (s3://BUCKET/PREFIX/). Publishes a Change List of what changed since, and carries the earlier ones forward"},
			&cli.BoolFlag{Name: flagFirstBuildOK, Usage: "if nothing is published at --previous yet (no Source Description: no such directory, HTTP 404), publish a first build instead of failing; a broken or unreachable --previous still fails"},
			&cli.StringFlag{Name: flagChangesKeep, Value: defaultChangesKeep, Usage: "`DURATION` Change Lists (and Change Dump packages) stay published, e.g. 30d, 36h"},
			&cli.StringFlag{Name: flagArchive, Usage: "with `KEEP[,lists=EVERY][,dumps=EVERY]`, also publish a Change List Archive (and with --change-dump a Change Dump Archive), each build's changes kept as closed Change Lists for KEEP (at least --changes-keep, e.g. 365d), listed in resourcesync/changelist-archive.xml (needs --previous); lists=EVERY also archives the Resource List whole when the newest archived one is EVERY old or more (e.g. 30d; 1s: every build's but the first), dumps=EVERY the Resource Dump with its packages (with --resource-dump). 0 drops what --previous has (--archive 0, --archive 365d,lists=0); without the flag, a build fails if --previous has an archive"},
			&cli.BoolFlag{Name: flagChangeDump, Usage: "publish a Change Dump too: ZIP packages with the new bytes of what changed, and a manifest of every change (needs --previous). A build without it fails if --previous has one: --change-dump=false drops it on purpose"},
			&cli.StringFlag{Name: flagCache, EnvVars: []string{"RSGEN_CACHE"}, Usage: "hash cache `FILE`: files whose size, times and inode are unchanged are not read again"},
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
			&cli.StringFlag{Name: flagHub, EnvVars: []string{"RSGEN_HUB"}, Usage: "advertise change and framework notification channels on the WebSub hub at `URL` in the Capability List (see rsgen notify)"},
		}},
		{"OUTPUT FLAGS", []cli.Flag{
			&cli.StringFlag{Name: flagOut, Aliases: []string{"o"}, Usage: "`DIR` to write the documents into (default: SOURCE)"},
			&cli.StringFlag{Name: flagDocsURL, EnvVars: []string{"RSGEN_DOCS_URL"}, Usage: "`URL` where --out is served (default: --base-url)"},
			&cli.StringFlag{Name: flagHash, EnvVars: []string{"RSGEN_HASH"}, Value: "sha-256", Usage: "digests to publish, a comma-separated `LIST` of md5, sha-1, sha-256, blake3"},
			&cli.StringFlag{Name: flagAt, Usage: "snapshot `TIME` (RFC 3339); default: $SOURCE_DATE_EPOCH, else now. A fixed time gives byte-identical output"},
			&cli.DurationFlag{Name: flagTimeout, DefaultText: "no limit", Usage: "give up, publishing nothing, when the build takes longer than `DURATION`"},
			&cli.BoolFlag{Name: flagQuiet, Aliases: []string{"q"}, Usage: "print only errors: no progress, no summary"},
			&cli.BoolFlag{Name: flagDryRun, Usage: "do everything but publish: say what would be published, leave --out as it was, exit as the build would"},
			&cli.BoolFlag{Name: flagVerbose, Aliases: []string{"v"}, Usage: "with --dry-run, list on stdout the URLs that would be created, updated and deleted"},
		}},
	} {
		for _, f := range g.flags { // Category: every flag type of urfave/cli v2 has it, with no setter
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
		Description: `Scans SOURCE (a directory, or a .tar, .tar.gz, .tgz or .zip archive of one),
hashes every published file and writes into --out the Source Description
(.well-known/resourcesync), the Capability List and the Resource List
(resourcesync/), staged and moved into place only when complete. With
--export FILE, the records of a catalogue are published (docs/EXPORTS.md).
Flags may come before or after SOURCE; after --, every word is an argument.`,
		Flags:  buildFlags(),
		Action: runBuild,
	}, exitCodes,
		"# Publish public/, served at https://example.org/, into public/ itself\n"+
			"rsgen build public --base-url https://example.org/",
		"# In CI: the documents apart, with a Change List since what is live\n"+
			"rsgen build public --base-url https://example.org/ --out rs \\\n"+
			"  --previous https://example.org/ --first-build-ok",
		"# Several resource sets, from a file that 'rsgen init' starts (docs/SETS.md)\n"+
			"rsgen build --config rsgen.toml",
	)
}

// snapshotTime reads --at, else $SOURCE_DATE_EPOCH; fixed reports that one
// was given. Config.Validate checks its range.
func snapshotTime(at string) (t time.Time, fixed bool, err error) {
	if at != "" {
		if msg, leap := units.TimeError(at); msg != "" {
			hint := "for example --at 2024-05-01T12:00:00Z"
			if leap {
				hint = "give the second before it (:59) or after it"
			}
			return t, false, flagErr(flagAt, hint, " %s", msg)
		}
		t, _ := time.Parse(time.RFC3339Nano, at)
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
	// The command line alone: a site of one set, as a file of one set
	// whose every key the command line gives.
	line := &siteFile{SiteFile: &generator.SiteFile{Top: generator.SiteTable{Line: 1, Keys: map[string]int{keySource: 0}, Config: &generator.Config{Source: c.Args().First()}}}}
	return line.build(c)
}

// errBuildTimeout is the cause of a build's end at --timeout.
var errBuildTimeout = errors.New("the build took too long")

// runBuilder runs build under --timeout, its progress drawn from stats on
// stderr; fail is the failure to report for an error of the build.
func runBuilder[R any](c *cli.Context, stats *report.Stats, build func(context.Context) (R, error), fail func(context.Context, error) error) (rep R, err error) {
	ctx := c.Context
	switch d := c.Duration(flagTimeout); {
	case d < 0:
		return rep, usageErr("for example --"+flagTimeout+" 30m; leave it out for no limit", "--%s must not be negative", flagTimeout)
	case d > 0:
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, errBuildTimeout)
		defer cancel()
	}
	stopProgress := startProgress(c.App.ErrWriter, stats, c.Bool(flagQuiet))
	rep, err = build(ctx)
	stopProgress(err != nil)
	if err != nil {
		return rep, fail(ctx, err)
	}
	return rep, nil
}
