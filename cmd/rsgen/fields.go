package main

import (
	"encoding"
	"reflect"
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
