package main

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/storage/regfile"
	"github.com/rsgen/rsgen/internal/text/display"
	"github.com/rsgen/rsgen/internal/text/units"
)

// The configuration file of rsgen build --config (docs/SETS.md): TOML,
// whose keys are the toml tags of generator.Config's fields, which are the
// long names of build's flags (configFields), decoded into a Config.
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

// maxSiteFile bounds the size of a configuration file.
const maxSiteFile = 1 << 20

// A siteFile is a configuration file read.
type siteFile struct {
	path      string
	top       fileTable
	sets      []fileTable
	templates string // the key templates, a path
	entries   []fileEntry

	line          generator.Config // of the command line (configs)
	onCommandLine map[string]bool  // the keys the command line gives
}

// A fileTable is the top level or one [[set]] of the file: the Config its
// keys give, and the line of each key.
type fileTable struct {
	line int // of its header; 1 for the top level
	keys map[string]int
	cfg  *generator.Config // decoded from its keys
}

// keyLine is the line of the key k in the table t, else at the top of the
// file; ok is false if neither gives it.
func (f *siteFile) keyLine(t *fileTable, k string) (line int, ok bool) {
	if line, ok = t.keys[k]; !ok {
		line, ok = f.top.keys[k]
	}
	return line, ok
}

// valueErrorAt is the usage error about the value of the key at line,
// naming its set if in one, as Site.Validate's errors do.
func (f *siteFile) valueErrorAt(line int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if i := slices.IndexFunc(f.entries, func(e fileEntry) bool { return e.line == line && e.key != "" }); i >= 0 && f.entries[i].set > 0 {
		set := f.entries[i].set
		if j := slices.IndexFunc(f.entries, func(e fileEntry) bool { return e.set == set && e.key == keyName }); j >= 0 {
			msg = fmt.Sprintf("set %q: %s", f.entries[j].value, msg)
		}
	}
	return f.errorAt(line, "%s", msg)
}

// errorAt is a usage error at line of the file.
func (f *siteFile) errorAt(line int, format string, args ...any) error {
	return usageErr("see docs/SETS.md, or 'rsgen init' for a file to start from", "%s:%d: %s", f.path, line, fmt.Sprintf(format, args...))
}

// fileDoc is what the file holds: the keys of generator.Config (its toml
// tags) at its top and in each [[set]], and the site's templates.
type fileDoc struct {
	generator.Config
	Templates string             `toml:"templates"`
	Sets      []generator.Config `toml:"set"`
}

// readSiteFile reads and checks the configuration file at path: its keys
// against those of build, its values by go-toml's strict decoder into a
// generator.Config per table.
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
	f := &siteFile{path: path, top: fileTable{line: 1, keys: map[string]int{}}}
	entries, err := keyLines(data)
	f.entries = entries
	if err != nil {
		var de *toml.DecodeError
		if errors.As(toml.Unmarshal(data, new(map[string]any)), &de) { // the error with its column
			row, col := de.Position()
			return nil, usageErr("the file is TOML: https://toml.io", "%s:%d:%d: %s", path, row, col, de.Error())
		}
		return nil, usageErr("the file is TOML: https://toml.io", "%s: %v", path, err)
	}
	if err := f.checkKeys(entries); err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.key == flagAt && e.kind == unstable.String && e.value == "" { // not a time.Time: its line blanked, the lines kept
			lines := bytes.SplitAfter(data, []byte("\n"))
			lines[e.line-1] = []byte("\n")
			data = bytes.Join(lines, nil)
		}
	}
	var doc fileDoc
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields().EnableUnmarshalerInterface() // max-delete = 200 (generator.DeleteLimit)
	if err := dec.Decode(&doc); err != nil {
		return nil, f.valueError(err)
	}
	f.top.cfg, f.templates = &doc.Config, f.resolve(doc.Templates)
	for i := range f.sets {
		f.sets[i].cfg = &doc.Sets[i]
	}
	tables := f.tables()
	if len(f.sets) > 0 {
		tables = append(tables, &f.top)
	}
	for _, t := range tables {
		c := t.cfg
		for _, p := range []*string{&c.Source, &c.Out, &c.Export, &c.Cache, &c.Changes.Previous, &c.Digests, &c.DigestsJob} {
			*p = f.resolve(*p)
		}
	}
	return f, nil
}

