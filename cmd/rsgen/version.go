package main

import (
	"cmp"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// Stamped by the release build (.goreleaser.yaml): -X main.stampVersion=v1.2.0
// -X main.stampCommit=… -X main.stampDate=…; empty in any other build,
// which falls back to the build information Go records (buildInfo).
var stampVersion, stampCommit, stampDate string

// buildVersion is what "rsgen version" and "rsgen --version" print.
type buildVersion struct {
	Version string // v1.2.0, or "devel" in a checkout
	Commit  string // the full hash, "-dirty" added for uncommitted changes; "" if not known
	Date    string // the commit time, RFC 3339; "" if not known
	Go      string // go1.26.8
}

func currentVersion() buildVersion {
	info, _ := debug.ReadBuildInfo()
	v := buildInfo(info)
	v.Version, v.Commit, v.Date = cmp.Or(stampVersion, v.Version), cmp.Or(stampCommit, v.Commit), cmp.Or(stampDate, v.Date)
	return v
}

// buildInfo reads a version from the build information Go records: the
// module version for "go install …@v1.2.0", and the commit and its time
// for a build in a git checkout. info may be nil.
func buildInfo(info *debug.BuildInfo) buildVersion {
	v := buildVersion{Version: "devel", Go: runtime.Version()}
	if info == nil {
		return v
	}
	if m := info.Main.Version; m != "" && m != "(devel)" {
		v.Version = m
	}
	v.Go = cmp.Or(info.GoVersion, v.Go)
	dirty := ""
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision":
			v.Commit = s.Value
		case s.Key == "vcs.time":
			v.Date = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if v.Commit != "" {
		v.Commit += dirty
	}
	return v
}

// version is the version alone, as the User-Agent gives it.
func version() string { return currentVersion().Version }

func (v buildVersion) print(w io.Writer) {
	fmt.Fprintf(w, "rsgen %s\ncommit: %s\nbuilt:  %s\ngo:     %s %s/%s\n",
		v.Version, cmp.Or(v.Commit, "unknown"), cmp.Or(v.Date, "unknown"), v.Go, runtime.GOOS, runtime.GOARCH)
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version of rsgen, its commit, build date and Go version",
		Action: noArgs(func(c *cli.Context) error {
			currentVersion().print(c.App.Writer)
			return nil
		}),
	}
}
