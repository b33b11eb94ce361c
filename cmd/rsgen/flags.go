package main

// Flag names, the public interface of the CLI. Those of build are the keys
// of the configuration file too (configTable); the keys that are no flag
// of build (fileOnly) are named here where the code refers to them.
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
	flagAt             = "at"
	flagDescribedby    = "describedby"
	flagFailFast       = "fail-fast"
	flagOnError        = "on-error"
	flagQuiet          = "quiet"
	flagVerbose        = "verbose"
	flagDryRun         = "dry-run"
	flagTimeout        = "timeout"
	flagFetchTimeout   = "fetch-timeout"

	flagPrevious             = "previous"
	flagFirstBuildOK         = "first-build-ok"
	flagChangesKeep          = "changes-keep"
	flagArchive              = "archive"
	flagArchiveKeep          = "archive-keep"
	flagArchiveResourceLists = "archive-resource-lists"
	flagArchiveResourceDumps = "archive-resource-dumps"
	flagChangeDump           = "change-dump"
	flagCache                = "cache"

	flagResourceDump   = "resource-dump"
	flagExport         = "export"
	flagChangesWindow  = "changes-window"
	flagSkipBadRecords = "skip-bad-records"

	flagConfig     = "config"
	flagRemoveSet  = "remove-set"
	flagAllowEmpty = "allow-empty"
	flagMaxDelete  = "max-delete"
	flagNewHistory = "new-history"
	flagHost       = "host"
	flagTemplates  = "templates"
	flagHub        = "hub"
)

// Keys of the configuration file that are not flags.
const (
	keyName   = "name"   // of a set
	keySource = "source" // of a set: build's SOURCE
	keySet    = "set"    // the array of tables of the sets
)

// Environment variables read in place of flags.
const (
	envBaseURL         = "RSGEN_BASE_URL"
	envDocsURL         = "RSGEN_DOCS_URL"
	envHash            = "RSGEN_HASH"
	envSourceDateEpoch = "SOURCE_DATE_EPOCH" // https://reproducible-builds.org/specs/source-date-epoch/
	envPrevious        = "RSGEN_PREVIOUS"
	envCache           = "RSGEN_CACHE"
	envHub             = "RSGEN_HUB"
	envState           = "RSGEN_NOTIFY_STATE"
)

// Flags of validate, serve and notify.
const (
	flagFormat       = "format"
	flagStrict       = "strict"
	flagLenientHash  = "lenient-hash"
	flagResources    = "resources"
	flagResourcesURL = "resources-url"
	flagFetch        = "fetch"
	flagCrossSite    = "cross-site"
	flagMaxDocuments = "max-documents"
	flagRules        = "rules"
	flagAddr         = "addr"
	flagContent      = "content"
	flagState        = "state"
	flagSince        = "since"
	flagRetries      = "retries"
	flagMaxTime      = "max-time"
)
