package main

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
	"github.com/urfave/cli/v2"

	"github.com/rsgen/rsgen/internal/display"
	"github.com/rsgen/rsgen/internal/regfile"
)

// The configuration file of rsgen build --config (docs/SETS.md): TOML,
// whose keys are the long names of build's flags, with the same values.
// Its top level holds what applies to the whole site (siteKeys) and the
// defaults of every set; each [[set]] table holds one set: its name, its
// source and its own options.

// Keys of the file that are not flags.
const (
	keyName   = "name"   // of a set
	keySource = "source" // of a set: build's SOURCE
	keySet    = "set"    // the array of tables of the sets
)

// siteKeys apply to the whole site: at the top of the file only, and
// overridden by the same flags on the command line.
var siteKeys = []string{flagOut, flagDocsURL, flagDescribedby, flagPrevious, flagFirstBuildOK, flagNewHistory, flagFetchTimeout, flagAt, flagJobs, flagFailFast, flagHost, flagTemplates, flagHub}

// commandOnly are build's flags that the file does not take: how this run
// behaves, or what a build without sets only does.
var commandOnly = []string{flagConfig, flagRemoveSet, flagQuiet, flagTimeout, flagDryRun, flagVerbose}

// notForExport are the keys of the top level that a set of a record
// export does not take from it: the export has a Change List of its own.
var notForExport = []string{flagPrevious, flagFirstBuildOK, flagNewHistory, flagFetchTimeout, flagChangeDump, flagCache,
	flagArchiveKeep, flagArchiveResourceLists, flagArchiveResourceDumps, flagInclude, flagExclude, flagHidden, flagFollowSymlinks}

// pathKeys are resolved against the directory of the file.
var pathKeys = []string{keySource, flagOut, flagExport, flagCache, flagPrevious, flagTemplates}

// maxSiteFile bounds the size of a configuration file.
const maxSiteFile = 1 << 20

// A siteFile is a configuration file read.
type siteFile struct {
	path    string
	top     fileTable
	sets    []fileTable
	hasSets bool // the file has [[set]]s; without, its top is the one set

	onCommandLine map[string]bool // the site's keys given as flags (given)
}

// A fileTable is the top level or one [[set]] of the file.
type fileTable struct {
	line   int // of its header; 1 for the top level
	values map[string]fileValue
}

// A fileValue is one key of a table: its value as flag values (several for
// a list), and its line.
type fileValue struct {
	line   int
	values []string
}

// name is the set's name, or "" if it has none.
func (t *fileTable) name() string {
	if v, ok := t.values[keyName]; ok {
		return v.values[0]
	}
	return ""
}

// errorAt is a usage error at line of the file.
func (f *siteFile) errorAt(line int, format string, args ...any) error {
	return usageErr("see docs/SETS.md, or 'rsgen init' for a file to start from", "%s:%d: %s", f.path, line, fmt.Sprintf(format, args...))
}

