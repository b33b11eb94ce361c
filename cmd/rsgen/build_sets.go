package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/internal/confined"
	"github.com/rsgen/rsgen/internal/previous"
	"github.com/rsgen/rsgen/internal/units"
)

// setsFlags build several resource sets from a configuration file.
func setsFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagConfig, Usage: "build the resource sets of the configuration `FILE` together, in place of SOURCE (docs/SETS.md; 'rsgen init' writes one)"},
		&cli.StringSliceFlag{Name: flagRemoveSet, Usage: "with --config: stop publishing the set `NAME` that --previous published, and its change history (. names the one set of a build without sets)"},
	}
}

// runSite is rsgen build --config FILE.
func runSite(c *cli.Context) error {
	path := c.String(flagConfig)
	if c.NArg() > 0 {
		return usageErr("each set's source is in the file", "the argument %q with --%s: each set's source is in the file", c.Args().First(), flagConfig)
	}
	f, err := readSiteFile(path)
	if err != nil {
		return err
	}
	if len(f.sets) == 0 {
		return f.buildOne(c)
	}
	var allowed []string // the flags --config takes: the site's keys that are flags, and commandOnly
	for _, k := range append(append(slices.Clone(siteKeys), flagOnError), commandOnly[1:]...) {
		if _, ok := fileOnly[k]; !ok && k != flagFailFast {
			allowed = append(allowed, "--"+k)
		}
	}
	for _, fl := range c.Command.Flags {
		if name := fl.Names()[0]; c.IsSet(name) && name != flagConfig && !slices.Contains(allowed, "--"+name) && !envOnly(c, name) {
			return usageErr("give it in the file: at its top for every set, or in a [[set]]; on the command line, --config takes "+
				strings.Join(allowed[:len(allowed)-1], ", ")+" and "+allowed[len(allowed)-1],
				"--%s with --%s", name, flagConfig)
		}
	}
	site, err := f.site(c)
	if err != nil {
		return err
	}
	stderr := c.App.ErrWriter
	quiet := c.Bool(flagQuiet)
	site.Stats, site.Notice = new(report.Stats), noticer(stderr, quiet)
	site.DryRun = c.Bool(flagDryRun)
	for i := range site.Sets {
		site.Sets[i].Changed = changeLister(c)
	}
	for _, msg := range f.envNotices(c) {
		site.Notice(msg)
	}
	ctx, cancel, err := buildContext(c)
	if err != nil {
		return err
	}
	defer cancel()
	stopProgress := startProgress(stderr, site.Stats, quiet, false)
	rep, err := generator.BuildSite(ctx, site)
	stopProgress(err != nil)
	if err != nil {
		return f.failure(c, ctx, site, err)
	}
	var problems []report.Problem
	for i, r := range rep.Sets {
		for _, p := range r.Problems {
			fmt.Fprintf(stderr, "rsgen: skipped: set %s: %s\n", site.Sets[i].Set, p.Error())
		}
		problems = append(problems, r.Problems...)
		if quiet {
			continue
		}
		if site.DryRun {
			printDryRun(stderr, site.Sets[i].Set, r)
			continue
		}
		fmt.Fprintf(stderr, "rsgen: set %s: published %s (%s) in %s\n", site.Sets[i].Set,
			units.Count(r.Files, "file"), units.FormatSize(r.Bytes), units.Count(r.Documents, "document"))
		if r.Changes != nil {
			printChanges(stderr, "rsgen: set "+site.Sets[i].Set+": ", r)
		}
	}
	if !quiet && site.DryRun {
		printDryRunEnd(stderr, site.Out)
	} else if !quiet {
		fmt.Fprintf(stderr, "rsgen: published %s in %s to %s in %s\n", units.Count(len(rep.Sets), "set"),
			units.Count(rep.Documents, "document"), site.Out, rep.Elapsed.Round(time.Millisecond))
	}
	if len(problems) > 0 {
		return &exitError{code: exitPartial, err: errors.New(partialSummary(problems)),
			hint: "fix or exclude them in " + path + "; fail-fast makes this a failure"}
	}
	return nil
}

// buildOne builds the one set of a file without [[set]]s, whose keys are
// at its top, as rsgen build does with the same flags; the command line
// overrides the file.
func (f *siteFile) buildOne(c *cli.Context) error {
	if c.IsSet(flagRemoveSet) {
		return usageErr("a file of one set publishes that set", "--%s with %s, which has no [[%s]]", flagRemoveSet, f.path, keySet)
	}
	cfg, err := buildConfig(setOptions{c: lineOptions{c}, f: f, t: &f.top, flags: buildKeys(), one: true}, f.top.values[keySource].values)
	if err != nil {
		return f.inSet(c, &f.top, err)
	}
	for _, msg := range f.envNotices(c) {
		noticer(c.App.ErrWriter, c.Bool(flagQuiet))(msg)
	}
	return buildOne(c, cfg, func(ctx context.Context, err error) error {
		return f.failure(c, ctx, generator.Site{Sets: []generator.Config{cfg}}, err)
	})
}

