package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// manCommand prints the manual page rsgen.1, in roff, rendered by
// urfave/cli from the same command and flag definitions as --help. The
// release build writes it into every archive; it is hidden from the help.
func manCommand() *cli.Command {
	return &cli.Command{
		Name:   "man",
		Usage:  "print the manual page rsgen.1 (roff)",
		Hidden: true,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErr("", "man takes no arguments")
			}
			page, err := c.App.ToManWithSection(1)
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(c.App.Writer, page)
			return err
		},
	}
}
