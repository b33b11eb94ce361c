package main

import (
	"slices"
	"testing"
)

// The keys of the configuration file and the flags of build are one
// table, the toml tags of generator.Config: every key is a flag of build
// or one of fileOnlyFlags, so that an error about a field names a flag or
// a key that exists, and every flag but those of the command line only
// (and --on-error and --archive, which set keys) is a key; every field of
// dropKeys exists.
func TestConfigKeysAreFlags(t *testing.T) {
	flags := flagKinds(append(buildCommand().Flags, fileOnlyFlags()...))
	for k := range configFields() {
		if k != keyName && k != keySource && flags[k] == nil {
			t.Errorf("the key %q is no flag of rsgen build", k)
		}
	}
	for name := range flags {
		if _, ok := configFields()[name]; !ok && !slices.Contains(append(commandOnly, flagOnError, flagArchive, flagTemplates), name) {
			t.Errorf("--%s is no key of generator.Config", name)
		}
	}
	for field := range dropKeys {
		if keyOf(field) == "" {
			t.Errorf("%s: not a field of generator.Config", field)
		}
	}
	if got := flagOf("Changes.HTTPOptions.Deadline"); got != flagFetchTimeout+" (a key of the configuration file)" {
		t.Errorf("flagOf(Changes.HTTPOptions.Deadline) = %q", got)
	}
}
