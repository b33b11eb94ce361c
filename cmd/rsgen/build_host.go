package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/hosting"
)

// hostFlags are the flags of build that write configuration for static hosts.
func hostFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: flagHost, Usage: "write the configuration `HOST` needs to serve the output right: " + strings.Join(hosting.Hosts, ", ") + " (repeatable, or comma-separated)"},
	}
}
