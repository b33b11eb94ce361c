package main

// Flag names, the public interface of the CLI, and the keys of the
// configuration file that build takes as no flag (fileOnly).
const (
	flagBaseURL        = "base-url"
	flagDocsURL        = "docs-url"
	flagOut            = "out"
	flagHash           = "hash"
	flagInclude        = "include"
	flagExclude        = "exclude"
	flagHidden         = "hidden"
	flagFollowSymlinks = "follow-symlinks"
	flagJobs           = "jobs"
	flagMaxEntries     = "max-entries"
	flagMaxBytes       = "max-bytes"
	flagAt             = "at"
	flagDescribedby    = "describedby"
	flagFailFast       = "fail-fast"
	flagOnError        = "on-error"
	flagQuiet          = "quiet"
	flagVerbose        = "verbose"
	flagPrevious       = "previous"
	flagFirstBuildOK   = "first-build-ok"
	flagChangesKeep    = "changes-keep"
	flagArchiveKeep    = "archive-keep"
	flagArchive        = "archive"

	flagArchiveResourceLists = "archive-resource-lists"
	flagArchiveResourceDumps = "archive-resource-dumps"
	flagChangeDump           = "change-dump"
	flagCache                = "cache"
	flagDigests              = "digests"
	flagDigestsJob           = "digests-job"

	flagResourceDump    = "resource-dump"
	flagDumpMaxBytes    = "dump-max-bytes"
	flagDumpCompression = "dump-compression"
	flagExport          = "export"
	flagExportFormat    = "export-format"
	flagChangesWindow   = "changes-window"
	flagSkipBadRecords  = "skip-bad-records"

	flagConfig    = "config"
	flagRemoveSet = "remove-set"

	flagAllowEmpty = "allow-empty"
	flagMaxDelete  = "max-delete"
	flagNewHistory = "new-history"
)

// Environment variables read in place of flags.
const (
	envBaseURL         = "RSGEN_BASE_URL"
	envDocsURL         = "RSGEN_DOCS_URL"
	envHash            = "RSGEN_HASH"
	envSourceDateEpoch = "SOURCE_DATE_EPOCH" // https://reproducible-builds.org/specs/source-date-epoch/
	envPrevious        = "RSGEN_PREVIOUS"
	envCache           = "RSGEN_CACHE"
)

// Flags of validate and serve.
const (
	flagFormat       = "format"
	flagStrict       = "strict"
	flagLenientHash  = "lenient-hash"
	flagResources    = "resources"
	flagResourcesURL = "resources-url"
	flagFetch        = "fetch"
	flagCrossSite    = "cross-site"
	flagMaxDocuments = "max-documents"
	flagTimeout      = "timeout"
	flagRules        = "rules"
	flagAddr         = "addr"
)

// Flags of build that write configuration for static hosts.
const (
	flagHost      = "host"
	flagTemplates = "templates"
)

// build's key fetch-timeout (its --timeout is flagTimeout, as validate's)
// and serve's --content.
const (
	flagFetchTimeout = "fetch-timeout"
	flagContent      = "content"
)

// Flags of notify, and of build for the channels it advertises.
const (
	flagHub            = "hub"
	flagChangeTopic    = "change-topic"
	flagFrameworkTopic = "framework-topic"
	flagState          = "state"
	flagSince          = "since"
	flagRetries        = "retries"
	flagMaxTime        = "max-time"
	flagDryRun         = "dry-run"

	envHub   = "RSGEN_HUB"
	envState = "RSGEN_NOTIFY_STATE"
)
