package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/validate"
)

const validateExitCodes = `   0  every document is valid (warnings do not count, unless --strict)
   1  a document is not valid, or could not be read or fetched
   2  usage error: a flag or argument is wrong`

func validateCommand() *cli.Command {
	return withHelp(&cli.Command{
		Name:      "validate",
		Usage:     "check ResourceSync documents: files, directories, or a site",
		ArgsUsage: "PATH|URL...",
		Description: `Checks documents against the spec, then the links between them: a directory
(every document in it) or a site URL (from /.well-known/resourcesync). With
--resources or --fetch it also audits every listed resource. Each finding
names the document, line, rule and section of the spec (--rules lists them).
Flags may come before or after the arguments.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: flagFormat, Value: "text", Usage: "output `FORMAT`: text or json"},
			&cli.BoolFlag{Name: flagStrict, Usage: "warnings (should-level rules) fail too"},
			&cli.BoolFlag{Name: flagLenientHash, Usage: "digests that are not hex are warnings (the spec's Example 27 has such)"},
			&cli.StringFlag{Name: flagBaseURL, Usage: "`URL` where a directory is served, to resolve links (default: inferred from the documents)"},
			&cli.StringFlag{Name: flagResources, Usage: "audit: check every listed resource against the files of `DIR`"},
			&cli.StringFlag{Name: flagResourcesURL, Usage: "`URL` where --resources is served (default: --base-url, or the site)"},
			&cli.BoolFlag{Name: flagFetch, Usage: "audit a site over HTTP: download every listed resource"},
			&cli.BoolFlag{Name: flagCrossSite, Usage: "follow links, and fetch resources, on other hosts too"},
			&cli.IntFlag{Name: flagMaxDocuments, Value: validate.DefaultMaxDocuments, Usage: "check at most `N` documents per directory or site"},
			&cli.DurationFlag{Name: flagTimeout, Value: validate.DefaultTimeout, Usage: "give up on an HTTP request, its whole body included, after `DURATION`"},
			&cli.IntFlag{Name: flagJobs, Aliases: []string{"j"}, Value: validate.DefaultJobs, Usage: "`N` resources audited at once"},
			&cli.BoolFlag{Name: flagRules, Usage: "list the rules and exit"},
			&cli.BoolFlag{Name: flagQuiet, Aliases: []string{"q"}, Usage: "print findings only, no summary"},
		},
		Action: runValidate,
	}, validateExitCodes,
		"# The output of a build, before it is deployed\n"+
			"rsgen validate public --base-url https://example.org/",
		"# Findings as JSON, for a CI job\n"+
			"rsgen validate public --strict --format json",
	)
}

func runValidate(c *cli.Context) error {
	out := c.App.Writer
	if c.Bool(flagRules) {
		tw := tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "RULE\tSEVERITY\tSECTION\tWHAT IT CHECKS")
		for _, r := range validate.Rules() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Severity, r.Section, r.Summary)
		}
		return tw.Flush()
	}
	opts := validate.Options{
		LenientHash:  c.Bool(flagLenientHash),
		BaseURL:      c.String(flagBaseURL),
		Resources:    c.String(flagResources),
		ResourcesURL: c.String(flagResourcesURL),
		Fetch:        c.Bool(flagFetch),
		CrossSite:    c.Bool(flagCrossSite),
		MaxDocuments: c.Int(flagMaxDocuments),
		Timeout:      c.Duration(flagTimeout),
		Jobs:         c.Int(flagJobs),
	}
	format, strict := c.String(flagFormat), c.Bool(flagStrict)
	if c.NArg() == 0 {
		return usageErr("run 'rsgen validate PATH' or 'rsgen validate https://example.org/'", "nothing to validate: give a file, a directory or a URL")
	}
	err := checkFlags(
		flagRule{format != "text" && format != "json", flagFormat, strconv.Quote(format), "is not a format: give text or json", ""},
		flagRule{opts.MaxDocuments < 1, flagMaxDocuments, opts.MaxDocuments, "is out of range: give a positive number", ""},
		flagRule{opts.Jobs < 1 || opts.Jobs > 256, flagJobs, opts.Jobs, "is out of range: give a number from 1 to 256", ""},
		flagRule{opts.Timeout <= 0, flagTimeout, opts.Timeout, "is out of range: give a positive duration", "for example --timeout 30s"})
	if err != nil {
		return err
	}
	rep := &validate.Report{}
	for _, target := range c.Args().Slice() {
		r, err := validate.Target(c.Context, target, opts)
		if errors.Is(err, validate.ErrUsage) {
			return usageErr("", "%s", strings.TrimPrefix(err.Error(), validate.ErrUsage.Error()+": "))
		} else if err != nil {
			return failure(err, "")
		}
		rep.Merge(r)
	}
	if c.Context.Err() != nil {
		return failure(errors.New("interrupted: the validation is incomplete"), "")
	}
	if format == "json" {
		if err := rep.WriteJSON(out, strict); err != nil {
			return failure(err, "")
		}
	} else {
		for _, f := range rep.Findings {
			fmt.Fprintln(out, f)
		}
		if !c.Bool(flagQuiet) {
			fmt.Fprintln(c.App.ErrWriter, "rsgen: "+rep.Summary(strict))
		}
	}
	if rep.Valid(strict) {
		return nil
	}
	return &exitError{code: exitFailure, err: errors.New(""), hint: validateHint(rep, opts, c.Args().Slice())}
}

// validateHint names the flag that lets an audit reach the resources it
// could not, if there were any, or the URL that a target that is no file
// most likely means ("example.org/data").
func validateHint(rep *validate.Report, opts validate.Options, targets []string) string {
	switch {
	case rep.ByRule[validate.RuleAuditUnreached] > 0 && opts.Resources != "":
		return "--resources-url URL says where the --resources directory is served"
	case rep.ByRule[validate.RuleAuditUnreached] > 0 && !opts.CrossSite:
		return "--cross-site fetches the resources of other hosts too"
	}
	for _, target := range targets {
		if _, err := os.Lstat(target); strings.Contains(target, "://") || !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		host, path, _ := strings.Cut(target, "/")
		ext := strings.ToLower(host[strings.LastIndex(host, ".")+1:])
		if hostName.MatchString(host) && !slices.Contains([]string{"xml", "gz", "zip", "tar", "tgz", "txt", "json", "html", "htm"}, ext) {
			return "to check a site, give its URL: rsgen validate https://" + host + "/" + path
		}
	}
	return ""
}

// hostName matches a name such as example.org or www.example.org: labels,
// the last of letters only.
var hostName = regexp.MustCompile(`^(?i)([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$`)
