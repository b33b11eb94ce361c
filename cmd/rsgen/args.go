package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// flagsFirst returns args with the flags of its command moved before its
// arguments, which follow a "--": urfave/cli v2 (Go's flag package) reads
// no flag after the first argument, and has no option to. A flag's value
// is the next word, whatever it is (--jobs -1). With --help the arguments
// are dropped: v2 would take them for commands to help with.
func flagsFirst(app *cli.App, args []string) ([]string, error) {
	i := 1 // the command: the root takes only switches (--help, --version) before it
	for i < len(args) && isFlag(args[i]) && args[i] != "--" {
		i++
	}
	if i >= len(args) || app.Command(args[i]) == nil {
		return args, nil
	}
	cmd := app.Command(args[i])
	out, rest := slices.Clone(args[:i+1]), []string{}
	help := false
	for k := i + 1; k < len(args); k++ {
		w := args[k]
		switch {
		case w == "--":
			rest = append(rest, args[k+1:]...)
			k = len(args)
		case !isFlag(w):
			rest = append(rest, w)
		case strings.Contains(w, "=") || !takesValue(cmd, strings.TrimLeft(w, "-")):
			out = append(out, w)
			help = help || w == "-h" || w == "--help" || w == "-help"
		case k+1 == len(args): // moved first, it would take an argument for its value
			return nil, usageErr("see 'rsgen "+cmd.Name+" --help'", "%s needs a value", w)
		default:
			out = append(out, w, args[k+1])
			k++
		}
	}
	if len(rest) > 0 && !help {
		out = append(append(out, "--"), rest...)
	}
	return out, nil
}

func isFlag(word string) bool {
	return len(word) > 1 && word[0] == '-'
}

func takesValue(cmd *cli.Command, name string) bool {
	for _, f := range cmd.Flags {
		if slices.Contains(f.Names(), name) {
			_, isSwitch := f.(*cli.BoolFlag)
			return !isSwitch
		}
	}
	return false // unknown, or --help
}
