package generator

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/text/units"
	"github.com/rsgen/rsgen/zipdump"
)

// Config.Validate names the field that is wrong and how, for each rule; a
// valid Config passes, and Build refuses an invalid one before it touches
// the disk.
func TestConfigValidate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base, _ := ParseBaseURL("https://example.org/")
	valid := func() Config { return Config{Source: dir, BaseURL: base} }
	site := t.TempDir() // built in place: Out is Source
	notRegular := filepath.Join(dir, "cachedir")
	if err := os.Mkdir(notRegular, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		edit  func(c *Config)
		field string
		kind  error
	}{
		{"no source", func(c *Config) { c.Source = "" }, "Source", errRequired},
		{"source and export", func(c *Config) { c.Export = "r.jsonl"; c.Out = dir }, "Export", errConflict},
		{"export without out", func(c *Config) { c.Source, c.Export = "", "r.jsonl" }, "Export", errNeeds},
		{"archive without out", func(c *Config) { c.Source = "site.tar.gz" }, "Source", errNeeds},
		{"no base URL", func(c *Config) { c.BaseURL = BaseURL{} }, "BaseURL", errRequired},
		{"resources among the documents", func(c *Config) {
			c.DocsURL, c.Out = base, site
			c.BaseURL, _ = ParseBaseURL("https://example.org/resourcesync/a/")
		}, "BaseURL", errConflict},
		{"a set named resourcesync", func(c *Config) { c.Set = "resourcesync" }, "Set", errInvalid},
		{"a change topic that is the default framework topic", func(c *Config) {
			c.Notification.Hub, c.Notification.ChangeTopic = "https://hub.example.org/", "https://example.org/resourcesync/framework-notification"
		}, "Notification.ChangeTopic", errSame},
		{"resource dumps archived without a dump", func(c *Config) {
			c.Changes.Previous, c.Changes.Archive.Keep, c.Changes.Archive.ResourceDumps = dir, units.Duration(48*time.Hour), units.Duration(24*time.Hour)
		}, "Changes.Archive.ResourceDumps", errNeeds},
		{"export without URLs", func(c *Config) { c.Source, c.Export, c.Out, c.BaseURL = "", "r.jsonl", dir, BaseURL{} }, "DocsURL", errRequired},
		{"export format of a tree", func(c *Config) { c.ExportFormat = "csv" }, "ExportFormat", errNeeds},
		{"filter of an export", func(c *Config) { c.Source, c.Export, c.Out = "", "r.jsonl", dir; c.Filter.Hidden = true }, "Filter.Hidden", errConflict},
		{"unknown export format", func(c *Config) { c.Source, c.Export, c.Out, c.ExportFormat = "", "r", dir, "xml" }, "ExportFormat", errInvalid},
		{"export format not told", func(c *Config) { c.Source, c.Export, c.Out = "", "records.txt", dir }, "ExportFormat", errRequired},
		{"bad pattern", func(c *Config) { c.Filter.Include = []string{"a/{b"} }, "Filter.Include", errInvalid},
		{"jobs", func(c *Config) { c.Jobs = maxJobs + 1 }, "Jobs", errOutOfRange},
		{"hash twice", func(c *Config) { c.Hashes = hashing.Set{hashing.SHA256, hashing.SHA256} }, "Hashes", errInvalid},
		{"no hash", func(c *Config) { c.Hashes = hashing.Set{} }, "Hashes", errRequired},
		{"entries past the spec", func(c *Config) { c.Limits.MaxEntries = 50001 }, "Limits.MaxEntries", errOutOfRange},
		{"bytes below a document", func(c *Config) { c.Limits.MaxBytes = 100 }, "Limits.MaxBytes", errOutOfRange},
		{"time before 1970", func(c *Config) { c.At, c.FixedTime = time.Date(1969, 1, 1, 0, 0, 0, 0, time.UTC), true }, "At", errOutOfRange},
		{"fixed zero time", func(c *Config) { c.FixedTime = true }, "At", errOutOfRange},
		{"describedby", func(c *Config) { c.Describedby = "about.html" }, "Describedby", errInvalid},
		{"negative package size", func(c *Config) { c.Dump.Enabled, c.Dump.MaxBytes = true, -1 }, "Dump.MaxBytes", errOutOfRange},
		{"package size without a dump", func(c *Config) { c.Dump.MaxBytes = 1 << 20 }, "Dump.MaxBytes", errNeeds},
		{"compression without a dump", func(c *Config) { c.Dump.Compression = zipdump.Deflate }, "Dump.Compression", errNeeds},
		{"unknown host", func(c *Config) { c.Hosts = []string{"geocities"} }, "Hosts", errInvalid},
		{"percent past 100", func(c *Config) { c.Changes.Previous = dir; c.MaxDelete = &DeleteLimit{N: 101, Percent: true} }, "MaxDelete", errOutOfRange},
		{"previous of an export", func(c *Config) { c.Source, c.Export, c.Out, c.Changes.Previous = "", "r.jsonl", dir, dir }, "Changes.Previous", errConflict},
		{"previous of another scheme", func(c *Config) { c.Changes.Previous = "file:///etc/passwd" }, "Changes.Previous", errInvalid},
		{"previous with a password", func(c *Config) { c.Changes.Previous = "https://u:secret@example.org/" }, "Changes.Previous", errInvalid},
		{"change dump without previous", func(c *Config) { c.Changes.Dump = true }, "Changes.Dump", errNeeds},
		{"first build ok without previous", func(c *Config) { c.Changes.FirstBuildOK = true }, "Changes.FirstBuildOK", errNeeds},
		{"delete limit without previous", func(c *Config) { c.MaxDelete = &DeleteLimit{N: 5} }, "MaxDelete", errNeeds},
		{"change dump of an archive", func(c *Config) { c.Source, c.Out, c.Changes.Previous, c.Changes.Dump = "s.zip", dir, dir, true }, "Changes.Dump", errConflict},
		{"negative keep", func(c *Config) { c.Changes.Keep = units.Duration(-time.Hour) }, "Changes.Keep", errOutOfRange},
		{"negative archive keep", func(c *Config) { c.Changes.Previous, c.Changes.Archive.Keep = dir, units.Duration(-time.Hour) }, "Changes.Archive.Keep", errOutOfRange},
		{"drop of an unknown capability", func(c *Config) { c.Changes.Previous, c.Changes.Drop = dir, []string{"archive"} }, "Changes.Drop", errInvalid},
		{"archive shorter than the Change Lists", func(c *Config) {
			c.Changes.Previous, c.Changes.Keep, c.Changes.Archive.Keep = dir, units.Duration(30*24*time.Hour), units.Duration(24*time.Hour)
		}, "Changes.Archive.Keep", errShorter},
		{"archive kept and dropped", func(c *Config) {
			c.Changes.Previous, c.Changes.Archive.Keep, c.Changes.Drop = dir, units.Duration(time.Hour), []string{"changelist-archive"}
		}, "Changes.Drop[changelist-archive]", errConflict},
		{"resource lists archived less often than kept", func(c *Config) {
			c.Changes.Previous, c.Changes.Archive.Keep, c.Changes.Archive.ResourceLists = dir, units.Duration(24*time.Hour), units.Duration(48*time.Hour)
		}, "Changes.Archive.Keep", errShorter},
		{"resource lists archived, every archive dropped", func(c *Config) {
			c.Changes.Previous, c.Changes.Drop, c.Changes.Archive.ResourceLists = dir, []string{"changelist-archive"}, units.Duration(time.Hour)
		}, "Changes.Archive.ResourceLists", errConflict},
		{"resource lists archived and dropped", func(c *Config) {
			c.Changes.Previous, c.Changes.Archive.Keep, c.Changes.Archive.ResourceLists, c.Changes.Drop = dir, units.Duration(time.Hour), units.Duration(time.Hour), []string{"resourcelist-archive"}
		}, "Changes.Drop[resourcelist-archive]", errConflict},
		{"resource lists archived without an archive", func(c *Config) { c.Changes.Previous, c.Changes.Archive.ResourceLists = dir, units.Duration(time.Hour) }, "Changes.Archive.ResourceLists", errNeeds},
		{"archive without previous", func(c *Config) { c.Changes.Archive.Keep = units.Duration(time.Hour) }, "Changes.Archive.Keep", errNeeds},
		{"archive of an export", func(c *Config) {
			c.Source, c.Export, c.Out, c.Changes.Archive.Keep = "", "r.jsonl", dir, units.Duration(time.Hour)
		}, "Changes.Archive.Keep", errConflict},
		{"cache among the documents", func(c *Config) { c.Source, c.Cache = site, filepath.Join(site, "resourcesync", "hc.bin") }, "Cache", errInvalid},
		{"cache as the Source Description", func(c *Config) { c.Source, c.Cache = site, filepath.Join(site, ".well-known", "resourcesync") }, "Cache", errInvalid},
		{"cache is a directory", func(c *Config) { c.Cache = notRegular }, "Cache", errInvalid},
		{"digests of a tree", func(c *Config) { c.Digests = "job/manifest.json" }, "Digests", errInvalid},
		{"digests job of a tree", func(c *Config) { c.DigestsJob = "job.csv" }, "DigestsJob", errInvalid},
		{"inventory without out", func(c *Config) { c.Source, c.Out = "inv/manifest.json", "" }, "Source", errNeeds},
		{"topic without hub", func(c *Config) { c.Notification.ChangeTopic = "https://example.org/t" }, "Notification.ChangeTopic", errNeeds},
		{"hub with credentials", func(c *Config) { c.Notification.Hub = "https://user:secret@hub.example/" }, "Notification.Hub", errInvalid},
		{"one topic for both", func(c *Config) {
			c.Notification = Notification{Hub: "https://hub.example/", ChangeTopic: "https://example.org/t", FrameworkTopic: "https://example.org/t"}
		}, "Notification.FrameworkTopic", errSame},
	}
	if err := valid().Validate(); err != nil {
		t.Fatalf("a valid config: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := valid()
			tt.edit(&c)
			err := c.Validate()
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tt.field || !errors.Is(fe, tt.kind) {
				t.Fatalf("Validate: %v; want %s %v", err, tt.field, tt.kind)
			}
			if strings.Contains(err.Error(), "--") {
				t.Errorf("the library names a flag: %v", err)
			}
			out := filepath.Join(t.TempDir(), "out")
			if c.Out != "" || c.Source == dir {
				c.Out = out // not where the rule is about
			}
			if _, err := Build(t.Context(), c); !errors.As(err, &fe) {
				t.Errorf("Build: %v, want the field error", err)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("Build touched the disk")
			}
		})
	}
}

