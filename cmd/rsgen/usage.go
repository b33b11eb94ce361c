package main

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/internal/text/display"
)

// parseError is the usage error of err, an error of the parser of the
// command line (Go's flag package) about flags of cmd (nil: of rsgen
// itself). An unknown flag gets the flag it most likely means
// (display.Closest), or for build the key of the configuration file, or
// the flag, that replaced it (CHANGELOG.md).
func parseError(cmd *cli.Command, flags []cli.Flag, err error) error {
	help := "see 'rsgen --help'"
	if cmd != nil {
		help = "see 'rsgen " + cmd.Name + " --help'"
	}
	if name, ok := strings.CutPrefix(err.Error(), "flag needs an argument: -"); ok {
		return usageErr(help, "--%s needs a value", name)
	}
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return usageErr(help, "%v", err)
	}
	dashed := "--" + name
	if utf8.RuneCountInString(name) == 1 {
		dashed = "-" + name
	}
	var names []string
	for _, f := range flags {
		names = append(names, f.Names()...)
	}
	build := cmd != nil && cmd.Name == "build"
	if build {
		names = append(names, slices.DeleteFunc(fileKeys(), func(k string) bool { return !fileOnly(k) })...)
	}
	switch s := display.Closest(name, names); {
	case build && slices.Contains([]string{"source", "src", "input", "in", "dir", "root"}, strings.ToLower(name)):
		help = "SOURCE is an argument, not a flag: rsgen build public, not rsgen build --" + name + " public; " + help
	case build && fileOnly(s):
		help = "did you mean " + cliName(s) + "? " + help
	case s != "":
		help = "did you mean --" + s + "? " + help
	}
	return usageErr(help, "unknown flag %s", dashed)
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

// showHelp runs "rsgen help [COMMAND]": urfave/cli's help command would
// exit 3 for an unknown COMMAND.
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
