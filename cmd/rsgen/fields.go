package main

import (
	"strings"

	"github.com/rsgen/rsgen/generator"
)

// fieldFlags names the flag (or argument) of rsgen build that sets each
// field of generator.Config that Config.Validate may name.
var fieldFlags = map[string]string{
	"Source":                          "SOURCE",
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

// configUsageErr turns the field errors of Config.Validate in err into a
// usage error (exit 2) that names the flags, or returns nil if err has
// none. The CLI checks its flags before it builds; this is for the
// combinations only the library knows.
func configUsageErr(err error) error {
	fields := generator.FieldErrors(err)
	if len(fields) == 0 {
		return nil
	}
	msgs := make([]string, len(fields))
	for i, fe := range fields {
		msgs[i] = fe.Describe(flagOf)
	}
	return usageErr("see 'rsgen build --help'", "%s", strings.Join(msgs, "; "))
}
