package main

import (
	"testing"
)

// Unknown flags, as typed and with the flag meant: testdata/script/flag_suggestions.txtar.

// The keys of a configuration file are matched as the flags are: another
// case or spelling of a key names it.
func TestClosestSpelling(t *testing.T) {
	keys := []string{"base-url", "docs-url", "max-entries", "name", "source"}
	for typed, want := range map[string]string{"baseURL": "base-url", "docs_url": "docs-url", "MaxEntries": "max-entries", "sourse": "source", "base-urll": "base-url", "x": "", "zzzzzz": "", "é": "", "ñame": "name"} {
		if got := closest(typed, keys); got != want {
			t.Errorf("closest(%q) = %q, want %q", typed, got, want)
		}
	}
}
