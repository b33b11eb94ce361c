package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/generator"
)

// A namer names a flag of rsgen build (its name without dashes, or
// argSource) in a message or hint: as the command line does (cliName), or
// as a key of the configuration file.
type namer func(flag string) string

// argSource is build's argument, which a namer names too.
const argSource = "SOURCE"

// cliName names a flag as the command line does.
func cliName(flag string) string {
	if flag == argSource {
		return flag
	}
	return "--" + flag
}

// fieldFlags names the flag (or argument) of rsgen build that sets each
// field of generator.Config that Config.Validate may name.
var fieldFlags = map[string]string{
	"Source":                          "the SOURCE",
	"Out":                             "--" + flagOut,
	"BaseURL":                         "--" + flagBaseURL,
	"DocsURL":                         "--" + flagDocsURL,
	"Export":                          "--" + flagExport,
	"ExportFormat":                    "--" + flagExportFormat,
	"ChangesWindow":                   "--" + flagChangesWindow,
	"SkipBadRecords":                  "--" + flagSkipBadRecords,
	"Filter.Include":                  "--" + flagInclude,
	"Filter.Exclude":                  "--" + flagExclude,
	"Filter.Hidden":                   "--" + flagHidden,
	"FollowSymlinks":                  "--" + flagFollowSymlinks,
	"Jobs":                            "--" + flagJobs,
	"Hashes":                          "--" + flagHash,
	"Limits.MaxEntries":               "--" + flagMaxEntries,
	"Limits.MaxBytes":                 "--" + flagMaxBytes,
	"At":                              "--" + flagAt,
	"Describedby":                     "--" + flagDescribedby,
	"Dump.Enabled":                    "--" + flagResourceDump,
	"Dump.MaxBytes":                   "--" + flagDumpMaxBytes,
	"Dump.Compression":                "--" + flagDumpCompression,
	"Hosts":                           "--" + flagHost,
	"MaxDelete":                       "--" + flagMaxDelete,
	"Changes.Previous":                "--" + flagPrevious,
	"Changes.Dump":                    "--" + flagChangeDump,
	"Changes.FirstBuildOK":            "--" + flagFirstBuildOK,
	"Changes.NewHistory":              "--" + flagNewHistory,
	"Changes.Keep":                    "--" + flagChangesKeep,
	"Changes.ArchiveKeep":             "--" + flagArchiveKeep,
	"Changes.DropArchive":             "--" + flagArchiveKeep + " 0",
	"Changes.ArchiveResourceLists":    "--" + flagArchiveResourceLists,
	"Changes.DropResourceListArchive": "--" + flagArchiveResourceLists + " 0",
	"Changes.ArchiveResourceDumps":    "--" + flagArchiveResourceDumps,
	"Changes.DropResourceDumpArchive": "--" + flagArchiveResourceDumps + " 0",
	"Changes.HTTP.Deadline":           "--" + flagFetchTimeout,
	"Cache":                           "--" + flagCache,
	"Notification.Hub":                "--" + flagHub,
	"Notification.ChangeTopic":        "--" + flagChangeTopic,
	"Notification.FrameworkTopic":     "--" + flagFrameworkTopic,
}

// flagOf returns the flag of a Config field, or the field itself.
func flagOf(field string) string {
	if f, ok := fieldFlags[field]; ok {
		return f
	}
	return field
}

// fieldHints say what to do about a value that Config.Validate refuses,
// by field, where a hint helps.
var fieldHints = map[string]string{
	"At":                "the snapshot time is --at, else $SOURCE_DATE_EPOCH, else the clock",
	"BaseURL":           "set --base-url (or $RSGEN_BASE_URL) to the URL where SOURCE is served",
	"Limits.MaxEntries": "the spec allows at most 50000 entries per document",
	"Limits.MaxBytes":   "the spec allows at most 50MiB (52428800 bytes) per document",
	"Filter.Include":    "patterns are doublestar globs such as 'drafts/**' or '**/*.tmp'",
	"Filter.Exclude":    "patterns are doublestar globs such as 'drafts/**' or '**/*.tmp'",
}

// configUsageErr turns the field errors of Config.Validate in err into a
// usage error (exit 2) that names the flags of c, or returns nil if err
// has none: Config.Validate checks the values and how they combine.
func configUsageErr(c *cli.Context, err error) error {
	fields := generator.FieldErrors(err)
	if len(fields) == 0 {
		return nil
	}
	name := func(field string) string {
		if field == "At" && c.String(flagAt) == "" {
			return "$" + envSourceDateEpoch // the snapshot time came from it
		}
		return flagOf(field)
	}
	msgs := make([]string, len(fields))
	for i, fe := range fields {
		msgs[i] = fe.Describe(name)
	}
	hint := "see 'rsgen build --help'"
	if fe := fields[0]; fe.With == "" && fieldHints[fe.Field] != "" {
		hint = fieldHints[fe.Field]
	}
	return usageErr(hint, "%s", strings.Join(msgs, "; "))
}
