package display

import "testing"

// The keys of a configuration file are matched as the flags of rsgen are
// (cmd/rsgen/testdata/script/flag_suggestions.txtar): another case or
// spelling of a key names it.
func TestClosestSpelling(t *testing.T) {
	t.Parallel()
	keys := []string{"base-url", "docs-url", "max-entries", "name", "source"}
	for typed, want := range map[string]string{"baseURL": "base-url", "docs_url": "docs-url", "MaxEntries": "max-entries", "sourse": "source", "base-urll": "base-url", "x": "", "zzzzzz": "", "é": "", "ñame": "name"} {
		if got := Closest(typed, keys); got != want {
			t.Errorf("Closest(%q) = %q, want %q", typed, got, want)
		}
	}
}
