package main

import (
	"errors"
	"testing"

	"github.com/rsgen/rsgen/generator/report"
)

// Exit 3's summary counts files; a directory that could not be read is
// not one file but an unknown number of them, and says so.
func TestPartialSummary(t *testing.T) {
	file := report.Problem{Path: "a.txt", Err: errors.New("permission denied")}
	dir := report.Problem{Path: "locked", Dir: true, Err: errors.New("reading directory: permission denied")}
	tests := []struct {
		name     string
		problems []report.Problem
		want     string
	}{
		{"one file", []report.Problem{file}, "1 file could not be published (named above)"},
		{"files", []report.Problem{file, file}, "2 files could not be published (named above)"},
		{"a directory", []report.Problem{dir}, "1 directory could not be read, so files in it may be missing (named above)"},
		{"directories", []report.Problem{dir, dir}, "2 directories could not be read, so files in them may be missing (named above)"},
		{"both", []report.Problem{dir, file, file},
			"2 files could not be published, and 1 directory could not be read, so files in it may be missing (named above)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := partial(tt.problems, "").Error(); got != tt.want {
				t.Errorf("partial\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// rsgen build --help lists at most 30 flags, --help counted (issue 25): a
// rare setting is a key of the configuration file only (fileOnly).
func TestBuildFlagsAtMost30(t *testing.T) {
	cmd := buildCommand()
	n := len(cmd.Flags)
	if !cmd.HideHelp {
		n++ // urfave/cli adds --help to a command
	}
	if n > 30 {
		t.Errorf("rsgen build has %d flags, --help counted; at most 30", n)
	}
}