// tables are the tables of the sets: each [[set]], or the top of a file
// of one set.
func (f *siteFile) tables() []*fileTable {
	if len(f.sets) == 0 {
		return []*fileTable{&f.top}
	}
	var tables []*fileTable
	for i := range f.sets {
		tables = append(tables, &f.sets[i])
	}
	return tables
}

// checkKeys checks the keys of the file, in the order of its lines, and
// puts them in f's tables: each a key of build, in its place.
func (f *siteFile) checkKeys(entries []fileEntry) error {
	keys := fileKeys()
	hasSets := slices.ContainsFunc(entries, func(e fileEntry) bool { return e.set > 0 })
	for _, e := range entries {
		if e.set == 0 && e.key == keySet && !e.table {
			return f.errorAt(e.line, "%s: give each set as a table, [[%s]]", keySet, keySet)
		}
		if e.set > len(f.sets) {
			f.sets = append(f.sets, fileTable{line: e.line, keys: map[string]int{}})
			if e.key == "" {
				continue
			}
		}
		top := e.set == 0
		name := display.Name(e.key) // any key the file gives, a line break too
		switch {
		case e.table && top:
			return f.errorAt(e.line, "%s is a table, which the file does not have: give each set as [[set]], and keys and values", name)
		case e.table:
			return f.errorAt(e.line, "%s is a table, which the file does not have: give keys and values", name)
		case top && (e.key == keyName || e.key == keySource && hasSets):
			return f.errorAt(e.line, "%s belongs in a set ([[%s]])", e.key, keySet)
		case slices.Contains(commandOnly, e.key):
			return f.errorAt(e.line, "%s is not taken from the file: give --%s on the command line", e.key, e.key)
		case !slices.Contains(keys, e.key):
			hint := ""
			if s := closest(e.key, keys); s != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", s)
			}
			return f.errorAt(e.line, "unknown key %s%s", name, hint)
		case !top && slices.Contains(siteKeys, e.key) && e.key != flagDescribedby:
			return f.errorAt(e.line, "%s applies to the whole site: give it at the top of the file, before the first [[%s]]", e.key, keySet)
		case e.key == flagAt && e.kind == unstable.String && e.value == "":
			continue // no time given, as --at "" (readSiteFile hides it from the decoder)
		case e.key == flagAt && e.kind == unstable.String && timeError(e.value) != "":
			return f.errorAt(e.line, "%s %s", e.key, timeError(e.value))
		case misfit(e) != "":
			return f.valueErrorAt(e.line, "%s: give %s", e.key, misfit(e))
		case e.kind == unstable.Integer && configFields()[e.key].Type == reflect.TypeFor[units.Size]() && isZero(e.value):
			_, err := units.ParseSize("0") // decoded as the number it is, 0 would be no size given
			return f.valueErrorAt(e.line, "%s: %v", e.key, err)
		case e.key == flagMaxDelete: // decoded by its UnmarshalTOML, whose error has no line
			if _, err := generator.ParseDeleteLimit(e.value); err != nil {
				return f.valueErrorAt(e.line, "%s: %v", e.key, err)
			}
		}
		t := &f.top
		if !top {
			t = &f.sets[e.set-1]
		}
		t.keys[e.key] = e.line
	}
	return nil
}

// isZero reports whether the TOML integer v (0, +0, 0x0, 0_0…) is zero.
func isZero(v string) bool {
	n, err := strconv.ParseInt(v, 0, 64)
	return err == nil && n == 0
}

// valueError is the error of the decoder about a value, at its line: a
// value of the wrong type says what the key takes.
func (f *siteFile) valueError(err error) error {
	var de *toml.DecodeError
	if !errors.As(err, &de) || len(de.Key()) == 0 {
		return usageErr("the file is TOML: https://toml.io", "%s: %v", f.path, err)
	}
	row, _ := de.Position()
	return f.valueErrorAt(row, "%s: %s", de.Key()[len(de.Key())-1], strings.TrimPrefix(de.Error(), "toml: "))
}

