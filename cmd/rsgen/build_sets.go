package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/storage/stage"
	"github.com/rsgen/rsgen/templates"
)

// A siteFile is the configuration file of --config (generator.ReadSite),
// or none (Path ""), with the command line, which overrides its keys.
type siteFile struct {
	*generator.SiteFile
	line          generator.Config // of the command line (lineConfig)
	onCommandLine map[string]bool  // the keys the command line gives
	named         []string         // the keys a hint named (name), to say where they go
}

// commandOnly are build's flags that the file does not take.
var commandOnly = []string{flagConfig, flagRemoveSet, flagQuiet, flagTimeout, flagDryRun, flagVerbose}

const fileHint = "see docs/SETS.md, or 'rsgen init' for a file to start from"

// runSite is rsgen build --config FILE.
func runSite(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErr("each set's source is in the file", "the argument %q with --%s: each set's source is in the file", c.Args().First(), flagConfig)
	}
	sf, err := generator.ReadSite(c.String(flagConfig), commandOnly...)
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return usageErr("give the path of a configuration file; 'rsgen init' writes one", "--%s: %v", flagConfig, err)
	} else if err != nil {
		return usageErr(fileHint, "%v", err)
	}
	f := &siteFile{SiteFile: sf}
	if len(f.Sets) == 0 {
		return f.build(c)
	}
	var allowed []string // the flags --config takes: the site's keys that are flags, and commandOnly
	for _, fl := range c.Command.Flags {
		if k := fl.Names()[0]; f.SiteKey(k) || k == flagOnError || slices.Contains(commandOnly[1:], k) {
			allowed = append(allowed, "--"+k)
		}
	}
	for _, fl := range c.Command.Flags {
		if name := fl.Names()[0]; c.IsSet(name) && name != flagConfig && !slices.Contains(allowed, "--"+name) && envOnly(c, fl) == "" {
			return usageErr("give it in the file: at its top for every set, or in a [[set]]; on the command line, --config takes "+
				strings.Join(allowed[:len(allowed)-1], ", ")+" and "+allowed[len(allowed)-1],
				"--%s with --%s", name, flagConfig)
		}
	}
	return f.build(c)
}

// build builds the sets of f, the one of a file without [[set]]s (or of
// the command line alone) by generator.Build, and reports.
func (f *siteFile) build(c *cli.Context) error {
	if len(f.Sets) == 0 && c.IsSet(flagRemoveSet) {
		return usageErr("a file of one set publishes that set", "--%s with %s, which has no [[%s]]", flagRemoveSet, f.Path, keySet)
	}
	sets, templates, err := f.configs(c)
	if err != nil {
		return err
	}
	stderr, quiet := c.App.ErrWriter, c.Bool(flagQuiet)
	notice := noticer(stderr, quiet)
	f.noticeEnv(c, notice)
	fail := func(ctx context.Context, err error) error { return f.failure(c, ctx, sets, err) }
	if len(f.Sets) > 0 {
		site := generator.Site{Sets: slices.Clone(sets), Templates: templates, RemoveSets: c.StringSlice(flagRemoveSet), Describedby: f.Top.Config.Describedby,
			Out: sets[0].Out, DocsURL: sets[0].DocsURL, Hosts: sets[0].Hosts, // the site's keys, in every set's
			DryRun: c.Bool(flagDryRun), Stats: new(report.Stats), Notice: notice}
		for i := range site.Sets {
			site.Sets[i].Hosts, site.Sets[i].Changed = nil, changeLister(c)
		}
		rep, err := runBuilder(c, site.Stats, func(ctx context.Context) (*generator.SiteReport, error) { return generator.BuildSite(ctx, site) }, fail)
		if err != nil {
			return err
		}
		return f.report(stderr, site, rep, quiet)
	}
	cfg := sets[0]
	cfg.Templates, cfg.Stats, cfg.Notice = templates, new(report.Stats), notice
	cfg.DryRun, cfg.Changed = c.Bool(flagDryRun), changeLister(c)
	if !quiet && !cfg.BaseURL.IsZero() && cfg.BaseURL.HasPath() && cfg.DocsURL.IsZero() {
		name := "--" + flagBaseURL
		if line := f.Top.Keys[flagBaseURL]; line > 0 && !f.given(flagBaseURL) {
			name = fmt.Sprintf("%s:%d: %s", f.Path, line, flagBaseURL)
		}
		fmt.Fprintf(stderr, "rsgen: warning: %s %s has a path, so the Source Description is not at the root of the host; give Destinations its URL: %s%s\n",
			name, cfg.BaseURL, cfg.BaseURL, stage.WellKnownFile)
	}
	rep, err := runBuilder(c, cfg.Stats, func(ctx context.Context) (*generator.Report, error) { return generator.Build(ctx, cfg) }, fail)
	if err != nil {
		return err
	}
	return reportOne(stderr, cfg, rep, quiet)
}