// Describe renders a field with the caller's name for it.
func TestFieldErrorDescribe(t *testing.T) {
	t.Parallel()
	e := &FieldError{Field: "Limits.MaxEntries", Value: 60000, Err: errOutOfRange, Detail: "give a number from 1 to 50000"}
	if got, want := e.Error(), "Limits.MaxEntries 60000 is out of range: give a number from 1 to 50000"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	e = &FieldError{Field: "Changes.Dump", Err: errNeeds, With: "Changes.Previous"}
	flags := map[string]string{"Changes.Dump": "--change-dump", "Changes.Previous": "--previous"}
	if got, want := e.Describe(func(f string) string { return flags[f] }), "--change-dump needs --previous"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}

// The hash cache may lie anywhere but among the documents of the output,
// which every build replaces.
func TestCacheInDocuments(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		cache, out string
		in         bool
	}{
		{"out/resourcesync/hc.bin", "out", true},
		{"out/resourcesync/sub/hc.bin", "out", true},
		{"out/./resourcesync/../resourcesync/hc.bin", "out", true},
		{"out/.well-known/resourcesync", "out", true},
		{"out/hc.bin", "out", false},
		{"out/.well-known/hc.bin", "out", false},
		{"out/resourcesync-cache", "out", false},
		{"out/..resourcesync/hc.bin", "out", false},
		{"hc.bin", "out", false},
		{"resourcesync/hc.bin", "out", false},
	} {
		if got := cacheInDocuments(tt.cache, tt.out); got != tt.in {
			t.Errorf("cacheInDocuments(%q, %q) = %v", tt.cache, tt.out, got)
		}
	}
}

