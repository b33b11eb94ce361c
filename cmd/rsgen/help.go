package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// withHelp sets the help of cmd, which urfave/cli prints for "rsgen CMD
// --help" and "rsgen help CMD", and returns cmd: v2's own template, its
// groups and flags in its order (by name), then what v2 has no place
// for: the exit codes and the examples (one a string: a comment, then
// commands).
func withHelp(cmd *cli.Command, exitCodes string, examples ...string) *cli.Command {
	tail := ""
	if exitCodes != "" {
		tail += "\nEXIT CODES:\n" + exitCodes + "\n"
	}
	if len(examples) > 0 {
		tail += "\nEXAMPLES:\n   " + strings.ReplaceAll(strings.Join(examples, "\n\n"), "\n", "\n   ") + "\n"
	}
	cmd.CustomHelpTemplate = cli.CommandHelpTemplate + strings.ReplaceAll(tail, "\n   \n", "\n\n")
	return cmd
}

// describeFlags readies flags for the help and the completion scripts: a
// switch shows no default (it is off unless given), and a flag whose
// value is a path is marked so, for fish to complete file names for it
// and nothing for the others (urfave/cli's TakesFile).
func describeFlags(flags []cli.Flag) {
	for _, f := range flags {
		switch f := f.(type) {
		case *cli.BoolFlag:
			f.DisableDefaultText = true
		case *cli.StringFlag:
			_, value, _ := strings.Cut(f.Usage, "`") // the name of the value: "`DIR` to write into"
			value, _, _ = strings.Cut(value, "`")
			f.TakesFile = slices.Contains([]string{"FILE", "DIR", "DIR|URL", "SOURCE"}, value)
		}
	}
}
