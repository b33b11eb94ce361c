package main

import (
	"encoding"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/text/tomlkeys"
	"github.com/rsgen/rsgen/internal/text/units"
)

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
		part := strings.TrimPrefix(name, "archive-resource-") // lists=, dumps= of --archive
		if value == "" {
			return part + "= of --" + flagArchive
		}
		return "--" + flagArchive + " KEEP," + part + "=" + value
	}
	if fileOnly(name) {
		return flag + " (a key of the configuration file)"
	}
	return "--" + flag
}

// drops are the keys whose zero (0, false), given, drops on purpose what
// the previous build has: the entry of generator.Changes.Drop each puts.
var drops = []struct{ key, capability string }{
	{flagArchiveKeep, rsxml.CapChangeListArchive},
	{flagArchiveResourceLists, rsxml.CapResourceListArchive},
	{flagArchiveResourceDumps, rsxml.CapResourceDumpArchive},
	{flagResourceDump, rsxml.CapResourceDump},
	{flagChangeDump, rsxml.CapChangeDump},
}

// keyOf returns the key (and flag) of the field of generator.Config at
// path ("Changes.Keep"), its toml tag; "" if none.
func keyOf(field string) string {
	if capability, ok := strings.CutPrefix(field, "Changes.Drop["); ok {
		for _, d := range drops {
			if d.capability+"]" == capability {
				return d.key + " 0"
			}
		}
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

// configTable is the one table of build's flags and the file's keys.
var configTable = sync.OnceValue(func() tomlkeys.Table { return tomlkeys.Of(reflect.TypeFor[generator.Config]()) })

// setFlag sets v, the field of key, to the value of its flag in c.
func setFlag(c *cli.Context, key string, v reflect.Value) error {
	switch u := v.Addr().Interface().(type) {
	case *units.List:
		*u = c.StringSlice(key)
	case *bool:
		*u = c.Bool(key)
	case *int:
		*u = c.Int(key)
	case *string:
		*u = c.String(key)
	default:
		return setText(v, c.String(key))
	}
	return nil
}

// setText sets v, an encoding.TextUnmarshaler or a pointer to one, to text.
func setText(v reflect.Value, text string) error {
	if v.Kind() == reflect.Pointer {
		v.Set(reflect.New(v.Type().Elem()))
		v = v.Elem()
	}
	return v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(text))
}

// valueHints say what the flag of a key takes, when its value is refused.
var valueHints = map[string]string{
	flagBaseURL:              "give an absolute URL such as https://example.org/",
	flagDocsURL:              "give an absolute URL such as https://example.org/",
	flagHash:                 "for example --hash sha-256 or --hash md5,sha-256",
	flagHost:                 "for example --host netlify or --host nginx,s3",
	flagChangesKeep:          "for example --changes-keep 30d or --changes-keep 36h",
	flagArchiveKeep:          "for example --" + flagArchive + " 365d, or 0 to drop the archive",
	flagArchiveResourceLists: "for example --" + flagArchive + " 365d,lists=30d",
	flagArchiveResourceDumps: "for example --" + flagArchive + " 365d,dumps=90d",
	flagMaxDelete:            "for example --" + flagMaxDelete + " 50%, --" + flagMaxDelete + " 200 or --" + flagMaxDelete + " all",
}

// finish applies what the keys given mean beyond their values: at fixes
// the snapshot time (else $SOURCE_DATE_EPOCH does), changes-window 0 is
// none, archive-* 0 and resource-dump or change-dump false drop what the
// previous build has; host is a list of hosts. An error is host's.
func finish(cfg *generator.Config, given func(key string) bool) (err error) {
	if given(flagChangesWindow) && cfg.ChangesWindow == 0 {
		cfg.ChangesWindow = -1 // none
	}
	for _, d := range drops {
		if given(d.key) && reflect.ValueOf(cfg).Elem().FieldByIndex(configTable().Fields[d.key].Index).IsZero() {
			cfg.Changes.Drop = append(cfg.Changes.Drop, d.capability)
		}
	}
	cfg.Changes.HTTPOptions.UserAgent = userAgent()
	cfg.Hosts, err = hosting.ParseHosts(cfg.Hosts)
	return err
}

// fieldHints say what to do about a value that Config.Validate refuses,
// by field, where a hint helps.
var fieldHints = map[string]string{
	"At":             "the snapshot time is --at, else $SOURCE_DATE_EPOCH, else the clock",
	"BaseURL":        "set --base-url (or $RSGEN_BASE_URL) to the URL where SOURCE is served",
	"Filter.Include": "patterns are doublestar globs such as 'drafts/**' or '**/*.tmp'",
	"Filter.Exclude": "patterns are doublestar globs such as 'drafts/**' or '**/*.tmp'",
}

func userAgent() string { return "rsgen/" + version() + " (+https://github.com/rsgen/rsgen)" }

const defaultChangesKeep = "30d"

// archiveParts are the parts of --archive KEEP[,lists=EVERY][,dumps=EVERY]
// and the keys they set.
var archiveParts = map[string]string{"": flagArchiveKeep, "lists": flagArchiveResourceLists, "dumps": flagArchiveResourceDumps}

// lineConfig is the Config the flags of c give, with the keys they give
// (those --on-error and --archive set too); other keys have their flag's
// default, if any.
func lineConfig(c *cli.Context) (cfg generator.Config, given map[string]bool, err error) {
	given = map[string]bool{}
	fields := reflect.ValueOf(&cfg).Elem()
	for _, k := range configTable().Keys {
		if k == flagAt || !c.IsSet(k) && !slices.Contains([]string{flagHash, flagJobs, flagChangesKeep}, k) { // the flags with a default
			continue // at: snapshotTime
		}
		given[k] = c.IsSet(k)
		if err := setFlag(c, k, fields.FieldByIndex(configTable().Fields[k].Index)); err != nil {
			return cfg, given, flagErr(k, valueHints[k], ": %v", err)
		}
	}
	given[flagAt] = c.String(flagAt) != ""
	if given[flagAt] { // else the key at, or $SOURCE_DATE_EPOCH (siteFile.config)
		if cfg.At, cfg.FixedTime, err = snapshotTime(c.String(flagAt)); err != nil {
			return cfg, given, err
		}
	}
	given[flagOnError], given[flagArchive] = c.IsSet(flagOnError), c.IsSet(flagArchive)
	if c.IsSet(flagOnError) {
		switch p := c.String(flagOnError); {
		case p == "fail":
			cfg.FailFast = true
		case p != "skip":
			return cfg, given, flagErr(flagOnError, "give --"+flagOnError+"=skip or --"+flagOnError+"=fail", " %q: give skip or fail", p)
		default: // skip-bad-records, of an export: --export, or that of a file of one set (siteFile.config)
			cfg.SkipBadRecords, given[flagSkipBadRecords] = true, c.String(flagExport) != ""
		}
		given[flagFailFast] = true
	}
	if given[flagArchive] {
		for i, part := range strings.Split(c.String(flagArchive), ",") {
			name, v, ok := strings.Cut(part, "=")
			if !ok && i == 0 {
				name, v = "", part
			}
			k, known := archiveParts[name]
			if (ok || i > 0) && (!known || name == "") || given[k] { // each part once
				return cfg, given, flagErr(flagArchive, "for example --"+flagArchive+" 365d or --"+flagArchive+" 365d,lists=30d,dumps=90d",
					" %q: give KEEP[,lists=EVERY][,dumps=EVERY]", c.String(flagArchive))
			}
			given[k] = true
			if err := setText(fields.FieldByIndex(configTable().Fields[k].Index), v); err != nil {
				return cfg, given, flagErr(k, valueHints[k], ": %v", err)
			}
		}
	}
	if err := finish(&cfg, func(k string) bool { return given[k] }); err != nil {
		return cfg, given, flagErr(flagHost, valueHints[flagHost], ": %v", err)
	}
	return cfg, given, nil
}

// fileOnly reports whether the key k of the configuration file is no
// flag of build: a rare setting, kept off the command line so that its
// help stays short, or one that --on-error or --archive sets.
func fileOnly(k string) bool {
	return k != keyName && k != keySource && slices.Contains(fileKeys(), k) &&
		!slices.ContainsFunc(buildFlags(), func(f cli.Flag) bool { return f.Names()[0] == k })
}

// fileKeys are the keys of the configuration file, sorted.
func fileKeys() []string {
	return slices.Sorted(slices.Values(append(slices.Clone(configTable().Keys), flagTemplates)))
}