// envOnly reports whether the flag name of c has the value of its
// environment variable, not one of the command line: the environment of
// CI gives RSGEN_BASE_URL and the like to every build, which the file
// overrides.
func envOnly(c *cli.Context, name string) bool {
	for _, fl := range c.Command.Flags {
		if fl.Names()[0] != name || !fl.IsSet() {
			continue
		}
		for _, e := range envVarsOf(fl) {
			if v, ok := os.LookupEnv(e); ok && v == c.String(name) {
				return true
			}
		}
	}
	return false
}

// envNotices say which environment variables of build's flags the file
// does not take (those of a set's keys) and which override a key of its
// top level (those of the site's keys, as their flags do).
func (f *siteFile) envNotices(c *cli.Context) []string {
	var out []string
	for _, fl := range c.Command.Flags {
		name := fl.Names()[0]
		for _, e := range envVarsOf(fl) {
			v, ok := os.LookupEnv(e)
			switch {
			case !ok || v == "" || !envOnly(c, name):
			case f.sets != nil && !slices.Contains(siteKeys, name):
				out = append(out, fmt.Sprintf("$%s is not read with --%s: give %s in %s", e, flagConfig, name, f.path))
			case f.top.values[name].values != nil:
				out = append(out, fmt.Sprintf("$%s overrides %s of %s, as --%s would", e, name, f.path, name))
			}
		}
	}
	return out
}

// given reports whether the key k of the whole site was given on the
// command line, as its flag: once for every set (urfave/cli's IsSet looks
// through every flag, with a regular expression each).
func (f *siteFile) given(c *cli.Context, k string) bool {
	if len(f.sets) == 0 { // a file of one set: every flag overrides its key
		return lineOptions{c}.IsSet(k)
	}
	if f.onCommandLine == nil {
		f.onCommandLine = map[string]bool{}
		for _, s := range siteKeys {
			f.onCommandLine[s] = lineOptions{c}.IsSet(s)
		}
	}
	return f.onCommandLine[k]
}

// site is the generator.Site of the file, with the site's flags of c.
func (f *siteFile) site(c *cli.Context) (generator.Site, error) {
	site := generator.Site{RemoveSets: c.StringSlice(flagRemoveSet)}
	flags := buildKeys() // once: build's help alone is 100 KB to make
	for i := range f.sets {
		cfg, err := f.setConfig(c, flags, &f.sets[i])
		if err != nil {
			return site, err
		}
		site.Sets = append(site.Sets, cfg)
	}
	first := site.Sets[0]
	site.Out, site.DocsURL = first.Out, first.DocsURL
	site.Hosts, site.Templates = first.Hosts, first.Templates // the site's keys, in every set's flags
	for i := range site.Sets {
		site.Sets[i].Hosts, site.Sets[i].Templates = nil, nil
	}
	site.Describedby = c.String(flagDescribedby)
	if v, ok := f.top.values[flagDescribedby]; ok && !c.IsSet(flagDescribedby) {
		site.Describedby = v.values[0]
	}
	return site, nil
}

// setConfig is the generator.Config of the set t, read by buildConfig
// from setOptions; flags are build's, by name, for their defaults.
func (f *siteFile) setConfig(c *cli.Context, flags map[string]cli.Flag, t *fileTable) (generator.Config, error) {
	_, export := t.values[flagExport]
	cfg, err := buildConfig(setOptions{c: lineOptions{c}, f: f, t: t, flags: flags, export: export}, t.values[keySource].values)
	if err != nil {
		return cfg, f.inSet(c, t, err)
	}
	cfg.Set = t.name()
	return cfg, nil
}

// setOptions are the options of the set t of the file f, first found of:
// a key of the whole site given on the command line (c), t's own key, the
// key at the top of the file, the default of the flag. A record export
// takes none of the defaults of trees (notForExport) from the top or the
// command line: it has a Change List of its own.
type setOptions struct {
	c      lineOptions
	f      *siteFile
	t      *fileTable
	flags  map[string]cli.Flag
	export bool
	one    bool // the one set of a file without [[set]]s: every flag of c overrides the file
}

