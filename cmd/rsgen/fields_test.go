package main

import (
	"slices"
	"testing"
)

// The keys of the configuration file and the flags of build are one
// table, the toml tags of generator.Config: every flag but those of the
// command line only (and --on-error and --archive, which set keys) is a
// key, and the keys that are no flag are these (docs/USAGE.md lists
// them): a new field of Config is a key of the file only until it is
// given a flag. Every key of drops exists.
func TestConfigKeysAreFlags(t *testing.T) {
	var keysOnly []string
	for _, k := range fileKeys() {
		if fileOnly(k) {
			keysOnly = append(keysOnly, k)
		}
	}
	want := []string{"archive-keep", "archive-resource-dumps", "archive-resource-lists", "change-topic", "changes-window",
		"describedby", "digests", "digests-job", "dump-compression", "dump-max-bytes", "export-format", "fail-fast", "fetch-timeout", "follow-symlinks",
		"framework-topic", "max-bytes", "max-entries", "skip-bad-records", "templates"}
	if !slices.Equal(keysOnly, want) {
		t.Errorf("the keys that are no flag of rsgen build:\n got %q\nwant %q", keysOnly, want)
	}
	for _, f := range buildFlags() {
		if name := f.Names()[0]; !slices.Contains(configTable().Keys, name) && !slices.Contains(append(commandOnly, flagOnError, flagArchive, flagTemplates), name) {
			t.Errorf("--%s is no key of generator.Config", name)
		}
	}
	for _, d := range drops {
		if _, ok := configTable().Fields[d.key]; !ok || keyOf("Changes.Drop["+d.capability+"]") != d.key+" 0" {
			t.Errorf("%s: not a key of generator.Config", d.key)
		}
	}
	if got := cliName(keyOf("Changes.HTTPOptions.Deadline")); got != flagFetchTimeout+" (a key of the configuration file)" {
		t.Errorf("cliName(keyOf(Changes.HTTPOptions.Deadline)) = %q", got)
	}
}