// A Config is what a table of rsgen.toml gives: its keys are the toml tags
// of its fields and of the structs it embeds, flat, and each value is read
// as the file writes it; a key of no field is refused.
func TestConfigFromTOML(t *testing.T) {
	t.Parallel()
	doc := `name = "articles"
source = "site"
out = "public"
base-url = "https://example.org/a/"
docs-url = "https://example.org/"
hash = ["md5", "sha-256"]
include = "**/*.html"
exclude = ["drafts/**", "tmp/**"]
hidden = true
follow-symlinks = true
jobs = 3
max-entries = 1000
max-bytes = "1MiB"
at = 2024-06-01T00:00:00Z
describedby = "https://example.org/about"
fail-fast = true
resource-dump = true
dump-max-bytes = 1048576
dump-compression = "store"
hub = "https://hub.example.org/"
change-topic = "https://example.org/t"
previous = "https://example.org/"
changes-keep = "30d"
change-dump = true
fetch-timeout = "90s"
first-build-ok = true
new-history = true
archive-keep = "365d"
archive-resource-lists = "30d"
archive-resource-dumps = "90d"
allow-empty = true
max-delete = "10%"
cache = "site.rsgencache"
host = "netlify"`
	var c Config
	d := toml.NewDecoder(strings.NewReader(doc))
	d.DisallowUnknownFields()
	if err := d.Decode(&c); err != nil {
		t.Fatal(err)
	}
	day := 24 * time.Hour
	want := []struct {
		name      string
		got, want any
	}{
		{"name", c.Set, "articles"}, {"source", c.Source, "site"}, {"out", c.Out, "public"},
		{"base-url", c.BaseURL.String(), "https://example.org/a/"}, {"docs-url", c.DocsURL.String(), "https://example.org/"},
		{"hash", c.Hashes.String(), "md5,sha-256"}, {"include", strings.Join(c.Filter.Include, " "), "**/*.html"},
		{"exclude", strings.Join(c.Filter.Exclude, " "), "drafts/** tmp/**"}, {"hidden", c.Filter.Hidden, true},
		{"follow-symlinks", c.FollowSymlinks, true}, {"jobs", c.Jobs, 3}, {"max-entries", c.Limits.MaxEntries, 1000},
		{"max-bytes", c.Limits.MaxBytes, units.Size(1 << 20)}, {"at", c.At.UTC().Format(time.RFC3339), "2024-06-01T00:00:00Z"},
		{"describedby", c.Describedby, "https://example.org/about"}, {"fail-fast", c.FailFast, true},
		{"resource-dump", c.Dump.Enabled, true}, {"dump-max-bytes", c.Dump.MaxBytes, units.Size(1 << 20)},
		{"dump-compression", c.Dump.Compression, zipdump.Store}, {"hub", c.Notification.Hub, "https://hub.example.org/"},
		{"change-topic", c.Notification.ChangeTopic, "https://example.org/t"}, {"previous", c.Changes.Previous, "https://example.org/"},
		{"changes-keep", c.Changes.Keep, units.Duration(30 * day)}, {"change-dump", c.Changes.Dump, true},
		{"fetch-timeout", c.Changes.HTTPOptions.Deadline, units.Duration(90 * time.Second)},
		{"first-build-ok", c.Changes.FirstBuildOK, true}, {"new-history", c.Changes.NewHistory, true},
		{"archive-keep", c.Changes.Archive.Keep, units.Duration(365 * day)},
		{"archive-resource-lists", c.Changes.Archive.ResourceLists, units.Duration(30 * day)},
		{"archive-resource-dumps", c.Changes.Archive.ResourceDumps, units.Duration(90 * day)},
		{"allow-empty", c.AllowEmpty, true}, {"max-delete", c.MaxDelete.String(), "10%"}, {"cache", c.Cache, "site.rsgencache"},
		{"host", strings.Join(c.Hosts, " "), "netlify"},
	}
	for _, w := range want {
		if w.got != w.want {
			t.Errorf("%s: got %v, want %v", w.name, w.got, w.want)
		}
	}
	var one Config
	if err := toml.Unmarshal([]byte(`hash = "sha-256,md5"`), &one); err != nil || one.Hashes.String() != "sha-256,md5" {
		t.Errorf(`hash = "sha-256,md5": %v, %v`, one.Hashes, err)
	}
	var count Config
	d = toml.NewDecoder(strings.NewReader("max-delete = 200"))
	if err := d.EnableUnmarshalerInterface().Decode(&count); err != nil || count.MaxDelete.String() != "200" {
		t.Errorf("max-delete = 200: %v, %v", count.MaxDelete, err)
	}
	for _, bad := range []string{"dryrun = true", "timeout = 3", "client = 1", "drop = []", "filter = 1", "hash = \"sha-512\""} {
		d := toml.NewDecoder(strings.NewReader(bad))
		d.DisallowUnknownFields()
		if err := d.Decode(new(Config)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