// lookup returns the values of the key name, or onCommandLine if c has
// them; ok is false for the flag's default.
func (o setOptions) lookup(name string) (values []string, onCommandLine, ok bool) {
	inherited := !(o.export && slices.Contains(notForExport, name))
	if o.one && o.c.IsSet(name) || name != flagDescribedby && inherited && o.f.given(o.c.Context, name) {
		return nil, true, true
	}
	if v, ok := o.t.values[name]; ok {
		return v.values, false, true
	}
	if v, ok := o.f.top.values[name]; ok && inherited && name != flagDescribedby /* the site's own */ {
		return v.values, false, true
	}
	return nil, false, false
}

func (o setOptions) IsSet(name string) bool {
	_, _, ok := o.lookup(name)
	return ok
}

// get is the value of the key name for o: the command line's (of c),
// the file's (parsed), or def, the flag's default.
func get[T any](o setOptions, name string, c func(string) T, parsed func(v []string) T, def T) T {
	switch v, cmd, ok := o.lookup(name); {
	case cmd:
		return c(name)
	case ok:
		return parsed(v)
	}
	return def
}

func (o setOptions) StringSlice(name string) []string {
	var def []string
	if fl, ok := o.flags[name].(*cli.StringSliceFlag); ok && fl.Value != nil {
		def = fl.Value.Value()
	}
	return get(o, name, o.c.StringSlice, func(v []string) []string { return v }, def)
}

func (o setOptions) String(name string) string {
	fl, _ := o.flags[name].(*cli.StringFlag)
	return get(o, name, o.c.String, func(v []string) string { return v[0] }, cmp.Or(fl, &cli.StringFlag{}).Value)
}

func (o setOptions) Bool(name string) bool {
	fl, _ := o.flags[name].(*cli.BoolFlag)
	return get(o, name, o.c.Bool, func(v []string) bool { return v[0] == "true" }, cmp.Or(fl, &cli.BoolFlag{}).Value)
}

func (o setOptions) Int(name string) int {
	fl, _ := o.flags[name].(*cli.IntFlag)
	return get(o, name, o.c.Int, func(v []string) int {
		n, _ := strconv.Atoi(v[0]) // checked as the file is read
		return n
	}, cmp.Or(fl, &cli.IntFlag{}).Value)
}

func (o setOptions) Duration(name string) time.Duration {
	fl, _ := o.flags[name].(*cli.DurationFlag)
	return get(o, name, o.c.Duration, func(v []string) time.Duration {
		d, _ := time.ParseDuration(v[0]) // checked as the file is read
		return d
	}, cmp.Or(fl, &cli.DurationFlag{}).Value)
}

// inSet turns err, an error of buildConfig for the set t, into one that
// names the file, the line of the key it is about, the set and the key for
// the flag (a flag of the command line stays a flag).
func (f *siteFile) inSet(c *cli.Context, t *fileTable, err error) error {
	var ee *exitError
	if !errors.As(err, &ee) {
		return err
	}
	line, msg, ofSite := t.line, ee.err.Error(), false
	if k := ee.flag; k != "" {
		if f.given(c, k) {
			return err // no place in the file
		}
		v, ok := t.values[k]
		if !ok {
			v, ok = f.top.values[k]
			ofSite = ok && slices.Contains(siteKeys, k)
		}
		if ok {
			line = v.line
		}
		msg = k + ee.rest
	}
	if ofSite || t == &f.top { // a key of the whole site, at the top of the file
		return f.errorAt(line, "%s", msg)
	}
	return f.errorAt(line, "set %q: %s", t.name(), msg)
}

// namer names the flags of a hint about the set named set ("" for the
// whole site) as keys of the file, but those of the command line only;
// where is the end of the hint then: where those keys are.
func (f *siteFile) namer(set string) (n namer, where func() string) {
	keys, ofSite := 0, true
	n = func(flag string) string {
		switch {
		case flag == argSource:
			return keySource
		case slices.Contains(commandOnly, flag):
			return "--" + flag
		}
		keys++
		ofSite = ofSite && slices.Contains(siteKeys, flag)
		return flag
	}
	where = func() string {
		switch {
		case keys == 0:
			return ""
		case set != "" && !ofSite:
			return fmt.Sprintf(" (keys in the set %q of %s)", set, f.path)
		}
		return " (keys at the top of " + f.path + ")"
	}
	return n, where
}

