package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
)

// run runs the command line args and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := &cli.App{
		Name:  "rsgen",
		Usage: "publish a collection as ResourceSync documents (ANSI/NISO Z39.99-2017)",
		Description: "rsgen scans a file tree, hashes every file, and writes the documents a ResourceSync\n" +
			"Destination needs into a directory that any static host serves as it is.\n\n" + exitCodesHelp,
		Version:         version(),
		Writer:          stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		Commands:        []*cli.Command{buildCommand(), validateCommand(), serveCommand(), notifyCommand(), versionCommand()},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErr("see 'rsgen --help' for the commands", "unknown command %q", c.Args().First())
			}
			return cli.ShowAppHelp(c)
		},
		// Errors are printed, and the exit code chosen, by report: cli's own
		// handler would call os.Exit and skip the cleanup of deferred calls.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageErr("see 'rsgen --help'", "%v", err)
		},
	}
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprintln(c.App.Writer, "rsgen", c.App.Version) }
	return report(stderr, app.RunContext(ctx, args))
}
