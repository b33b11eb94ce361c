package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// withHelp returns cmd with urfave/cli's help followed by what it has no
// place for: the exit codes and the examples (a comment, then commands).
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
// switch shows no default, and a flag whose value is a path is marked so
// (TakesFile: fish then completes file names for it only).
func describeFlags(flags []cli.Flag) {
	for _, f := range flags {
		switch f := f.(type) {
		case *cli.BoolFlag:
			f.DisableDefaultText = true
		case *cli.StringFlag:
			_, value, _ := strings.Cut(f.Usage, "`") // "`DIR` to write into"
			value, _, _ = strings.Cut(value, "`")
			f.TakesFile = slices.Contains([]string{"FILE", "DIR", "DIR|URL", "SOURCE"}, value)
		}
	}
}
