package main

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/internal/text/display"
)

// Exit codes, documented in --help (exitCodes) and the README.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitPartial     = 3
	exitHub         = 4   // notify's alone
	exitInterrupted = 130 // a second Ctrl-C: 128 + SIGINT, as a shell says (143 for SIGTERM)
)

const exitCodes = `   0  success
   1  failure: nothing was published, the output directory is as it was
   2  usage error: a flag or argument is wrong
   3  published, but some files could not be read (each is named on stderr;
      --on-error=fail turns this into a failure)
   130 interrupted twice (Ctrl-C, then Ctrl-C again; 143 for SIGTERM, 129
      for SIGHUP): stopped at once, as if killed; the next build removes the
      staging directory left behind. A single Ctrl-C stops a build cleanly
      (code 1)`

// exitError carries an exit code and, optionally, a hint naming what to do.
type exitError struct {
	code int
	err  error
	hint string
	flag string // the flag of build whose value err is about, or ""
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(hint string, format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...), hint: hint}
}

// flagErr is the usage error "--flag" + format of the value of build's
// flag, which the configuration file words with its key (configs).
func flagErr(flag, hint, format string, args ...any) error {
	return &exitError{code: exitUsage, err: errors.New(cliName(flag) + fmt.Sprintf(format, args...)), hint: hint, flag: flag}
}

func failure(err error, hint string) error {
	return &exitError{code: exitFailure, err: err, hint: hint}
}

// A flagRule is a check of a flag's value: if bad, the usage error
// "--flag VALUE problem", with hint.
type flagRule struct {
	bad           bool
	flag          string
	value         any
	problem, hint string
}

func checkFlags(rules ...flagRule) error {
	for _, r := range rules {
		if r.bad {
			return usageErr(r.hint, "--%s %v %s", r.flag, r.value, r.problem)
		}
	}
	return nil
}

func noArgs(action cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.NArg() > 0 {
			return usageErr("", "%s takes no arguments", c.Command.Name)
		}
		return action(c)
	}
}

// oneArg returns the one argument of a command that takes one, what.
func oneArg(c *cli.Context, what, hint string) (string, error) {
	if c.NArg() != 1 {
		return "", usageErr(hint, "give one %s, not %d arguments", what, c.NArg())
	}
	return c.Args().First(), nil
}

// printError prints err and returns its exit code; an error that is not
// an exitError comes from parsing the command line.
func printError(stderr io.Writer, err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if !errors.As(err, &ee) {
		ee = &exitError{code: exitUsage, err: err, hint: "see 'rsgen --help'"}
	}
	if msg := ee.err.Error(); msg != "" {
		fmt.Fprintf(stderr, "rsgen: error: %s\n", msg)
	}
	if ee.hint != "" {
		fmt.Fprintf(stderr, "rsgen: hint: %s\n", ee.hint)
	}
	return ee.code
}

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
	dashed := func(name string) string {
		if utf8.RuneCountInString(name) == 1 {
			return "-" + name
		}
		return "--" + name
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return usageErr(help, "%s needs a value", dashed(name))
	}
	if m := badValue.FindStringSubmatch(msg); m != nil {
		// Go's flag package says "invalid value "5" for flag -timeout: parse error".
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
	name, ok := strings.CutPrefix(msg, "flag provided but not defined: -")
	if !ok {
		return usageErr(help, "%s", msg)
	}
	build := cmd != nil && cmd.Name == "build"
	if build && fileOnly(name) { // a flag of build once (CHANGELOG.md): what replaced it
		switch name {
		case flagFailFast, flagSkipBadRecords:
			return usageErr("give "+cliName(name), "--%s is no longer a flag", name)
		case flagArchiveKeep, flagArchiveResourceLists, flagArchiveResourceDumps:
			return usageErr("give --"+flagArchive+" KEEP[,lists=EVERY][,dumps=EVERY]", "--%s is no longer a flag", name)
		}
		return usageErr("give "+name+" in the configuration file of --"+flagConfig+" (a file with its source = \"DIR\" at the top builds one set; docs/SETS.md)",
			"--%s is no longer a flag: it is a key of the configuration file", name)
	}
	var names []string
	for _, f := range flags {
		names = append(names, f.Names()...)
	}
	if build {
		names = append(names, slices.DeleteFunc(fileKeys(), func(k string) bool { return !fileOnly(k) })...)
	}
	switch s := display.Closest(name, names); {
	case build && slices.Contains([]string{"source", "src", "input", "in", "dir", "root"}, strings.ToLower(name)):
		help = "SOURCE is an argument, not a flag: rsgen build public, not rsgen build --" + name + " public; " + help
	case build && fileOnly(s):
		help = "did you mean " + cliName(s) + "? " + help
	case s != "":
		help = "did you mean " + dashed(s) + "? " + help
	}
	return usageErr(help, "unknown flag %s", dashed(name))
}

var badValue = regexp.MustCompile(`^invalid (boolean )?value (".*") for (?:flag )?-([^:\s]+): (.*)$`)

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
// exit 3 for an unknown COMMAND. help is no command of its own: "rsgen
// help help" shows rsgen's help, which says how to use it.
func showHelp(c *cli.Context) error {
	switch name := c.Args().Get(1); {
	case c.NArg() > 2:
		return usageErr("run 'rsgen help COMMAND'", "too many arguments: %s", strings.Join(c.Args().Slice(), " "))
	case name == "" || name == "help":
		return cli.ShowAppHelp(c)
	case c.App.Command(name) == nil:
		return unknownCommand(c.App, name)
	default:
		return cli.ShowCommandHelp(c, name)
	}
}