// envOnly is the environment variable that gives fl its value, if the
// command line does not, else "": CI gives $RSGEN_BASE_URL and the like
// to every build, which the file overrides.
func envOnly(c *cli.Context, fl cli.Flag) string {
	if onCommandLine(c, fl.Names()[0]) {
		return ""
	}
	for _, e := range fl.(cli.DocGenerationFlag).GetEnvVars() {
		if _, ok := os.LookupEnv(e); ok && fl.IsSet() {
			return e
		}
	}
	return ""
}

// noticeEnv says which environment variables of build's flags the file
// does not take (those of a set's keys) and which override a key of its
// top (those of the site's keys, as their flags do).
func (f *siteFile) noticeEnv(c *cli.Context, notice func(string)) {
	for _, fl := range c.Command.Flags {
		switch name, e := fl.Names()[0], envOnly(c, fl); {
		case e == "" || os.Getenv(e) == "":
		case f.Sets != nil && !f.SiteKey(name):
			notice(fmt.Sprintf("$%s is not read with --%s: give %s in %s", e, flagConfig, name, f.Path))
		case f.Top.Keys[name] > 0:
			notice(fmt.Sprintf("$%s overrides %s of %s, as --%s would", e, name, f.Path, name))
		}
	}
}

// given reports whether the command line gives the key k: any key for a
// file of one set, a key of the whole site for a file of sets.
func (f *siteFile) given(k string) bool {
	return f.onCommandLine[k] && (len(f.Sets) == 0 || f.SiteKey(k))
}

// configs are the Configs of the file's Tables, with the flags of c, and
// the templates of the key templates, or nil.
func (f *siteFile) configs(c *cli.Context) (sets []generator.Config, fsys fs.FS, err error) {
	f.line, f.onCommandLine, err = lineConfig(c)
	var ee *exitError // an error of a flag that overrides no key is the command line's
	if errors.As(err, &ee) && (ee.flag == "" || ee.flag == flagOnError || ee.flag == flagArchive || f.given(ee.flag)) {
		return nil, nil, err
	}
	for _, t := range f.Tables() {
		cfg, err := f.config(t)
		if err != nil {
			return nil, nil, err
		}
		sets = append(sets, cfg)
	}
	if f.Templates == "" {
		return sets, nil, nil
	}
	if fsys, err = templates.Overlay(f.Templates); err != nil {
		return nil, nil, usageErr(fileHint, "%s%s: %v", f.place(&f.Top, flagTemplates), flagTemplates, err)
	}
	return sets, fsys, nil
}

// config is the Config of the table t: each key from the command line if
// t takes it from the site (SiteFile.Inherits), else t's, else the flag's
// default.
func (f *siteFile) config(t *generator.SiteTable) (generator.Config, error) {
	cfg := generator.Config{Jobs: hashing.DefaultWorkers(), Hashes: slices.Clone(hashing.DefaultSet)}
	_ = cfg.Changes.Keep.UnmarshalText([]byte(defaultChangesKeep))
	fromLine := func(k string) bool { return f.given(k) && f.Inherits(t, k) }
	own := func(k string) bool { _, ok := t.Keys[k]; return ok }
	for _, k := range configTable().Keys {
		switch {
		case fromLine(k):
			configTable().Copy(&cfg, &f.line, k)
		case own(k):
			configTable().Copy(&cfg, t.Config, k)
		}
	}
	if len(f.Sets) == 0 && f.line.SkipBadRecords && cfg.Export != "" { // --on-error=skip
		cfg.SkipBadRecords = true
	}
	given := func(k string) bool { return fromLine(k) || own(k) }
	var err error
	if given(flagAt) {
		cfg.At, cfg.FixedTime = cfg.At.UTC(), true
	} else if cfg.At, cfg.FixedTime, err = snapshotTime(""); err != nil {
		return cfg, err
	}
	if err := finish(&cfg, given); err != nil { // host: a key of the site, at the top
		return cfg, usageErr(fileHint, "%s%s: %v", f.place(&f.Top, flagHost), flagHost, err)
	}
	return cfg, nil
}

// name names a flag of build (or argSource) in a hint: as the command
// line does without a file or where it gives the flag, else as the key.
func (f *siteFile) name(flag string) string {
	switch {
	case f.Path == "" || slices.Contains(commandOnly, flag) || f.given(strings.Fields(flag)[0]):
		return cliName(flag)
	case flag == argSource:
		return keySource
	}
	f.named = append(f.named, flag)
	return flag
}

