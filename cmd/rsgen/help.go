package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// helpWidth is the width the help of a command fits in: a terminal of 80
// columns.
const helpWidth = 80

// flagCategories orders the groups of flags in a command's help: the
// Category of each flag (build has them all; validate and serve none).
var flagCategories = []string{"tree", "export", "dumps", "changes", "sets", "guards", "hosting", "notifications", "output"}

// categoryTitles are the headings of the groups of flagCategories.
var categoryTitles = map[string]string{
	"":        "FLAGS",
	"tree":    "SOURCE TREE FLAGS",
	"export":  "RECORD EXPORT FLAGS",
	"dumps":   "DUMP FLAGS",
	"changes": "CHANGE FLAGS",
	"sets":    "RESOURCE SET FLAGS",
	"guards":  "GUARD FLAGS",
	"hosting": "HOSTING FLAGS",
	"output":  "OUTPUT FLAGS",

	"notifications": "NOTIFICATION FLAGS",
}

// withHelp sets the help of cmd, which urfave/cli prints for "rsgen CMD
// --help" and "rsgen help CMD", to commandHelp's, and returns cmd.
func withHelp(cmd *cli.Command, exitCodes string, examples ...string) *cli.Command {
	text := commandHelp(cmd, exitCodes, examples)
	// urfave/cli runs the help through text/template: keep it as it is.
	cmd.CustomHelpTemplate = strings.ReplaceAll(text, "{{", `{{"{{"}}`)
	return cmd
}

// commandHelp renders the help of cmd in helpWidth columns: name, usage,
// description, its flags in groups (each with the name of its value,
// its default, its environment variable), the exit codes and examples.
// Examples are kept as they are: one a line, each a comment and commands.
func commandHelp(cmd *cli.Command, exitCodes string, examples []string) string {
	var b strings.Builder
	section := func(title string) {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(title + ":\n")
	}
	section("NAME")
	writeWrapped(&b, "rsgen "+cmd.Name+" - "+cmd.Usage, 3, 5)
	section("USAGE")
	writeWrapped(&b, "rsgen "+cmd.Name+" [flags] "+cmd.ArgsUsage, 3, 5)
	if cmd.Description != "" {
		section("DESCRIPTION")
		writeDescription(&b, cmd.Description)
	}
	help := &cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show this help"}
	groups := map[string][]cli.Flag{}
	for _, f := range cmd.Flags {
		cat := groupOf(f)
		groups[cat] = append(groups[cat], f)
	}
	if len(groups[""]) < len(cmd.Flags) {
		groups["output"] = append(groups["output"], help) // grouped: with the output flags
	} else {
		groups[""] = append(groups[""], help)
	}
	col := 0
	for _, f := range append(slices.Clone(cmd.Flags), help) {
		col = max(col, len(flagLeft(f))+2)
	}
	col = min(col, 32)
	for _, cat := range append([]string{""}, flagCategories...) {
		if len(groups[cat]) == 0 {
			continue
		}
		section(categoryTitles[cat])
		for _, f := range groups[cat] {
			writeFlag(&b, f, col)
		}
	}
	if exitCodes != "" {
		section("EXIT CODES")
		b.WriteString(exitCodes + "\n")
	}
	if len(examples) > 0 {
		section("EXAMPLES")
		for i, e := range examples {
			if i > 0 {
				b.WriteString("\n")
			}
			for _, line := range strings.Split(e, "\n") {
				b.WriteString("   " + line + "\n")
			}
		}
	}
	return b.String()
}