// readSiteFile reads and checks the configuration file at path against
// the flags of build.
func readSiteFile(path string) (*siteFile, error) {
	fd, _, err := regfile.Open(path) // never waits on a FIFO
	if err != nil {
		return nil, usageErr("give the path of a configuration file; 'rsgen init' writes one", "--%s: %v", flagConfig, err)
	}
	data, err := io.ReadAll(io.LimitReader(fd, maxSiteFile+1))
	fd.Close()
	if err != nil {
		return nil, usageErr("", "--%s: %v", flagConfig, err)
	}
	if len(data) > maxSiteFile {
		return nil, usageErr("", "--%s: %s is larger than %d bytes: not a configuration file", flagConfig, path, maxSiteFile)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a byte order mark, as some editors write
	f := &siteFile{path: path, top: fileTable{line: 1, values: map[string]fileValue{}}}
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, usageErr("the file is TOML: https://toml.io", "%s:%d:%d: %s", path, row, col, de.Error())
		}
		return nil, usageErr("the file is TOML: https://toml.io", "%s: %v", path, err)
	}
	lines, err := keyLines(data)
	if err != nil {
		return nil, usageErr("the file is TOML: https://toml.io", "%s: %v", path, err)
	}
	_, f.hasSets = doc[keySet]
	kinds := buildKeys()
	keys := make([]string, 0, len(doc))
	for k := range doc {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return lines[keys[i]] < lines[keys[j]] })
	for _, k := range keys {
		v := doc[k]
		if k == keySet {
			tables, ok := v.([]any)
			if !ok {
				return nil, f.errorAt(lines[k], "%s: give each set as a table, [[%s]]", k, keySet)
			}
			for i, t := range tables {
				m, ok := t.(map[string]any)
				if !ok {
					return nil, f.errorAt(lines[k], "%s: give each set as a table, [[%s]]", k, keySet)
				}
				prefix := fmt.Sprintf("%s[%d]", keySet, i)
				table := fileTable{line: cmp.Or(lines[prefix], lines[k]), values: map[string]fileValue{}}
				if err := f.fill(&table, m, kinds, lines, prefix+".", false); err != nil {
					return nil, err
				}
				if table.name() == "" {
					return nil, f.errorAt(table.line, "this set has no %s: give it one, such as %s = \"articles\"", keyName, keyName)
				}
				if _, ok := table.values[keySource]; !ok && table.values[flagExport].values == nil {
					return nil, f.errorAt(table.line, "set %q: give its %s (a directory or an archive) or its %s", table.name(), keySource, flagExport)
				}
				f.sets = append(f.sets, table)
			}
			continue
		}
		if err := f.fill(&f.top, map[string]any{k: v}, kinds, lines, "", true); err != nil {
			return nil, err
		}
	}
	if _, one := f.top.values[keySource]; len(f.sets) == 0 && !one && f.top.values[flagExport].values == nil {
		return nil, f.errorAt(1, "no set: give each as a table [[%s]] with its %s and %s, or one set's %s at the top", keySet, keyName, keySource, keySource)
	}
	return f, nil
}

// fill checks the keys of m, of the top level (top) or of a set, and adds
// them to t as flag values.
func (f *siteFile) fill(t *fileTable, m map[string]any, kinds map[string]cli.Flag, lines map[string]int, prefix string, top bool) error {
	for k, v := range m {
		line := cmp.Or(lines[prefix+k], t.line)
		flag, isFlag := kinds[k]
		name := display.Name(k) // any key the file gives, a line break too
		if _, table := v.(map[string]any); table && top {
			return f.errorAt(line, "%s is a table, which the file does not have: give each set as [[set]], and keys and values", name)
		} else if table {
			return f.errorAt(line, "%s is a table, which the file does not have: give keys and values", name)
		}
		switch {
		case k == keyName || k == keySource:
			if top && (k == keyName || f.hasSets) {
				return f.errorAt(line, "%s belongs in a set ([[%s]])", k, keySet)
			}
			s, ok := v.(string)
			if !ok || s == "" {
				return f.errorAt(line, "%s: give a string", k)
			}
			t.values[k] = fileValue{line: line, values: []string{f.resolve(k, s)}}
			continue
		case isFlag && slices.Contains(commandOnly, k):
			return f.errorAt(line, "%s is not taken from the file: give --%s on the command line", k, k)
		case !isFlag:
			hint := ""
			if s := closest(k, fileKeys(kinds)); s != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", s)
			}
			return f.errorAt(line, "unknown key %s%s", name, hint)
		case !top && slices.Contains(siteKeys, k) && k != flagDescribedby:
			return f.errorAt(line, "%s applies to the whole site: give it at the top of the file, before the first [[%s]]", k, keySet)
		}
		values, err := flagValues(flag, v)
		if err != nil {
			return f.errorAt(line, "%s: %v", k, err)
		}
		for i := range values {
			values[i] = f.resolve(k, values[i])
		}
		t.values[k] = fileValue{line: line, values: values}
	}
	return nil
}

// resolve makes a relative path of key k relative to the directory of the
// file, as a user reads it; a URL, "-" and absolute paths stay.
func (f *siteFile) resolve(k, v string) string {
	if !slices.Contains(pathKeys, k) || v == "-" || v == "" || filepath.IsAbs(v) || strings.Contains(v, "://") {
		return v
	}
	return filepath.Join(filepath.Dir(f.path), v)
}

