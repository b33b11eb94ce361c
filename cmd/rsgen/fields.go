package main

import (
	"reflect"
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

// cliName names a flag as the command line does, with its value if given
// ("archive-keep 0"); a key of the configuration file that no flag has,
// as the flag that sets it (--on-error, --archive) or as a key.
func cliName(flag string) string {
	name, value, _ := strings.Cut(flag, " ")
	switch name {
	case argSource:
		return flag
	case flagFailFast:
		return "--" + flagOnError + "=fail"
	case flagSkipBadRecords:
		return "--" + flagOnError + "=skip"
	case flagArchiveKeep:
		return strings.TrimSpace("--" + flagArchive + " " + value)
	case flagArchiveResourceLists, flagArchiveResourceDumps:
		part := archivePart(name)
		if value == "" {
			return part + "= of --" + flagArchive
		}
		return "--" + flagArchive + " KEEP," + part + "=" + value
	}
	if _, ok := fileOnly[name]; ok {
		return flag + " (a key of the configuration file)"
	}
	return "--" + flag
}

// dropKeys are the keys whose 0 puts an entry in generator.Changes.Drop.
var dropKeys = map[string]string{
	"Changes.Drop[changelist-archive]":   flagArchiveKeep,
	"Changes.Drop[resourcelist-archive]": flagArchiveResourceLists,
	"Changes.Drop[resourcedump-archive]": flagArchiveResourceDumps,
}

// keyOf returns the key of a field of generator.Config, named by its path
// ("Changes.Keep"): the name of its flag and of its key in the
// configuration file, which the toml tag of the field gives; "" if it has
// none.
func keyOf(field string) string {
	if k, ok := dropKeys[field]; ok {
		return k + " 0"
	}
	t, key := reflect.TypeFor[generator.Config](), ""
	for name := range strings.SplitSeq(field, ".") {
		f, ok := t.FieldByName(name)
		if !ok {
			return ""
		}
		key, t = f.Tag.Get("toml"), f.Type
	}
	return key
}

// flagOf names a field of generator.Config on the command line: its flag,
// SOURCE, or the field itself.
func flagOf(field string) string {
	switch k := keyOf(field); {
	case field == "Source":
		return "the " + argSource
	case k != "":
		return cliName(k)
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
