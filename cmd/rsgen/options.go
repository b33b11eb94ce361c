package main

import (
	"slices"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"
)

// lineOptions are the options of the command line: c's flags, and the
// keys that --on-error (fail-fast, skip-bad-records) and --archive
// (archive-keep, archive-resource-lists, archive-resource-dumps) set. The
// other keys that are no flags (fileOnly) are zero.
type lineOptions struct{ *cli.Context }

// archiveParts are the parts of --archive KEEP[,lists=EVERY][,dumps=EVERY].
var archiveParts = map[string]string{"": flagArchiveKeep, "lists": flagArchiveResourceLists, "dumps": flagArchiveResourceDumps}

// archivePart is the part of --archive that sets the key name.
func archivePart(name string) string {
	for part, key := range archiveParts {
		if key == name {
			return part
		}
	}
	return ""
}

// archive returns the value --archive gives the key name, if it gives one.
func (o lineOptions) archive(name string) (string, bool) {
	if !o.Context.IsSet(flagArchive) {
		return "", false
	}
	for i, part := range strings.Split(o.Context.String(flagArchive), ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok && i == 0 {
			k, v = "", part
		}
		if archiveParts[k] == name {
			return v, true
		}
	}
	return "", false
}

// checkPolicy checks the syntax of --on-error and --archive; their values
// are checked as the keys they set are.
func (o lineOptions) checkPolicy() error {
	if p := o.Context.String(flagOnError); o.Context.IsSet(flagOnError) && p != "skip" && p != "fail" {
		return flagErr(flagOnError, "give --"+flagOnError+"=skip or --"+flagOnError+"=fail", " %q: give skip or fail", p)
	}
	seen := map[string]bool{}
	for i, part := range strings.Split(o.Context.String(flagArchive), ",") {
		k, _, ok := strings.Cut(part, "=")
		if _, known := archiveParts[k]; (ok || i > 0) && (!known || k == "") || seen[k] { // each part once
			return flagErr(flagArchive, "for example --"+flagArchive+" 365d or --"+flagArchive+" 365d,lists=30d,dumps=90d",
				" %q: give KEEP[,lists=EVERY][,dumps=EVERY]", o.Context.String(flagArchive))
		}
		seen[k] = true
	}
	return nil
}

// policy says which key --on-error sets: fail-fast or skip-bad-records
// (the latter for a record export only), or "".
func (o lineOptions) policy() string {
	switch o.Context.String(flagOnError) {
	case "fail":
		return flagFailFast
	case "skip":
		if o.Context.String(flagExport) != "" {
			return flagSkipBadRecords
		}
	}
	return ""
}

func (o lineOptions) IsSet(name string) bool {
	switch name {
	case flagFailFast:
		return o.Context.IsSet(flagOnError)
	case flagSkipBadRecords:
		return o.policy() == name
	}
	if _, ok := o.archive(name); ok {
		return true
	}
	return o.Context.IsSet(name)
}

func (o lineOptions) Bool(name string) bool {
	if name == flagFailFast || name == flagSkipBadRecords {
		return o.policy() == name
	}
	return o.Context.Bool(name)
}

func (o lineOptions) String(name string) string {
	if v, ok := o.archive(name); ok {
		return v
	}
	return o.Context.String(name)
}

// fileOnly reports whether the key k of the configuration file is no
// flag of build: a rare setting, kept off the command line so that its
// help stays short (issue 25), or one that --on-error or --archive sets.
// Left out, each is zero, which generator.Config takes for its default
// (docs/USAGE.md).
func fileOnly(k string) bool {
	return k != keyName && k != keySource && slices.Contains(fileKeys(), k) && !slices.Contains(buildFlagNames(), k)
}

// buildFlagNames are the long names of build's flags; set in init, as
// buildCommand refers to fileOnly through its action.
var buildFlagNames func() []string

func init() {
	buildFlagNames = sync.OnceValue(func() []string {
		var names []string
		for _, f := range buildCommand().Flags {
			names = append(names, f.Names()[0])
		}
		return names
	})
}