// failure is the failure to report for err, of BuildSite.
func (f *siteFile) failure(c *cli.Context, ctx context.Context, site generator.Site, err error) error {
	if c.Context.Err() != nil { // interrupted, whatever the build was doing then
		return buildFailure(c, ctx, site.Sets[0], err, cliName)
	}
	if sre := buildError(err); sre.Kind == generator.KindSetRemoved {
		args := make([]string, len(sre.Sets))
		for i, s := range sre.Sets {
			args[i] = "--" + flagRemoveSet + " " + s
		}
		return failure(err, "if that is what you want, say so: "+strings.Join(args, " ")+"; else add the set back to "+f.path)
	}
	if fields := generator.FieldErrors(err); len(fields) > 0 {
		msgs := make([]string, len(fields))
		for i, fe := range fields {
			msgs[i] = f.describe(c, fe)
		}
		return usageErr("see docs/SETS.md", "%s", strings.Join(msgs, "; "))
	}
	cfg := site.Sets[0]
	set := ""
	if se := buildError(err); se.Set != "" {
		set = se.Set
		for _, s := range site.Sets {
			if s.Set == se.Set {
				cfg = s
			}
		}
	}
	n, where := f.namer(set)
	ferr := buildFailure(c, ctx, cfg, err, n)
	var ee *exitError
	if errors.As(ferr, &ee) {
		if ee.hint != "" {
			ee.hint += where()
		}
		if ee.err == err {
			ee.err = f.at(c, err)
		}
	}
	return ferr
}

// valueKey names the key of the file whose value err, an error of a
// build, is about, by its kind, or is "": the value is checked as the
// build uses it, after the file is read.
func valueKey(err error) string {
	switch {
	case buildError(err).Kind == generator.KindSource:
		return keySource
	case buildError(err).Kind == generator.KindOutput:
		return flagOut
	case errors.Is(err, previous.ErrUnreachable):
		return flagPrevious
	}
	return ""
}

// at is err, of the build of a set or of the site, at the line of the key
// whose value it is about, as an error of reading the file
// is: "rsgen.toml:12: set "articles": source public/articles: no such
// directory". A value given on the command line has no place in the file.
func (f *siteFile) at(c *cli.Context, err error) error {
	key := valueKey(err)
	if key == "" || f.given(c, key) {
		return err
	}
	v, ok := f.top.values[key]
	if se := buildError(err); se.Set != "" {
		for i := range f.sets {
			if w, own := f.sets[i].values[key]; own && f.sets[i].name() == se.Set {
				v, ok = w, true
			}
		}
		err = fmt.Errorf("set %q: %w", se.Set, se.Err)
	}
	if !ok {
		return err
	}
	return fmt.Errorf("%s:%d: %w", f.path, v.line, err)
}

// setField splits the field of a set in a FieldError of Site.Validate,
// "Sets[i].Field", into i and Field; ok is false for a field of the Site.
func setField(field string) (i int, sub string, ok bool) {
	index, sub, ok := strings.Cut(strings.TrimPrefix(field, "Sets["), "].")
	if !ok || !strings.HasPrefix(field, "Sets[") {
		return 0, "", false
	}
	i, err := strconv.Atoi(index)
	return i, sub, err == nil
}

// describe renders fe with the file's keys, at the line of its field; a
// field of another set than fe's is named with its set. An error about a
// flag of the command line names the flag, and no place in the file.
func (f *siteFile) describe(c *cli.Context, fe *generator.FieldError) string {
	line, subject := 1, -1
	first, flagged := true, false
	name := func(field string) string {
		switch field {
		case "RemoveSets":
			flagged = flagged || first
			first = false
			return "--" + flagRemoveSet
		case "Sets":
			return "[[" + keySet + "]]"
		}
		t, set, k := &f.top, -1, cmp.Or(keyOf(field), field)
		if i, sub, ok := setField(field); ok {
			set, t = i, &f.sets[i]
			switch sub {
			case "Set":
				k = keyName
			case "Source":
				k = keySource
			default:
				k = cmp.Or(keyOf(sub), sub)
			}
		}
		subjectField := first
		first = false
		if subjectField {
			subject = set
			line = t.line
		}
		if f.given(c, k) {
			flagged = flagged || subjectField
			return "--" + k
		}
		v, ok := t.values[k]
		if !ok {
			v, ok = f.top.values[k]
		}
		if subjectField && ok {
			line = v.line
		}
		if set != subject && set >= 0 {
			return fmt.Sprintf("%s of set %q (line %d)", k, t.name(), cmp.Or(v.line, t.line))
		}
		return k
	}
	msg := fe.Describe(name)
	switch {
	case flagged:
		return msg
	case subject >= 0:
		return fmt.Sprintf("%s:%d: set %q: %s", f.path, line, f.sets[subject].name(), msg)
	}
	return fmt.Sprintf("%s:%d: %s", f.path, line, msg)
}

// envVarsOf returns the environment variables of fl.
func envVarsOf(fl cli.Flag) []string {
	if e, ok := fl.(interface{ GetEnvVars() []string }); ok {
		return e.GetEnvVars()
	}
	return nil
}

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
