// Command rsgen publishes a collection as ResourceSync documents.
//
// See README.md, or run "rsgen --help".
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/cmd/rsgen/internal/signals"
)

func main() {
	os.Exit(Main())
}

// Main is rsgen, returning its exit code (the testscripts' command rsgen).
func Main() int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go onSignals(signals.Caught(), cancel, os.Stderr, os.Exit)
	code := run(ctx, os.Args, os.Stdout, os.Stderr)
	signals.Stop()
	return code
}

// run runs the command line args with urfave/cli v2 and returns the exit
// code. rsgen adds flags after the arguments (args.go), the flag meant by
// an unknown one (usage.go) and the exit code of every error (exit.go).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := &cli.App{
		Name:  "rsgen",
		Usage: "publish a collection as ResourceSync documents (ANSI/NISO Z39.99)",
		Description: "rsgen scans a file tree, hashes every file, and writes the documents a\n" +
			"ResourceSync Destination needs into a directory that any static host serves\n" +
			"as it is. 'rsgen help COMMAND' tells more of each command.\n\nEXIT CODES:\n" + exitCodes,
		Version:              version(),
		Writer:               stdout,
		ErrWriter:            stderr,
		HideHelpCommand:      true,
		EnableBashCompletion: true, // completion.go
		// A pattern may hold a comma ({a,b}); --host splits its own list.
		DisableSliceFlagSeparator: true,
		Commands:                  []*cli.Command{buildCommand(), initCommand(), validateCommand(), serveCommand(), notifyCommand(), versionCommand(), completionCommand(), manCommand()},
		Action: func(c *cli.Context) error {
			if c.Args().First() == "help" {
				return showHelp(c)
			}
			if c.NArg() > 0 {
				return unknownCommand(c.App, c.Args().First())
			}
			return cli.ShowAppHelp(c)
		},
		// printError prints errors: cli's handler would call os.Exit.
		ExitErrHandler: func(*cli.Context, error) {},
	}
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
		return parseError(nil, app.Flags, err)
	}
	cli.VersionPrinter = func(c *cli.Context) { printVersion(c.App.Writer) }
	cli.HelpFlag = &cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show this help", DisableDefaultText: true}
	for _, cmd := range app.Commands {
		cmd.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
			return parseError(cmd, cmd.Flags, err)
		}
		cmd.BashComplete = completeArgs(cmd)
		// v2 groups a command's flags before it adds --help to them.
		cmd.Flags = append(cmd.Flags, cli.HelpFlag)
		describeFlags(cmd.Flags)
	}
	if args[len(args)-1] != completeFlag { // urfave/cli completes only the words as typed, without a "--"
		var err error
		if args, err = flagsFirst(app, args); err != nil {
			return printError(stderr, err)
		}
	}
	return printError(stderr, app.RunContext(ctx, args))
}

// onSignals cancels the run at the first signal on sigs; a second one
// exits at once, with the shell's code for death by that signal.
func onSignals(sigs <-chan os.Signal, cancel context.CancelFunc, stderr io.Writer, exit func(int)) {
	<-sigs
	cancel()
	fmt.Fprintln(stderr, "rsgen: interrupted: stopping cleanly; interrupt again to stop at once")
	s := <-sigs
	fmt.Fprintln(stderr, "rsgen: error: interrupted again: stopped at once, as if killed; the next build removes the staging directory left behind")
	code := exitInterrupted
	if n, ok := s.(syscall.Signal); ok {
		code = 128 + int(n)
	}
	exit(code)
}

// manCommand prints the manual page rsgen.1, which the release archives hold.
func manCommand() *cli.Command {
	return &cli.Command{
		Name:   "man",
		Usage:  "print the manual page rsgen.1 (roff)",
		Hidden: true,
		Action: noArgs(func(c *cli.Context) error {
			page, err := c.App.ToManWithSection(1)
			if err == nil {
				_, err = fmt.Fprint(c.App.Writer, page)
			}
			return err
		}),
	}
}
