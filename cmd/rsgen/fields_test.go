package main

import (
	"reflect"
	"testing"

	"github.com/rsgen/rsgen/generator"
)

// Every key that a toml tag of generator.Config gives is a key of the
// configuration file, a flag of build or one of fileOnlyFlags, so that an
// error about a field names a flag or a key that exists; every field of
// dropKeys exists.
func TestConfigKeysAreFlags(t *testing.T) {
	flags := buildKeys()
	var walk func(typ reflect.Type, path string)
	walk = func(typ reflect.Type, path string) {
		for f := range typ.Fields() {
			if key := f.Tag.Get("toml"); key != "" && key != "-" && key != keyName && key != keySource && flags[key] == nil {
				t.Errorf("%s%s: its key %q is no flag of rsgen build", path, f.Name, key)
			}
			if f.Type.Kind() == reflect.Struct && f.IsExported() {
				walk(f.Type, path+f.Name+".")
			}
		}
	}
	walk(reflect.TypeFor[generator.Config](), "")
	for field := range dropKeys {
		if keyOf(field) == "" {
			t.Errorf("%s: not a field of generator.Config", field)
		}
	}
	if got := flagOf("Changes.HTTPOptions.Deadline"); got != flagFetchTimeout+" (a key of the configuration file)" {
		t.Errorf("flagOf(Changes.HTTPOptions.Deadline) = %q", got)
	}
}
