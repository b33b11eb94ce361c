package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// flagAmongArgs returns a usage error if an argument of c names one of its
// command's flags: urfave/cli reads no flag after the first argument, so
// "rsgen validate public --strict" would validate a path named --strict.
// A path that does start with a dash can be given as ./-name.
func flagAmongArgs(c *cli.Context, what string) error {
	for _, a := range c.Args().Slice() {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		for _, f := range c.Command.Flags {
			if slices.Contains(f.Names(), name) {
				return usageErr("put the flags before "+what+": rsgen "+c.Command.Name+" [flags] "+what,
					"%s comes after %s, where it is not read as a flag", a, what)
			}
		}
	}
	return nil
}
