package generator

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/storage/regfile"
	"github.com/rsgen/rsgen/internal/text/display"
	"github.com/rsgen/rsgen/internal/text/tomlkeys"
	"github.com/rsgen/rsgen/internal/text/units"
)

// A SiteFile is the configuration file of rsgen build --config
// (docs/SETS.md): TOML, whose keys are the toml tags of Config's fields.
// Its top level holds what applies to the whole site (siteKeys) and the
// defaults of every set; each [[set]] table holds one set. A file without
// [[set]] is one set, whose keys are at its top.
type SiteFile struct {
	Path      string
	Templates string      // the key templates: a directory of templates
	Top       SiteTable   // the top level
	Sets      []SiteTable // each [[set]], with the keys of the top it takes (Inherits)

	entries []fileEntry
}

// A SiteTable is the top level or one [[set]] of a SiteFile.
type SiteTable struct {
	Line   int            // of its header; 1 for the top level
	Keys   map[string]int // the line of each key it gives, or a set takes from the top
	Config *Config        // decoded from those keys; the other fields are zero
}

// siteKeys apply to the whole site: at the top of the file only.
var siteKeys = []string{"out", "docs-url", "describedby", "previous", "first-build-ok", "new-history", "fetch-timeout", "at", "jobs", "fail-fast", "host", "templates", "hub"}

// notForExport are the top-level keys a set of a record export does not
// take: the export has a Change List of its own.
var notForExport = []string{"previous", "first-build-ok", "new-history", "fetch-timeout", "change-dump", "cache",
	"archive-keep", "archive-resource-lists", "archive-resource-dumps", "include", "exclude", "hidden", "follow-symlinks"}

var configTable = sync.OnceValue(func() tomlkeys.Table { return tomlkeys.Of(reflect.TypeFor[Config]()) })

const maxSiteFile = 1 << 20

