package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
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
