package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/urfave/cli/v2"
)

// The command line is urfave/cli v2's: its parsing, commands, help
// (templates, flag strings), completion and man page. rsgen does itself
// only what v2 cannot, each in one file:
//   - flags after the arguments (args.go): v2 stops at the first argument;
//   - the help's layout (help.go): v2 neither wraps a flag's usage in its
//     columns, nor keeps the groups of flags in their order, nor ends a
//     command's help with exit codes and examples;
//   - parse errors in rsgen's words, with the flag meant (usage.go): v2
//     passes on the text of Go's flag package;
//   - the exit code of every error (exit.go): v2's handler calls os.Exit,
//     which skips deferred cleanup;
//   - the completion scripts of bash and zsh (completion.go): v2 does not
//     ship them in its Go package.

// run runs the command line args and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := &cli.App{
		Name:  "rsgen",
		Usage: "publish a collection as ResourceSync documents (ANSI/NISO Z39.99)",
		Description: "rsgen scans a file tree, hashes every file, and writes the documents a\n" +
			"ResourceSync Destination needs into a directory that any static host serves\n" +
			"as it is. 'rsgen help COMMAND' tells more of each command.\n\n" + exitCodesHelp,
		Version:         version(),
		Writer:          stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		// The completion scripts ask rsgen what fits (completion.go).
		EnableBashCompletion: true,
		// A value of a repeatable flag is one value: a pattern may hold a
		// comma (a name, or {a,b}); --host splits its own list.
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
		// Errors are printed, and the exit code chosen, by report: cli's own
		// handler would call os.Exit and skip the cleanup of deferred calls.
		ExitErrHandler: func(*cli.Context, error) {},
	}
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
		return parseError(nil, app.Flags, err)
	}
	for _, cmd := range app.Commands {
		cmd.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
			return parseError(cmd, cmd.Flags, err)
		}
		cmd.BashComplete = completeArgs(cmd)
		describeFlags(cmd.Flags)
	}
	cli.VersionPrinter = func(c *cli.Context) { currentVersion().print(c.App.Writer) }
	cli.HelpFlag = &cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show this help", DisableDefaultText: true}
	cli.HelpPrinter = func(w io.Writer, templ string, data any) { cli.HelpPrinterCustom(w, templ, data, helpFuncs) }
	if args[len(args)-1] != completeFlag { // urfave/cli completes only the words as typed, without a "--"
		var err error
		if args, err = flagsFirst(app, args); err != nil {
			return printError(stderr, err)
		}
	}
	return printError(stderr, app.RunContext(ctx, args))
}

// onSignals stops the run cleanly at the first SIGINT or SIGTERM on sigs,
// by cancelling its context: nothing is published, the staging directory
// is removed. A second one exits at once through exit, with the shell's
// code for death by that signal (130 for Ctrl-C, 143 for SIGTERM): what
// the run leaves is what a build killed outright leaves, which the next
// build removes.
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
