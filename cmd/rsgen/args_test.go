package main

import (
	"slices"
	"testing"

	"github.com/urfave/cli/v2"
)

// Flags may come anywhere on the line: flagsFirst moves them before the
// arguments, which urfave/cli needs. See also testdata/script/flags_anywhere.txtar.
func TestFlagsFirst(t *testing.T) {
	app := &cli.App{Commands: []*cli.Command{{
		Name: "build",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}},
			&cli.IntFlag{Name: "jobs"},
			&cli.BoolFlag{Name: "hidden"},
			&cli.BoolFlag{Name: "resource-dump"},
		},
	}}}
	tests := []struct {
		name     string
		in, want []string
	}{
		{"flags first already", []string{"build", "--out", "o", "s"}, []string{"build", "--out", "o", "--", "s"}},
		{"value flag after", []string{"build", "s", "--out", "o"}, []string{"build", "--out", "o", "--", "s"}},
		{"short value flag", []string{"build", "s", "-o", "o"}, []string{"build", "-o", "o", "--", "s"}},
		{"flag=value", []string{"build", "s", "--out=o"}, []string{"build", "--out=o", "--", "s"}},
		{"switch", []string{"build", "s", "--hidden", "t"}, []string{"build", "--hidden", "--", "s", "t"}},
		{"switch=false", []string{"build", "s", "--resource-dump=false"}, []string{"build", "--resource-dump=false", "--", "s"}},
		{"value that looks like a flag", []string{"build", "s", "--jobs", "-1"}, []string{"build", "--jobs", "-1", "--", "s"}},
		{"end of flags", []string{"build", "--hidden", "--", "-s", "--out"}, []string{"build", "--hidden", "--", "-s", "--out"}},
		{"lone dash is an argument", []string{"build", "-", "--hidden"}, []string{"build", "--hidden", "--", "-"}},
		{"unknown flag stays a flag", []string{"build", "s", "--bas-url", "u"}, []string{"build", "--bas-url", "--", "s", "u"}},
		{"no arguments", []string{"build", "--hidden"}, []string{"build", "--hidden"}},
		{"root switches", []string{"--help", "build", "s", "--hidden"}, []string{"--help", "build", "--hidden", "--", "s"}},
		{"unknown command untouched", []string{"biuld", "s", "--hidden"}, []string{"biuld", "s", "--hidden"}},
		{"help ignores the arguments", []string{"build", "s", "--help"}, []string{"build", "--help"}},
		{"-h as a value is no help", []string{"build", "s", "--out", "-h"}, []string{"build", "--out", "-h", "--", "s"}},
		{"nothing", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := flagsFirst(app, append([]string{"rsgen"}, tt.in...))
			if err != nil {
				t.Fatal(err)
			}
			if want := append([]string{"rsgen"}, tt.want...); !slices.Equal(got, want) {
				t.Errorf("flagsFirst(%q)\n got %q\nwant %q", tt.in, got[1:], want[1:])
			}
		})
	}
}

// A flag that needs a value must not take an argument for it when it
// comes last: "rsgen build site --out" would write into site's parent.
func TestFlagsFirstValueMissing(t *testing.T) {
	app := &cli.App{Commands: []*cli.Command{{Name: "build", Flags: []cli.Flag{&cli.StringFlag{Name: "out"}}}}}
	for _, in := range [][]string{{"build", "s", "--out"}, {"build", "--out"}} {
		if got, _, err := flagsFirst(app, append([]string{"rsgen"}, in...)); err == nil {
			t.Errorf("flagsFirst(%q) = %q, want an error", in, got)
		}
	}
}