// misfit says what the key of e takes if its value is of a kind that its
// field does not take, else is "": the decoder then reads the value, and
// says what is wrong with it.
func misfit(e fileEntry) string {
	is := func(kinds ...unstable.Kind) bool { return slices.Contains(kinds, e.kind) }
	t := configFields()[e.key].Type // nil for templates, no field
	ok, takes := is(unstable.String), "a string"
	switch {
	case t == nil:
	case t == reflect.TypeFor[time.Time]():
		ok, takes = is(unstable.DateTime, unstable.String), "a date-time with its offset, such as 2024-06-01T00:00:00Z"
	case t == reflect.TypeFor[units.List]() || t == reflect.TypeFor[hashing.Set]():
		ok, takes = is(unstable.String) || is(unstable.Array) && !e.mixed, "a string or a list of strings" // hash = [1] is no algorithm
	case t == reflect.TypeFor[units.Size]():
		ok, takes = is(unstable.String, unstable.Integer), `a size, such as "50MiB", or a number of bytes`
	case t == reflect.TypeFor[*generator.DeleteLimit]():
		ok, takes = is(unstable.String, unstable.Integer), `a count, a percentage such as "50%", or "all"`
	case t == reflect.TypeFor[units.Duration]():
		ok = ok || is(unstable.Integer) && e.value == "0" // archive-keep = 0
		takes = `a duration as a string, such as "30d" or "2h"`
	case reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()):
	case t.Kind() == reflect.Bool:
		ok, takes = is(unstable.Bool), "true or false"
	case t.Kind() == reflect.Int:
		ok, takes = is(unstable.Integer), "a whole number"
	}
	if ok {
		return ""
	}
	return takes
}

// resolve makes a relative path v (of source, out, export, cache,
// previous, digests, digests-job, templates) relative to the directory of
// the file, as a user reads it; a URL, "-" and absolute paths stay.
func (f *siteFile) resolve(v string) string {
	if v == "-" || v == "" || filepath.IsAbs(v) || strings.Contains(v, "://") {
		return v
	}
	return filepath.Join(filepath.Dir(f.path), v)
}

// fileKeys are the keys the file takes, sorted: those of generator.Config,
// and the site's templates.
func fileKeys() []string {
	return slices.Sorted(slices.Values(append(slices.Clone(configKeys()), flagTemplates)))
}

// A fileEntry is a key of the file or the header of a table, at its line:
// set is 0 at the top, i for the i-th [[set]] (key "" for its header).
type fileEntry struct {
	key   string
	set   int
	line  int
	table bool          // a table, or a dotted key: the file has none but [[set]]
	kind  unstable.Kind // of its value
	value string        // its value, if a string or a number
	mixed bool          // an array with an element that is not a string
}

// keyLines lists the keys of the file and the headers of its tables, in
// the order of their lines.
func keyLines(data []byte) ([]fileEntry, error) {
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
	var entries []fileEntry
	set, inTable := 0, false
	for p.NextExpression() {
		e := p.Expression()
		keys := keyParts(e.Key())
		line := lineOf(e.Key())
		switch {
		case e.Kind == unstable.ArrayTable && len(keys) == 1 && keys[0] == keySet:
			set++
			inTable = false
			entries = append(entries, fileEntry{set: set, line: line})
		case e.Kind == unstable.ArrayTable || e.Kind == unstable.Table:
			inTable = true
			name := keys[len(keys)-1]
			if len(keys) > 1 && keys[0] == keySet && set > 0 {
				entries = append(entries, fileEntry{key: name, set: set, line: line, table: true}) // [set.x]
			} else {
				entries = append(entries, fileEntry{key: keys[0], line: line, table: true})
			}
		case e.Kind == unstable.KeyValue && !inTable:
			v := e.Value()
			entry := fileEntry{key: keys[0], set: set, line: line, table: len(keys) > 1, kind: v.Kind, value: string(v.Data)}
			for it := v.Children(); v.Kind == unstable.Array && it.Next(); {
				entry.mixed = entry.mixed || it.Node().Kind != unstable.String
			}
			entries = append(entries, entry)
		}
	}
	return entries, p.Error()
}

func keyParts(it unstable.Iterator) []string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}
