package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// flagsFirst returns args (the program name first) with the flags of its
// command moved before its arguments, so that flags may be written
// anywhere on the line: urfave/cli reads no flag after the first argument,
// and "rsgen build site --base-url URL" would take --base-url for a second
// SOURCE. Everything after "--" is an argument, as is a lone "-". The
// arguments follow a "--" of their own, so that a SOURCE named -x, given
// after "--", stays an argument.
//
// A flag that takes a value takes the next word, whatever it is
// (--jobs -1, --out --); a switch (a boolean flag) takes none unless given
// with =, as --resource-dump=false. A word that names no flag of the
// command stays a flag, for the parser to refuse. With --help, the
// arguments are dropped: urfave/cli would take them for commands to help
// with.
//
// A flag that needs a value but ends the line is an error here: moved
// before the arguments, it would take the first of them for its value.
func flagsFirst(app *cli.App, args []string) ([]string, error) {
	if len(args) < 2 {
		return args, nil
	}
	// The root takes only switches (--help, --version) before the command.
	i := 1
	for i < len(args) && isFlag(args[i]) && args[i] != "--" {
		i++
	}
	if i == len(args) {
		return args, nil
	}
	cmd := app.Command(args[i])
	if cmd == nil {
		return args, nil
	}
	var flags, rest []string
	help := false
	words := args[i+1:]
	for k := 0; k < len(words); k++ {
		w := words[k]
		switch {
		case w == "--":
			rest = append(rest, words[k+1:]...)
			k = len(words)
		case !isFlag(w):
			rest = append(rest, w)
		case strings.Contains(w, "="):
			flags = append(flags, w)
		default:
			flags = append(flags, w)
			help = help || isHelp(w)
			if !takesValue(cmd, strings.TrimLeft(w, "-")) {
				break
			}
			if k+1 == len(words) {
				return nil, usageErr("see 'rsgen "+cmd.Name+" --help'", "%s needs a value", w)
			}
			k++
			flags = append(flags, words[k])
		}
	}
	out := append(slices.Clone(args[:i+1]), flags...)
	if len(rest) > 0 && !help { // with --help, urfave/cli would take them for help topics
		out = append(append(out, "--"), rest...)
	}
	return out, nil
}

func isHelp(word string) bool {
	return word == "-h" || word == "--help" || word == "-help"
}

// isFlag reports whether word is written as a flag: -x, --name, --name=v.
func isFlag(word string) bool {
	return len(word) > 1 && word[0] == '-'
}

// takesValue reports whether name is a flag of cmd that takes a value.
func takesValue(cmd *cli.Command, name string) bool {
	for _, f := range cmd.Flags {
		if slices.Contains(f.Names(), name) {
			_, isSwitch := f.(*cli.BoolFlag)
			return !isSwitch
		}
	}
	return false // unknown, or --help
}
