package main

// Flag names. Those of build are keys of the configuration file too
// (configTable), as are the keys that are no flag (fileOnly).
const (
	flagBaseURL        = "base-url"
	flagDocsURL        = "docs-url"
	flagOut            = "out"
	flagHash           = "hash"
	flagInclude        = "include"
	flagExclude        = "exclude"
	flagHidden         = "hidden"
	flagJobs           = "jobs"
	flagAt             = "at"
	flagFailFast       = "fail-fast"
	flagOnError        = "on-error"
	flagQuiet          = "quiet"
	flagVerbose        = "verbose"
	flagDryRun         = "dry-run"
	flagTimeout        = "timeout"
	flagFetchTimeout   = "fetch-timeout"
	flagExport         = "export"
	flagResourceDump   = "resource-dump"
	flagChangesWindow  = "changes-window"
	flagSkipBadRecords = "skip-bad-records"

	flagPrevious             = "previous"
	flagFirstBuildOK         = "first-build-ok"
	flagChangesKeep          = "changes-keep"
	flagArchive              = "archive"
	flagArchiveKeep          = "archive-keep"
	flagArchiveResourceLists = "archive-resource-lists"
	flagArchiveResourceDumps = "archive-resource-dumps"
	flagChangeDump           = "change-dump"
	flagCache                = "cache"

	flagConfig     = "config"
	flagRemoveSet  = "remove-set"
	flagAllowEmpty = "allow-empty"
	flagMaxDelete  = "max-delete"
	flagNewHistory = "new-history"
	flagHost       = "host"
	flagTemplates  = "templates"
	flagHub        = "hub"

	// validate, serve, notify
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

// Keys of the configuration file that are no flag.
const (
	keyName   = "name"   // of a set
	keySource = "source" // of a set: build's SOURCE
	keySet    = "set"    // the array of tables of the sets
)

// https://reproducible-builds.org/specs/source-date-epoch/
const envSourceDateEpoch = "SOURCE_DATE_EPOCH"
