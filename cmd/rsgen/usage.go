package main

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/internal/text/display"
)

// parseError turns an error of the parser of the command line (Go's flag
// package, through urfave/cli) into a usage error in rsgen's words: the
// flag as it is written (--jobs), what is wrong with its value, and the
// flag a misspelt one most likely means (display.Closest). cmd is nil for the flags
// of rsgen itself.
func parseError(cmd *cli.Command, flags []cli.Flag, err error) error {
	help := "see 'rsgen --help'"
	if cmd != nil {
		help = "see 'rsgen " + cmd.Name + " --help'"
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		if err := removedFlag(cmd, name); err != nil {
			return err
		}
		if cmd != nil && strings.HasPrefix(cmd.ArgsUsage, "SOURCE") && slices.Contains([]string{"source", "src", "input", "in", "dir", "root"}, strings.ToLower(name)) {
			help = "SOURCE is an argument, not a flag: rsgen " + cmd.Name + " public, not rsgen " + cmd.Name + " --" + name + " public; " + help
		} else if s := display.Closest(name, guesses(cmd, flags)); fileOnly(s) {
			help = "did you mean " + cliName(s) + "? " + help // a flag no longer: its key, or the flag that sets it
		} else if s != "" {
			help = "did you mean " + dashed(s) + "? " + help
		}
		return usageErr(help, "unknown flag %s", dashed(name))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return usageErr(help, "%s needs a value", dashed(name))
	}
	m := badValue.FindStringSubmatch(msg)
	if m == nil {
		return usageErr(help, "%s", msg)
	}
	value, _ := strconv.Unquote(m[2])
	if m[1] != "" {
		return usageErr(help, "%s=%s: give true or false, or leave the value out for true", dashed(m[3]), value)
	}
	problem := m[4]
	i := slices.IndexFunc(flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), m[3]) })
	if problem == "value out of range" {
		problem = "out of range"
	} else if i >= 0 {
		switch flags[i].(type) {
		case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag:
			problem = "not a number"
		case *cli.DurationFlag:
			problem = "not a duration, such as 90s, 30m or 2h"
		}
	}
	return usageErr(help, "%s %s: %s", dashed(m[3]), value, problem)
}

// badValue matches the errors of Go's flag package about a value.
var badValue = regexp.MustCompile(`^invalid (boolean )?value (".*") for (?:flag )?-([^:\s]+): (.*)$`)

// removedFlag is the error of a flag that rsgen build no longer has (its
// key of the configuration file, or the flag that replaces it, names it;
// CHANGELOG.md), or nil.
func removedFlag(cmd *cli.Command, name string) error {
	switch {
	case cmd == nil || cmd.Name != "build" || !fileOnly(name):
		return nil
	case name == flagFailFast || name == flagSkipBadRecords:
		return usageErr("give "+cliName(name), "--%s is no longer a flag", name)
	case name == flagArchiveKeep || name == flagArchiveResourceLists || name == flagArchiveResourceDumps:
		return usageErr("give --"+flagArchive+" KEEP[,lists=EVERY][,dumps=EVERY]", "--%s is no longer a flag", name)
	}
	return usageErr("give "+name+" in the configuration file of --"+flagConfig+" (a file with its source = \"DIR\" at the top builds one set; docs/SETS.md)",
		"--%s is no longer a flag: it is a key of the configuration file", name)
}

// dashed writes a flag's name the way rsgen's help does: -o, --out.
func dashed(name string) string {
	if utf8.RuneCountInString(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// flagNames lists every name of flags, aliases too.
func flagNames(flags []cli.Flag) []string {
	var names []string
	for _, f := range flags {
		names = append(names, f.Names()...)
	}
	return names
}

// guesses are the names an unknown flag of cmd may mean: its flags'
// names, and build's keys of the file that were flags (removedFlag).
func guesses(cmd *cli.Command, flags []cli.Flag) []string {
	names := flagNames(flags)
	if cmd != nil && cmd.Name == "build" {
		names = append(names, slices.DeleteFunc(fileKeys(), func(k string) bool { return !fileOnly(k) })...)
	}
	return names
}

// unknownCommand is the error of a first argument that names no command,
// with the command it most likely means (display.Closest).
func unknownCommand(app *cli.App, name string) error {
	var names []string
	for _, c := range app.Commands {
		names = append(names, c.Names()...)
	}
	hint := "see 'rsgen --help' for the commands"
	if s := display.Closest(name, names); s != "" {
		hint = "did you mean 'rsgen " + s + "'? " + hint
	}
	return usageErr(hint, "unknown command %q", name)
}

// showHelp runs "rsgen help [COMMAND]": the help of rsgen, or of COMMAND.
func showHelp(c *cli.Context) error {
	switch name := c.Args().Get(1); {
	case c.NArg() > 2:
		return usageErr("run 'rsgen help COMMAND'", "too many arguments: %s", strings.Join(c.Args().Slice(), " "))
	case name == "":
		return cli.ShowAppHelp(c)
	case c.App.Command(name) == nil:
		return unknownCommand(c.App, name)
	default:
		return cli.ShowCommandHelp(c, name)
	}
}
