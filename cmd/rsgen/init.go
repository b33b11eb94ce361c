package main

import (
	"cmp"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/internal/storage/confined"
)

//go:embed init.toml
var initFile []byte

func initCommand() *cli.Command {
	return withHelp(&cli.Command{
		Name:      "init",
		Usage:     "write a configuration file of several resource sets to start from",
		ArgsUsage: "[FILE]",
		Description: `Writes FILE (default: rsgen.toml) for 'rsgen build --config FILE': two
resource sets published together, the common keys commented. An existing FILE
is never overwritten.`,
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usageErr("give one FILE", "too many arguments: %s", strings.Join(c.Args().Slice(), " "))
			}
			path := cmp.Or(c.Args().First(), "rsgen.toml")
			fd, err := confined.CreateNew(path, 0o644)
			if errors.Is(err, os.ErrExist) {
				return failure(fmt.Errorf("%s exists; rsgen init never overwrites a file", path), "edit it, or give another FILE")
			} else if err != nil {
				return failure(err, "")
			}
			_, err = fd.Write(initFile)
			if err = errors.Join(err, fd.Close()); err != nil {
				confined.Remove(path)
				return failure(fmt.Errorf("writing %s: %w", path, err), "")
			}
			fmt.Fprintf(c.App.ErrWriter, "rsgen: wrote %s; edit it, then: rsgen build --config %s\n", path, path)
			return nil
		},
	}, "   0  written\n   1  FILE exists or cannot be written\n   2  usage error",
		"# Start a configuration of several sets\nrsgen init\nrsgen build --config rsgen.toml")
}
