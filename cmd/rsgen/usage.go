package main

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
)

// parseError turns an error of the parser of the command line (Go's flag
// package, through urfave/cli) into a usage error in rsgen's words: the
// flag as it is written (--jobs), what is wrong with its value, and the
// flag meant by a misspelt one. cmd is nil for the flags of rsgen itself.
func parseError(cmd *cli.Command, flags []cli.Flag, err error) error {
	help := "see 'rsgen --help'"
	if cmd != nil {
		help = "see 'rsgen " + cmd.Name + " --help'"
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		if err := removedFlag(cmd, strings.TrimLeft(name, "-")); err != nil {
			return err
		}
		if s := suggestFlag(cmd, flags, name); s != "" {
			help = s + " " + help
		}
		return usageErr(help, "unknown flag %s", dashed(name))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return usageErr(help, "%s needs a value", dashed(name))
	}
	m := badValue.FindStringSubmatch(msg)
	if m == nil {
		return usageErr(help, "%s", msg)
	}
	value, _ := strconv.Unquote(m[2])
	if m[1] != "" {
		return usageErr(help, "%s=%s: give true or false, or leave the value out for true", dashed(m[3]), value)
	}
	i := slices.IndexFunc(flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), m[3]) })
	problem := m[4]
	switch {
	case problem == "value out of range":
		problem = "out of range"
	case i >= 0:
		switch flags[i].(type) {
		case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag:
			problem = "not a number"
		case *cli.DurationFlag:
			problem = "not a duration, such as 90s, 30m or 2h"
		}
	}
	return usageErr(help, "%s %s: %s", dashed(m[3]), value, problem)
}

// badValue matches the errors of Go's flag package about a value.
var badValue = regexp.MustCompile(`^invalid (boolean )?value (".*") for (?:flag )?-([^:\s]+): (.*)$`)

// removedFlag is the error of a flag that rsgen build no longer has (its
// key of the configuration file, or the flag that replaces it, names it;
// CHANGELOG.md), or nil.
func removedFlag(cmd *cli.Command, name string) error {
	switch {
	case cmd == nil || cmd.Name != "build" || !fileOnly(name):
		return nil
	case name == flagFailFast || name == flagSkipBadRecords:
		return usageErr("give "+cliName(name), "--%s is no longer a flag", name)
	case name == flagArchiveKeep || name == flagArchiveResourceLists || name == flagArchiveResourceDumps:
		return usageErr("give --"+flagArchive+" KEEP[,lists=EVERY][,dumps=EVERY]", "--%s is no longer a flag", name)
	}
	return usageErr("give "+name+" in the configuration file of --"+flagConfig+" (a file with its source = \"DIR\" at the top builds one set; docs/SETS.md)",
		"--%s is no longer a flag: it is a key of the configuration file", name)
}

// dashed writes a flag's name the way rsgen's help does: -o, --out.
func dashed(name string) string {
	if utf8.RuneCountInString(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// synonyms are what other tools (Hugo, rsync, wget, restic…) call some
// of rsgen's flags, written as fold gives them, by the flag each means;
// sourceSynonyms, the flags they take for what is SOURCE to rsgen.
var (
	synonyms = map[string][]string{
		flagOut:     {"o", "output", "outdir", "outputdir", "dest", "destination"},
		flagBaseURL: {"url", "baseuri", "siteurl"},
		flagJobs:    {"j", "threads", "workers", "parallel", "concurrency"},
		flagDryRun:  {"n", "simulate", "whatif"},
		flagQuiet:   {"silent"},
		flagAt:      {"time", "date", "timestamp"},
	}
	sourceSynonyms = []string{"source", "src", "input", "in", "dir", "root"}
)

// suggestFlag returns what to say of the unknown flag typed (without its
// dashes) of cmd (nil for rsgen itself), whose flags are flags: the flag
// meant, by the name another tool gives it (--output) or by closest; that
// SOURCE is an argument (--source); or "".
func suggestFlag(cmd *cli.Command, flags []cli.Flag, typed string) string {
	names := []string{"help"}
	for _, f := range flags {
		names = append(names, f.Names()...)
	}
	for flag, other := range synonyms {
		if slices.Contains(other, fold(typed)) && slices.Contains(names, flag) {
			return "did you mean " + dashed(flag) + "?"
		}
	}
	if cmd != nil && strings.HasPrefix(cmd.ArgsUsage, "SOURCE") && slices.Contains(sourceSynonyms, fold(typed)) {
		return "SOURCE is an argument, not a flag: rsgen " + cmd.Name + " public, not rsgen " + cmd.Name + " --" + typed + " public;"
	}
	if s := closest(typed, names); s != "" {
		return "did you mean " + dashed(s) + "?"
	}
	return ""
}

// fold writes a flag's name as its spellings share it: lower case,
// without - or _ (baseURL, base_url and base-url are all baseurl).
func fold(name string) string {
	return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(name))
}

// closest returns the one of names that typed most likely means, or ""
// if none is close: the same name in another case or spelling (baseURL,
// base_url for base-url), else one at most two edits away (a third of a
// long name), or a name it begins. A single letter is close to nothing:
// it is two edits from every name of two.
func closest(typed string, names []string) string {
	if utf8.RuneCountInString(typed) < 2 {
		return ""
	}
	for _, n := range names {
		if len(n) > 1 && fold(n) == fold(typed) {
			return n
		}
	}
	typed = strings.ToLower(typed)
	best, bestD := "", max(2, utf8.RuneCountInString(typed)/3)+1
	for _, n := range names {
		if len(n) < 2 {
			continue
		}
		d := editDistance([]rune(typed), []rune(n))
		if len(typed) >= 3 && strings.HasPrefix(n, typed) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b []rune) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// unknownCommand is the error of a first argument that names no command.
func unknownCommand(app *cli.App, name string) error {
	var names []string
	for _, c := range app.Commands {
		names = append(names, c.Names()...)
	}
	hint := "see 'rsgen --help' for the commands"
	if s := closest(name, names); s != "" {
		hint = "did you mean 'rsgen " + s + "'? " + hint
	}
	return usageErr(hint, "unknown command %q", name)
}

// showHelp runs "rsgen help [COMMAND]": the help of rsgen, or of COMMAND.
func showHelp(c *cli.Context) error {
	switch name := c.Args().Get(1); {
	case c.NArg() > 2:
		return usageErr("run 'rsgen help COMMAND'", "too many arguments: %s", strings.Join(c.Args().Slice(), " "))
	case name == "":
		return cli.ShowAppHelp(c)
	case c.App.Command(name) == nil:
		return unknownCommand(c.App, name)
	default:
		return cli.ShowCommandHelp(c, name)
	}
}
