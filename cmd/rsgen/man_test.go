package main

import (
	"strings"
	"testing"
)

// TestManPage checks the manual page "rsgen man" prints, which the release
// archives carry as rsgen.1: roff for section 1, naming every command of
// the help and flags of several commands, and nothing on stderr.
func TestManPage(t *testing.T) {
	code, page, stderr := runCLI(t, t.Context(), "man")
	if code != 0 || stderr != "" {
		t.Fatalf("rsgen man: exit %d, stderr %q", code, stderr)
	}
	if !strings.HasPrefix(page, ".nh\n.TH rsgen 1") {
		t.Errorf("not a roff page of section 1: %.40q", page)
	}
	_, help, _ := runCLI(t, t.Context(), "--help")
	_, list, _ := strings.Cut(help, "COMMANDS:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	var want []string
	for line := range strings.Lines(list) {
		want = append(want, ".SH "+strings.Fields(line)[0]+"\n")
	}
	if len(want) < 6 {
		t.Fatalf("%d commands in the help, want at least 6:\n%s", len(want), help)
	}
	want = append(want, `\fB--base-url\fP`, `\fB--previous\fP`, `\fB--strict\fP`, `\fB--version, -v\fP`)
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("the man page lacks %q", w)
		}
	}
	if strings.Contains(page, ".SH man\n") {
		t.Error("the man page lists the hidden man command")
	}
}
