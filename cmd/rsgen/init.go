package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/internal/storage/confined"
)

// initCommand writes a configuration file to start from.
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
			path := c.Args().First()
			if path == "" {
				path = "rsgen.toml"
			}
			fd, err := confined.CreateNew(path, 0o644)
			if errors.Is(err, os.ErrExist) {
				return failure(fmt.Errorf("%s exists; rsgen init never overwrites a file", path), "edit it, or give another FILE")
			}
			if err != nil {
				return failure(err, "")
			}
			_, err = fd.Write(initFile)
			if cerr := fd.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				confined.Remove(path)
				return failure(fmt.Errorf("writing %s: %w", path, err), "")
			}
			fmt.Fprintf(c.App.ErrWriter, "rsgen: wrote %s; edit it, then: rsgen build --config %s\n", path, path)
			return nil
		},
	}, "   0  written\n   1  FILE exists or cannot be written\n   2  usage error",
		"# Start a configuration of several sets\nrsgen init\nrsgen build --config rsgen.toml")
}

// initFile is what rsgen init writes: a commented file to start from.
var initFile = bytes.TrimLeft([]byte(`
# rsgen.toml: several ResourceSync resource sets, published together by
#   rsgen build --config rsgen.toml
# One Source Description (.well-known/resourcesync) lists the Capability List
# of each set; each set has its documents under resourcesync/<name>/.
# The keys are the long names of the flags of 'rsgen build', with the same
# values (see 'rsgen build --help' and docs/SETS.md). Relative paths are
# relative to this file. A flag of the whole site on the command line (--out,
# --docs-url, --previous, --at, --jobs, --host…) overrides the key of the
# same name at the top of this file.

# The whole site: where the documents are written and served.
out = "public"                         # the output directory
docs-url = "https://example.org/"      # where out is served
# describedby = "https://example.org/about.html"  # linked from the Source Description

# Change Lists across builds: where the last build is published.
# previous = "https://example.org/"
# first-build-ok = true                # the first build, with nothing published yet

# Defaults of every set; each [[set]] may give its own.
hash = "sha-256"                       # or ["sha-256", "md5"]
# changes-keep = "30d"
# archive-keep = "365d"

[[set]]
name = "articles"                      # its documents: resourcesync/articles/
source = "public/articles"             # a directory, or a .tar, .tar.gz, .tgz or .zip of one
base-url = "https://example.org/articles/"  # where source is served
include = ["**/*.html", "**/*.pdf"]
# describedby = "https://example.org/about/articles.html"
# resource-dump = true

[[set]]
name = "datasets"
source = "public/data"
base-url = "https://example.org/data/"
exclude = ["tmp/**"]
# cache = "datasets.rsgencache"       # a hash cache of its own (its directory must exist)
`), "\n")
