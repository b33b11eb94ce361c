package main

import (
	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/zipdump"
)

// dumpFlags are the flags of the Resource Dump (section 11).
func dumpFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: flagResourceDump, Usage: "also publish the files (an archive's members; with --export, the records' local files, which every published record then needs) as ZIP packages (resourcesync/resourcedump-00001.zip, …), each with its manifest.xml, listed in resourcesync/resourcedump.xml. With --previous, a build without it fails if the previous build had one: --resource-dump=false drops it on purpose"},
	}
}

// dumpConfig reads the flags of the Resource Dump into cfg.
func dumpConfig(c lineOptions, cfg *generator.Config) error {
	cfg.Dump.Enabled = c.Bool(flagResourceDump)
	var err error
	// The Change Dump's packages are made alike. Left out, the keys are
	// zero: zipdump's defaults.
	if s := c.String(flagDumpMaxBytes); s != "" {
		if err := cfg.Dump.MaxBytes.UnmarshalText([]byte(s)); err != nil {
			return flagErr(flagDumpMaxBytes, "for example "+flagDumpMaxBytes+" = \"2GiB\"", ": %v", err)
		}
	}
	if s := c.String(flagDumpCompression); s != "" {
		if cfg.Dump.Compression, err = zipdump.ParseCompression(s); err != nil {
			return flagErr(flagDumpCompression, "", ": %v", err)
		}
	}
	return nil
}
