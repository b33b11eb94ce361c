package main

import (
	"github.com/urfave/cli/v2"
)

// dumpFlags are the flags of the Resource Dump (section 11).
func dumpFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: flagResourceDump, Usage: "also publish the files (an archive's members; with --export, the records' local files, which every published record then needs) as ZIP packages (resourcesync/resourcedump-00001.zip, …), each with its manifest.xml, listed in resourcesync/resourcedump.xml. With --previous, a build without it fails if the previous build had one: --resource-dump=false drops it on purpose"},
	}
}
