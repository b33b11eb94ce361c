package main

import (
	"slices"
	"testing"

	"github.com/urfave/cli/v2"
)

// Every flag of every command is in a group its help shows: a flag of a
// category missing from flagCategories would be left out of --help.
func TestEveryFlagInTheHelp(t *testing.T) {
	for _, cmd := range []*cli.Command{buildCommand(), initCommand(), validateCommand(), serveCommand(), notifyCommand(), versionCommand()} {
		for _, f := range cmd.Flags {
			c, _ := flagFields(f)
			if *c != "" && !slices.Contains(flagCategories, *c) {
				t.Errorf("rsgen %s --%s: its category %q is not in flagCategories: --help leaves it out", cmd.Name, f.Names()[0], *c)
			}
			if categoryTitles[*c] == "" {
				t.Errorf("rsgen %s --%s: its category %q has no title", cmd.Name, f.Names()[0], *c)
			}
		}
	}
}