// flagValues turns the TOML value v of flag into the values to set it to.
func flagValues(flag cli.Flag, v any) ([]string, error) {
	switch flag.(type) {
	case *cli.BoolFlag:
		if b, ok := v.(bool); ok {
			return []string{strconv.FormatBool(b)}, nil
		}
		return nil, errors.New("give true or false")
	case *cli.IntFlag:
		if n, ok := v.(int64); ok {
			return []string{strconv.FormatInt(n, 10)}, nil
		}
		return nil, errors.New("give a whole number")
	case *cli.DurationFlag:
		if s, ok := v.(string); ok {
			_, err := time.ParseDuration(s)
			return []string{s}, err
		}
		return nil, errors.New(`give a duration as a string, such as "30s" or "2m"`)
	case *cli.StringSliceFlag:
		switch v := v.(type) {
		case string:
			return []string{v}, nil
		case []any:
			if out, ok := stringList(v); ok {
				return out, nil
			}
		}
		return nil, errors.New("give a string or a list of strings")
	case *cli.StringFlag:
		switch v := v.(type) {
		case string:
			return []string{v}, nil
		case int64: // a size or a count: max-bytes = 1048576
			return []string{strconv.FormatInt(v, 10)}, nil
		case time.Time: // at = 2024-05-01T12:00:00Z
			return []string{v.Format(time.RFC3339Nano)}, nil
		case toml.LocalDateTime, toml.LocalDate, toml.LocalTime:
			return nil, errors.New("give a date-time with its offset, such as 2024-06-01T00:00:00Z")
		case []any: // hash = ["sha-256", "md5"]
			if out, ok := stringList(v); ok && flag.Names()[0] == flagHash {
				return []string{strings.Join(out, ",")}, nil
			}
		}
		return nil, errors.New("give a string")
	}
	return nil, fmt.Errorf("a flag of type %T", flag)
}

// stringList returns the strings of a TOML array, if it holds only strings.
func stringList(v []any) ([]string, bool) {
	out := make([]string, len(v))
	for i, e := range v {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// flagKinds maps the long name of each flag to it.
func flagKinds(flags []cli.Flag) map[string]cli.Flag {
	m := map[string]cli.Flag{}
	for _, f := range flags {
		if n := f.Names()[0]; n != "help" { // urfave/cli's own, not a key
			m[n] = f
		}
	}
	return m
}

// buildKeys maps each key of the file that is a flag of build, or one of
// fileOnlyFlags, to that flag; --on-error and --archive set keys of their
// own (lineOptions).
func buildKeys() map[string]cli.Flag {
	m := flagKinds(append(buildCommand().Flags, fileOnlyFlags()...))
	delete(m, flagOnError)
	delete(m, flagArchive)
	return m
}

// fileKeys are the keys the file takes, for suggestions.
func fileKeys(kinds map[string]cli.Flag) []string {
	keys := []string{keyName, keySource}
	for k := range kinds {
		if !slices.Contains(commandOnly, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// keyLines maps each key of the file to its line: "key" at the top,
// "set[i]" for the header of the i-th set and "set[i].key" in it.
func keyLines(data []byte) (map[string]int, error) {
	lines := map[string]int{}
	var p unstable.Parser
	p.Reset(data)
	// The line of an offset, found among the starts of the lines: the
	// parser's Shape counts them from the start of the file at each call,
	// which made a file of 8,000 sets take minutes.
	starts := []int{0}
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	lineOf := func(it unstable.Iterator) int {
		if it.Next() {
			if n := it.Node(); n.Raw.Length > 0 {
				line, found := slices.BinarySearch(starts, int(n.Raw.Offset))
				if !found {
					line-- // within the line before
				}
				return line + 1
			}
		}
		return 0
	}
	table := ""
	count := map[string]int{}
	// record gives key and each key it is in ("a.b.c": "a", "a.b") the
	// line, unless they have one.
	record := func(key string, line int) {
		for i := 0; i <= len(key); i++ {
			if i == len(key) || key[i] == '.' {
				if _, ok := lines[key[:i]]; !ok {
					lines[key[:i]] = line
				}
			}
		}
	}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			name := joinKey(e.Key())
			if e.Kind == unstable.ArrayTable {
				base := name
				name = fmt.Sprintf("%s[%d]", base, count[base])
				count[base]++
			} else if first, rest, ok := strings.Cut(name, "."); ok && count[first] > 0 {
				name = fmt.Sprintf("%s[%d].%s", first, count[first]-1, rest) // [set.x]: a table in the last [[set]]
			}
			table = name
			lines[name] = lineOf(e.Key())
			record(name, lines[name])
		case unstable.KeyValue:
			k := joinKey(e.Key())
			if table != "" {
				k = table + "." + k
			}
			record(k, lineOf(e.Key()))
		}
	}
	return lines, p.Error()
}

func joinKey(it unstable.Iterator) string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return strings.Join(parts, ".")
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
