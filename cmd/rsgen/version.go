package main

import (
	"cmp"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// Stamped by the release build (.goreleaser.yaml: -X main.stampVersion=v1.2.0
// …); empty in any other build, which reads what Go records (versionOf).
var stampVersion, stampCommit, stampDate string

// versionOf returns the version ("devel" in a checkout), the commit
// ("-dirty" with uncommitted changes) and its time that info (may be nil)
// records; the release build's stamps win.
func versionOf(info *debug.BuildInfo) (version, commit, date string) {
	version = "devel"
	if info != nil {
		if m := info.Main.Version; m != "" && m != "(devel)" {
			version = m
		}
		dirty := ""
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision":
				commit = s.Value
			case s.Key == "vcs.time":
				date = s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				dirty = "-dirty"
			}
		}
		if commit != "" {
			commit += dirty
		}
	}
	return cmp.Or(stampVersion, version), cmp.Or(stampCommit, commit), cmp.Or(stampDate, date)
}

func version() string {
	info, _ := debug.ReadBuildInfo()
	v, _, _ := versionOf(info)
	return v
}

// printVersion is what "rsgen version" and "rsgen --version" print.
func printVersion(w io.Writer) {
	info, _ := debug.ReadBuildInfo()
	v, commit, date := versionOf(info)
	fmt.Fprintf(w, "rsgen %s\ncommit: %s\nbuilt:  %s\ngo:     %s %s/%s\n",
		v, cmp.Or(commit, "unknown"), cmp.Or(date, "unknown"), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version of rsgen, its commit, build date and Go version",
		Action: noArgs(func(c *cli.Context) error {
			printVersion(c.App.Writer)
			return nil
		}),
	}
}
