package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// The help of a command is urfave/cli's (cli.Command.CustomHelpTemplate),
// each flag written by urfave/cli (cli.Flag's String); what v2 cannot do
// is here (app.go says what): its wrap breaks the alignment of the columns
// it makes with a tabwriter, and it sorts the groups and flags by name.

// helpWidth is the width the help of a command fits in: a terminal of 80
// columns.
const helpWidth = 80

// flagColumn is the column at which the usage of a flag starts.
const flagColumn = 32

// helpTemplate is the help of a command; withHelp appends its exit codes
// and examples.
const helpTemplate = `NAME:
   {{.HelpName}} - {{.Usage}}

USAGE:
   {{.HelpName}} [flags] {{.ArgsUsage}}{{if .Description}}

DESCRIPTION:
   {{template "descriptionTemplate" .}}
{{end}}{{range flagGroups .VisibleFlags}}
{{.Name}}:
{{range .Flags}}{{flagHelp .}}{{end}}{{end}}`

// withHelp sets the help of cmd, which urfave/cli prints for "rsgen CMD
// --help" and "rsgen help CMD", and returns cmd. Examples are kept as
// they are: one a line, each a comment and commands.
func withHelp(cmd *cli.Command, exitCodes string, examples ...string) *cli.Command {
	var b strings.Builder
	if exitCodes != "" {
		b.WriteString("\nEXIT CODES:\n" + exitCodes + "\n")
	}
	for i, e := range examples {
		if i == 0 {
			b.WriteString("\nEXAMPLES:\n")
		} else {
			b.WriteString("\n")
		}
		for _, line := range strings.Split(e, "\n") {
			b.WriteString("   " + line + "\n")
		}
	}
	// urfave/cli runs the help through text/template: keep the text as it is.
	cmd.CustomHelpTemplate = helpTemplate + strings.ReplaceAll(b.String(), "{{", `{{"{{"}}`)
	return cmd
}

// describeFlags readies flags for the help and the completion scripts: a
// switch shows no default (it is off unless given), and a flag whose
// value is a path (FILE, DIR…) is marked so, for fish to complete file
// names for it and nothing for the others (urfave/cli's TakesFile).
func describeFlags(flags []cli.Flag) {
	for _, f := range flags {
		switch f := f.(type) {
		case *cli.BoolFlag:
			f.DisableDefaultText = true
		case *cli.StringFlag:
			names, _, _ := strings.Cut(f.String(), "\t") // "--out DIR, -o DIR\t…"
			first, _, _ := strings.Cut(names, ",")
			words := strings.Fields(first)
			f.TakesFile = slices.Contains([]string{"FILE", "DIR", "DIR|URL", "SOURCE"}, words[len(words)-1])
		}
	}
}

// helpFuncs are the functions of helpTemplate.
var helpFuncs = map[string]any{"flagHelp": flagHelp, "flagGroups": flagGroups}

// A flagGroup is the flags of one Category, or "FLAGS".
type flagGroup struct {
	Name  string
	Flags []cli.Flag
}

// flagGroups groups flags by their category, in the order of flags; a
// flag without one goes into the last group (urfave/cli's --help, which it
// adds last), or into FLAGS if none has one.
func flagGroups(flags []cli.Flag) []flagGroup {
	var groups []flagGroup
	for _, f := range flags {
		name := "FLAGS"
		if c, ok := f.(cli.CategorizableFlag); ok && c.GetCategory() != "" {
			name = c.GetCategory()
		} else if len(groups) > 0 {
			name = groups[len(groups)-1].Name
		}
		i := slices.IndexFunc(groups, func(g flagGroup) bool { return g.Name == name })
		if i < 0 {
			i = len(groups)
			groups = append(groups, flagGroup{Name: name})
		}
		groups[i].Flags = append(groups[i].Flags, f)
	}
	return groups
}

// flagHelp is the help of f: its names and value, then its usage, default
// and environment variables from flagColumn on, wrapped.
func flagHelp(f cli.Flag) string {
	left, usage, _ := strings.Cut(f.String(), "\t")
	left = "   " + left
	var b strings.Builder
	if len(left)+2 > flagColumn {
		b.WriteString(left + "\n")
		left = ""
	}
	for _, l := range wrap(usage, helpWidth-flagColumn) {
		fmt.Fprintf(&b, "%-*s%s\n", flagColumn, left, l)
		left = ""
	}
	return b.String()
}

// wrap breaks text into lines of at most width bytes at spaces; a word
// longer than that gets a line of its own.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
