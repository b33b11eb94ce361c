package main

import (
	"strings"
	"testing"
)

// TestUnknownFlagAsTyped: the unknown flag is named as it was typed, a
// letter that is not ASCII as well.
func TestUnknownFlagAsTyped(t *testing.T) {
	for _, typed := range []string{"-é", "--éé", "-x"} {
		_, _, stderr := runCLI(t, t.Context(), "build", typed, "s")
		if !strings.Contains(stderr, "unknown flag "+typed+"\n") {
			t.Errorf("%s: stderr does not name it as typed:\n%s", typed, stderr)
		}
	}
}

// An unknown flag gets the flag meant where rsgen can tell: the same name
// in camelCase or snake_case, the name well-known tools give it, a
// misspelling; SOURCE named as a flag is said to be an argument; a single
// letter that is no synonym gets no guess rather than a wrong one.
func TestUnknownFlagSuggestion(t *testing.T) {
	tests := []struct {
		args []string
		hint string
	}{
		{[]string{"build", "--baseURL", "https://example.org/", "s"}, "did you mean --base-url? see 'rsgen build --help'"},
		{[]string{"build", "--base_url", "https://example.org/", "s"}, "did you mean --base-url?"},
		{[]string{"build", "--BASE-URL", "https://example.org/", "s"}, "did you mean --base-url?"},
		{[]string{"build", "--docsUrl", "https://example.org/", "s"}, "did you mean --docs-url?"},
		{[]string{"build", "--followSymlinks", "s"}, "did you mean --follow-symlinks?"},
		{[]string{"build", "--output", "o", "s"}, "did you mean --out?"},
		{[]string{"build", "--destination", "o", "s"}, "did you mean --out?"},
		{[]string{"build", "--threads", "4", "s"}, "did you mean --jobs?"},
		{[]string{"build", "-n", "s"}, "did you mean --dry-run?"},
		{[]string{"build", "--hiden", "s"}, "did you mean --hidden?"},
		{[]string{"build", "--source", "public"}, "SOURCE is an argument, not a flag: rsgen build public, not rsgen build --source public; see 'rsgen build --help'"},
		{[]string{"build", "-x", "s"}, "see 'rsgen build --help'"},
		{[]string{"build", "-é", "s"}, "see 'rsgen build --help'"}, // one letter, two bytes
		{[]string{"validate", "-v", "d"}, "see 'rsgen validate --help'"},
		{[]string{"validate", "-x", "d"}, "see 'rsgen validate --help'"},
		{[]string{"validate", "--output", "d"}, "see 'rsgen validate --help'"}, // validate has no --out
		{[]string{"validate", "--lenientHash", "d"}, "did you mean --lenient-hash?"},
		{[]string{"serve", "--Addr", ":1", "d"}, "did you mean --addr?"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, stderr := runCLI(t, t.Context(), tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			var hint string
			for _, line := range strings.Split(stderr, "\n") {
				if h, ok := strings.CutPrefix(line, "rsgen: hint: "); ok {
					hint = h
				}
			}
			if !strings.HasPrefix(hint, tt.hint) {
				t.Errorf("hint %q, want it to begin %q; stderr:\n%s", hint, tt.hint, stderr)
			}
			if !strings.HasPrefix(tt.hint, "did you mean") && strings.Contains(hint, "did you mean") {
				t.Errorf("hint %q guesses", hint)
			}
		})
	}
}

// The keys of a configuration file are matched as the flags are: another
// case or spelling of a key names it.
func TestClosestSpelling(t *testing.T) {
	keys := []string{"base-url", "docs-url", "max-entries", "name", "source"}
	for typed, want := range map[string]string{"baseURL": "base-url", "docs_url": "docs-url", "MaxEntries": "max-entries", "sourse": "source", "x": "", "zzzzzz": "", "é": "", "ñame": "name"} {
		if got := closest(typed, keys); got != want {
			t.Errorf("closest(%q) = %q, want %q", typed, got, want)
		}
	}
}