// failure is the failure to report for err, of Build or BuildSite.
func (f *siteFile) failure(c *cli.Context, ctx context.Context, sets []generator.Config, err error) error {
	if sre := buildError(err); sre.Kind == generator.KindSetRemoved {
		args := make([]string, len(sre.Sets))
		for i, s := range sre.Sets {
			args[i] = "--" + flagRemoveSet + " " + s
		}
		return failure(err, "if that is what you want, say so: "+strings.Join(args, " ")+"; else add the set back to "+f.Path)
	}
	if fields := generator.FieldErrors(err); len(fields) > 0 { // of Config.Validate or Site.Validate
		msgs := make([]string, len(fields))
		for i, fe := range fields {
			msgs[i] = f.describe(fe, c.String(flagAt) != "")
		}
		switch {
		case f.Path != "":
			return usageErr("see docs/SETS.md", "%s", strings.Join(msgs, "; "))
		case fields[0].With == "" && fieldHints[fields[0].Field] != "":
			return usageErr(fieldHints[fields[0].Field], "%s", strings.Join(msgs, "; "))
		}
		return usageErr("see 'rsgen build --help'", "%s", strings.Join(msgs, "; "))
	}
	cfg, t, set := sets[0], &f.Top, buildError(err).Set
	if i := slices.IndexFunc(sets, func(s generator.Config) bool { return s.Set == set }); set != "" && i >= 0 {
		cfg, t = sets[i], f.Tables()[i]
	}
	f.named = nil
	ferr := f.buildFailure(c, ctx, cfg, err, c.String(flagAt) != "" || f.Top.Keys[flagAt] > 0)
	if ee := (*exitError)(nil); errors.As(ferr, &ee) {
		if ee.err == err {
			ee.err = f.at(err, t)
		}
		if ee.hint != "" && len(f.named) > 0 { // where the keys the hint names go
			if set != "" && !slices.ContainsFunc(f.named, f.SiteKey) {
				ee.hint += fmt.Sprintf(" (keys in the set %q of %s)", set, f.Path)
			} else {
				ee.hint += " (keys at the top of " + f.Path + ")"
			}
		}
	}
	return ferr
}

// at is err, of the build of the set of t or of the site, at the line of
// the key whose value it is about: "rsgen.toml:12: set "articles": source
// public/articles: no such directory"; a flag's value has no line.
func (f *siteFile) at(err error, t *generator.SiteTable) error {
	key, se := "", buildError(err)
	switch {
	case se.Kind == generator.KindSource:
		key = keySource
	case se.Kind == generator.KindOutput:
		key = flagOut
	case errors.Is(err, previous.ErrUnreachable):
		key = flagPrevious
	}
	if key == "" || f.Path == "" || f.given(key) {
		return err
	}
	if se.Set != "" {
		err = se.Err // named by place
	}
	return fmt.Errorf("%s%w", f.place(t, key), err)
}

// place begins a message about the key k of the table t: "FILE:LINE: "
// (of t's header if t lacks k), then "set NAME: " in a [[set]].
func (f *siteFile) place(t *generator.SiteTable, k string) string {
	p := fmt.Sprintf("%s:%d: ", f.Path, cmp.Or(t.Keys[k], t.Line))
	if t != &f.Top && t.Config.Set != "" {
		p += fmt.Sprintf("set %q: ", t.Config.Set)
	}
	return p
}

// field is the set (-1 for the site), the table and the key of a field
// of a FieldError of Site.Validate: "Sets[i].Field", or a field of the Site.
func (f *siteFile) field(field string) (set int, t *generator.SiteTable, key string) {
	var sub string
	if _, err := fmt.Sscanf(field, "Sets[%d].%s", &set, &sub); err == nil {
		return set, &f.Sets[set], cmp.Or(keyOf(sub), sub)
	}
	return -1, &f.Top, cmp.Or(keyOf(field), field)
}

// describe renders fe with the file's keys, at the line of its field (a
// field of another set named with its set), or with the flags given (all
// without a file); at says --at gave the snapshot time.
func (f *siteFile) describe(fe *generator.FieldError, at bool) string {
	subject, t, k := f.field(fe.Field)
	msg := fe.Describe(func(field string) string {
		set, t, k := f.field(field)
		switch {
		case field == "RemoveSets":
			return "--" + flagRemoveSet
		case field == "Sets":
			return "[[" + keySet + "]]"
		case f.Path == "" && field == "At" && !at:
			return "$" + envSourceDateEpoch // the snapshot time came from it
		case f.Path == "" && field == "Source":
			return "the " + argSource
		case f.Path == "" || f.given(k):
			return cliName(k)
		case set >= 0 && set != subject:
			return fmt.Sprintf("%s of set %q (line %d)", k, t.Config.Set, cmp.Or(t.Keys[k], t.Line))
		}
		return k
	})
	if f.Path == "" || fe.Field == "RemoveSets" || f.given(k) {
		return msg
	}
	return f.place(t, k) + msg
}
