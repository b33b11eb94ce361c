package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// version is the module version rsgen was built from ("v1.2.0" when
// installed with go install …@v1.2.0), or "devel" in a checkout.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Version == "" || info.Main.Version == "(devel)" {
		return "devel"
	}
	return info.Main.Version
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version of rsgen",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErr("", "version takes no arguments")
			}
			fmt.Fprintf(c.App.Writer, "rsgen %s (%s, %s/%s)\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
