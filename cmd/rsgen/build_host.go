package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/templates"
)

// hostFlags are the flags of build that write configuration for static hosts.
func hostFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: flagHost, Usage: "write the configuration `HOST` needs to serve the output right: " + strings.Join(hosting.Hosts, ", ") + " (repeatable, or comma-separated)"},
	}
}

// hostConfig reads the flags of hostFlags into cfg.
func hostConfig(c lineOptions, cfg *generator.Config) error {
	var err error
	if cfg.Hosts, err = hosting.ParseHosts(c.StringSlice(flagHost)); err != nil {
		return flagErr(flagHost, "for example --host netlify or --host nginx,s3", ": %v", err)
	}
	if dir := c.String(flagTemplates); dir != "" {
		if cfg.Templates, err = templates.Overlay(dir); err != nil {
			return flagErr(flagTemplates, "name each file after the template it replaces", ": %v", err)
		}
	}
	return nil
}