// ReadSite reads the configuration file at path and checks its keys and
// values. An error about the file's text is "path:line: …"; one of
// reading it is an *fs.PathError. Relative paths in it are made relative
// to its directory. flagsOnly are the flags of the command line that are
// no key of the file: a file that gives one is told to give the flag.
func ReadSite(path string, flagsOnly ...string) (*SiteFile, error) {
	fd, _, err := regfile.Open(path) // never waits on a FIFO
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(fd, maxSiteFile+1))
	fd.Close()
	if err == nil && len(data) > maxSiteFile {
		err = fmt.Errorf("larger than %d bytes: not a configuration file", maxSiteFile)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a byte order mark, as some editors write
	f := &SiteFile{Path: path, Top: SiteTable{Line: 1, Keys: map[string]int{}}}
	entries, err := keyLines(data)
	f.entries = entries
	if err != nil {
		var de *toml.DecodeError
		if errors.As(toml.Unmarshal(data, new(map[string]any)), &de) { // the error with its column
			row, col := de.Position()
			return nil, fmt.Errorf("%s:%d:%d: %s", path, row, col, de.Error())
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if err := f.checkKeys(entries, flagsOnly); err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.key == "at" && e.kind == unstable.String && e.value == "" { // not a time.Time: its line blanked, the lines kept
			lines := bytes.SplitAfter(data, []byte("\n"))
			lines[e.line-1] = []byte("\n")
			data = bytes.Join(lines, nil)
		}
	}
	var doc struct {
		Config
		Templates string   `toml:"templates"`
		Sets      []Config `toml:"set"`
	}
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields().EnableUnmarshalerInterface() // max-delete = 200 (DeleteLimit)
	if err := dec.Decode(&doc); err != nil {
		var de *toml.DecodeError
		if !errors.As(err, &de) || len(de.Key()) == 0 {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		row, _ := de.Position()
		return nil, f.valueErrorAt(row, "%s: %s", de.Key()[len(de.Key())-1], strings.TrimPrefix(de.Error(), "toml: "))
	}
	f.Top.Config, f.Templates = f.paths(&doc.Config), f.resolve(doc.Templates)
	for i := range f.Sets { // with the keys it takes from the top, decided before export is one of them
		t := &f.Sets[i]
		t.Config = f.paths(&doc.Sets[i])
		var take []string
		for k := range f.Top.Keys {
			if _, own := t.Keys[k]; !own && f.Inherits(t, k) {
				take = append(take, k)
			}
		}
		for _, k := range take {
			t.Keys[k] = f.Top.Keys[k]
			configTable().Copy(t.Config, f.Top.Config, k)
		}
	}
	return f, nil
}

// Tables are the tables of the sets: each [[set]], or the top of a file
// of one set.
func (f *SiteFile) Tables() []*SiteTable {
	if len(f.Sets) == 0 {
		return []*SiteTable{&f.Top}
	}
	var tables []*SiteTable
	for i := range f.Sets {
		tables = append(tables, &f.Sets[i])
	}
	return tables
}

// Inherits reports whether the set of t takes the key k from the top of
// the file (or a program's flags): every key but describedby and, for a
// record export, those of notForExport. The one set of a file without
// [[set]] takes every key.
func (f *SiteFile) Inherits(t *SiteTable, k string) bool {
	return len(f.Sets) == 0 || k != "describedby" && !(t.Config.Export != "" && slices.Contains(notForExport, k))
}

// SiteKey reports whether the key k applies to the whole site.
func (f *SiteFile) SiteKey(k string) bool { return slices.Contains(siteKeys, k) }

// valueErrorAt is errorAt about the value of the key at line, naming its
// set if in one.
func (f *SiteFile) valueErrorAt(line int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if i := slices.IndexFunc(f.entries, func(e fileEntry) bool { return e.line == line && e.key != "" }); i >= 0 && f.entries[i].set > 0 {
		set := f.entries[i].set
		if j := slices.IndexFunc(f.entries, func(e fileEntry) bool { return e.set == set && e.key == "name" }); j >= 0 {
			msg = fmt.Sprintf("set %q: %s", f.entries[j].value, msg)
		}
	}
	return f.errorAt(line, "%s", msg)
}

// isZero reports whether the TOML integer v (0, +0, 0x0, 0_0…) is zero.
func isZero(v string) bool {
	n, err := strconv.ParseInt(v, 0, 64)
	return err == nil && n == 0
}

func (f *SiteFile) errorAt(line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", f.Path, line, fmt.Sprintf(format, args...))
}

func (f *SiteFile) paths(c *Config) *Config {
	for _, p := range []*string{&c.Source, &c.Out, &c.Export, &c.Cache, &c.Changes.Previous, &c.Digests, &c.DigestsJob} {
		*p = f.resolve(*p)
	}
	return c
}

// resolve makes a relative path v relative to the directory of the file.
func (f *SiteFile) resolve(v string) string {
	if v == "-" || v == "" || filepath.IsAbs(v) || strings.Contains(v, "://") {
		return v
	}
	return filepath.Join(filepath.Dir(f.Path), v)
}

// checkKeys checks the keys of the file, in the order of its lines, and
// puts them in f's tables.
func (f *SiteFile) checkKeys(entries []fileEntry, flagsOnly []string) error {
	keys := slices.Sorted(slices.Values(append(slices.Clone(configTable().Keys), "templates")))
	hasSets := slices.ContainsFunc(entries, func(e fileEntry) bool { return e.set > 0 })
	for _, e := range entries {
		if e.set > len(f.Sets) {
			f.Sets = append(f.Sets, SiteTable{Line: e.line, Keys: map[string]int{}})
			if e.key == "" {
				continue
			}
		}
		top := e.set == 0
		name := display.Name(e.key) // any key the file gives, a line break too
		switch {
		case top && e.key == "set" && !e.table:
			return f.errorAt(e.line, "set: give each set as a table, [[set]]")
		case e.table && top:
			return f.errorAt(e.line, "%s is a table, which the file does not have: give each set as [[set]], and keys and values", name)
		case e.table:
			return f.errorAt(e.line, "%s is a table, which the file does not have: give keys and values", name)
		case top && (e.key == "name" || e.key == "source" && hasSets):
			return f.errorAt(e.line, "%s belongs in a set ([[set]])", e.key)
		case slices.Contains(flagsOnly, e.key):
			return f.errorAt(e.line, "%s is not taken from the file: give --%s on the command line", e.key, e.key)
		case !slices.Contains(keys, e.key):
			hint := ""
			if s := display.Closest(e.key, keys); s != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", s)
			}
			return f.errorAt(e.line, "unknown key %s%s", name, hint)
		case !top && f.SiteKey(e.key) && e.key != "describedby":
			return f.errorAt(e.line, "%s applies to the whole site: give it at the top of the file, before the first [[set]]", e.key)
		case e.key == "at" && e.kind == unstable.String && e.value == "":
			continue // no time given, as --at "" (ReadSite hides it from the decoder)
		case e.key == "at" && e.kind == unstable.String:
			if msg, _ := units.TimeError(e.value); msg != "" {
				return f.errorAt(e.line, "at %s", msg)
			}
		case misfit(e) != "":
			return f.valueErrorAt(e.line, "%s: give %s", e.key, misfit(e))
		case e.kind == unstable.Integer && configTable().Fields[e.key].Type == reflect.TypeFor[units.Size]() && isZero(e.value):
			_, err := units.ParseSize("0") // decoded as the number it is, 0 would be no size given
			return f.valueErrorAt(e.line, "%s: %v", e.key, err)
		case e.key == "max-delete": // decoded by its UnmarshalTOML, whose error has no line
			if _, err := ParseDeleteLimit(e.value); err != nil {
				return f.valueErrorAt(e.line, "%s: %v", e.key, err)
			}
		}
		t := &f.Top
		if !top {
			t = &f.Sets[e.set-1]
		}
		t.Keys[e.key] = e.line
	}
	return nil
}

// misfit says what the key of e takes if its value is of a kind its field
// does not take, else "": the decoder then says what is wrong with it.
func misfit(e fileEntry) string {
	is := func(kinds ...unstable.Kind) bool { return slices.Contains(kinds, e.kind) }
	t := configTable().Fields[e.key].Type // nil for templates, no field
	ok, takes := is(unstable.String), "a string"
	switch {
	case t == nil:
	case t == reflect.TypeFor[time.Time]():
		ok, takes = is(unstable.DateTime, unstable.String), "a date-time with its offset, such as 2024-06-01T00:00:00Z"
	case t == reflect.TypeFor[units.List]() || t == reflect.TypeFor[hashing.Set]():
		ok, takes = is(unstable.String) || is(unstable.Array) && !e.mixed, "a string or a list of strings" // hash = [1] is no algorithm
	case t == reflect.TypeFor[units.Size]():
		ok, takes = is(unstable.String, unstable.Integer), `a size, such as "50MiB", or a number of bytes`
	case t == reflect.TypeFor[*DeleteLimit]():
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

// A fileEntry is a key of the file or the header of a table: set is 0 at
// the top, i for the i-th [[set]] (key "" for its header).
type fileEntry struct {
	key   string
	set   int
	line  int
	table bool          // a table, or a dotted key: the file has none but [[set]]
	kind  unstable.Kind // of its value
	value string        // its value, if a string or a number
	mixed bool          // an array with an element that is not a string
}

func keyLines(data []byte) ([]fileEntry, error) {
	var p unstable.Parser
	p.Reset(data)
	// The line of an offset, among the starts of the lines: the parser's
	// Shape counts from the start at each call (minutes for 8,000 sets).
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
		var keys []string
		for it := e.Key(); it.Next(); {
			keys = append(keys, string(it.Node().Data))
		}
		line := lineOf(e.Key())
		switch {
		case e.Kind == unstable.ArrayTable && len(keys) == 1 && keys[0] == "set":
			set++
			inTable = false
			entries = append(entries, fileEntry{set: set, line: line})
		case e.Kind == unstable.ArrayTable || e.Kind == unstable.Table:
			inTable = true
			if len(keys) > 1 && keys[0] == "set" && set > 0 {
				entries = append(entries, fileEntry{key: keys[len(keys)-1], set: set, line: line, table: true}) // [set.x]
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
