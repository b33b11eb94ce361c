package main

import (
	"reflect"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/generator"
)

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