// writeDescription writes text indented by 3 in helpWidth columns: a run
// of lines is a paragraph, wrapped again; a line that starts with a space
// is kept as it is if it fits (a table).
func writeDescription(b *strings.Builder, text string) {
	var para []string
	flush := func() {
		if len(para) > 0 {
			writeWrapped(b, strings.Join(para, " "), 3, 3)
			para = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		switch {
		case line == "":
			flush()
			b.WriteString("\n")
		case strings.HasPrefix(line, " ") && len(line)+3 <= helpWidth:
			flush()
			b.WriteString("   " + line + "\n")
		case strings.HasPrefix(line, " "):
			flush()
			writeWrapped(b, line, 3, 3)
		default:
			para = append(para, line)
		}
	}
	flush()
}

func groupOf(f cli.Flag) string {
	if c, ok := f.(cli.CategorizableFlag); ok {
		return c.GetCategory()
	}
	return ""
}

// flagLeft is the left column of a flag: "  -o, --out DIR", "      --hidden".
func flagLeft(f cli.Flag) string {
	var short, long []string
	for _, n := range f.Names() {
		if len(n) == 1 {
			short = append(short, "-"+n)
		} else {
			long = append(long, "--"+n)
		}
	}
	s := "  "
	if len(short) > 0 {
		s += strings.Join(short, ", ") + ", "
	} else {
		s += "    "
	}
	s += strings.Join(long, ", ")
	if p, _ := valueName(f); p != "" {
		s += " " + p
	}
	return s
}

// valueName returns the name of the value of f (FILE, URL…), which its
// usage gives in backquotes (as urfave/cli reads it), and the usage
// without them. A
// flag that takes a value but names none gets VALUE.
func valueName(f cli.Flag) (name, usage string) {
	usage = f.(cli.DocGenerationFlag).GetUsage()
	if i := strings.Index(usage, "`"); i >= 0 {
		if j := strings.Index(usage[i+1:], "`"); j >= 0 {
			name = usage[i+1 : i+1+j]
			usage = usage[:i] + name + usage[i+1+j+1:]
		}
	}
	if _, isSwitch := f.(*cli.BoolFlag); !isSwitch && name == "" {
		name = "VALUE"
	}
	return name, usage
}

// defaultOf is the default value of f to show, or "": none for a switch,
// which is off unless given.
func defaultOf(f cli.Flag) string {
	switch f := f.(type) {
	case *cli.StringFlag:
		return f.Value
	case *cli.IntFlag:
		return strconv.Itoa(f.Value)
	case *cli.DurationFlag:
		if f.Value != 0 {
			return f.Value.String()
		}
	}
	return ""
}

func writeFlag(b *strings.Builder, f cli.Flag, col int) {
	left := flagLeft(f)
	_, usage := valueName(f)
	if d := defaultOf(f); d != "" && !strings.Contains(usage, "default:") {
		usage += " (default: " + d + ")"
	}
	if env := f.(cli.DocGenerationFlag).GetEnvVars(); len(env) > 0 {
		usage += " [$" + strings.Join(env, ", $") + "]"
	}
	if len(left)+2 > col {
		b.WriteString(left + "\n")
		left = ""
	}
	lines := wrap(usage, helpWidth-col, helpWidth-col)
	for i, l := range lines {
		if i == 0 {
			fmt.Fprintf(b, "%-*s%s\n", col, left, l)
		} else {
			fmt.Fprintf(b, "%*s%s\n", col, "", l)
		}
	}
}

// writeWrapped writes text wrapped to helpWidth, its first line indented
// by first spaces, the others by rest. Leading spaces of text are kept.
func writeWrapped(b *strings.Builder, text string, first, rest int) {
	lead := len(text) - len(strings.TrimLeft(text, " "))
	first += lead
	rest += lead
	lines := wrap(text[lead:], helpWidth-first, helpWidth-rest)
	if len(lines) == 0 {
		b.WriteString("\n")
	}
	for i, l := range lines {
		n := first
		if i > 0 {
			n = rest
		}
		b.WriteString(strings.Repeat(" ", n) + l + "\n")
	}
}

// wrap breaks text into lines at spaces, the first of at most first
// bytes, the others of at most rest; a word longer than that gets a line
// of its own.
func wrap(text string, first, rest int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		width := first
		if len(lines) > 0 {
			width = rest
		}
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
