package generator

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/exports"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/internal/text/units"
)

// exportAt is the snapshot time of the export tests: the Change List
// window of 30 days starts at 2024-05-02T12:00:00Z.
var exportAt = time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)

const exportGolden = "testdata/exports/golden"

func exportCfg(t testing.TB, export string) Config {
	t.Helper()
	base, err := ParseBaseURL("https://example.org/")
	if err != nil {
		t.Fatal(err)
	}
	return Config{Export: export, Out: filepath.Join(t.TempDir(), "out"), BaseURL: base, At: exportAt, FixedTime: true}
}

func writeExport(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// gzipped writes a gzip copy of the file src.
func gzipped(t testing.TB, src string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	// Beside the original, so that its paths resolve the same way.
	dst := filepath.Join(t.TempDir(), filepath.Base(src)+".gz")
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestExportGolden publishes the same small catalogue from JSON Lines, CSV
// and gzipped JSON Lines: created, updated and deleted records on both
// sides of the window's start, drafts and other statuses, a URL reused
// after a deletion, a tombstone exported twice, a local file, links, a
// record from the future. All give the golden documents.
func TestExportGolden(t *testing.T) {
	t.Parallel()
	abs, _ := filepath.Abs("testdata/exports/catalogue.jsonl")
	cases := []struct{ name, export string }{
		{"jsonl", "testdata/exports/catalogue.jsonl"},
		{"csv", "testdata/exports/catalogue.csv"},
		{"jsonl.gz", gzipped(t, abs)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := exportCfg(t, tc.export)
			if tc.name == "jsonl.gz" {
				// Its local file must be beside it: a symbolic link to the
				// original would lead out of its directory, and be refused.
				data, _ := os.ReadFile("testdata/exports/files/report.txt")
				os.Mkdir(filepath.Join(filepath.Dir(tc.export), "files"), 0o755)
				os.WriteFile(filepath.Join(filepath.Dir(tc.export), "files/report.txt"), data, 0o644)
			}
			rep, err := Build(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := testenv.ReadTree(t, cfg.Out)
			if *update && tc.name == "jsonl" {
				os.RemoveAll(exportGolden)
				for name, data := range got {
					p := filepath.Join(exportGolden, name)
					os.MkdirAll(filepath.Dir(p), 0o755)
					if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			want := testenv.ReadTree(t, exportGolden)
			if len(want) != 8 {
				t.Fatalf("%s holds %d files, want 8 (4 documents, the landing page, robots.txt, head.html and the manifest): run 'go test ./generator -run TestExportGolden -update'", exportGolden, len(want))
			}
			for name, data := range want {
				if got[name] != data {
					t.Errorf("%s differs from %s/%s (rerun with -update if intended):\n%s", name, exportGolden, name, got[name])
				}
			}
			if len(got) != len(want) {
				t.Errorf("wrote %d files, want %d", len(got), len(want))
			}
			ex := rep.Export
			wantWithheld := map[string]int{"draft": 2, "private": 1}
			if ex.Listed != 9 || rep.Files != 9 || ex.Tombstones != 4 || ex.Changes != 8 || !ex.ChangeList || ex.Records != 16 ||
				fmt.Sprint(ex.Withheld) != fmt.Sprint(wantWithheld) || len(rep.Problems) != 0 {
				t.Errorf("report %+v, problems %v", ex, rep.Problems)
			}
			if len(ex.Warnings) != 1 || !strings.Contains(ex.Warnings[0], "1 record changed after the snapshot time 2024-06-01T12:00:00Z (first at line") {
				t.Errorf("warnings %q", ex.Warnings)
			}
		})
	}
}

// TestExportChangeListRules reads the golden Change List back and checks
// the rules of section 12.1 on it, and what the window holds.
func TestExportChangeListRules(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join(exportGolden, "resourcesync/changelist.xml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, entries, err := rsxml.ReadAll(f, rsxml.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.MD.Capability != rsxml.CapChangeList || doc.MD.From != "2024-05-02T12:00:00Z" || doc.MD.Until != "" {
		t.Fatalf("root md %+v: want a changelist from the window's start, open (no until)", doc.MD)
	}
	var got []string
	prev := ""
	for _, e := range entries {
		if e.MD.Datetime < prev || e.MD.Datetime < doc.MD.From || e.MD.Datetime > rsxml.FormatTime(exportAt) {
			t.Errorf("%s: datetime %s out of order or out of the window", e.Loc, e.MD.Datetime)
		}
		prev = e.MD.Datetime
		got = append(got, e.MD.Change+" "+strings.TrimPrefix(e.Loc, "https://example.org/")+" "+e.MD.Datetime)
	}
	want := []string{
		"updated records/8 2024-05-02T12:00:00Z",
		"created collections/caf%C3%A9%20%26%20cr%C3%A8me/ 2024-05-10T00:00:00Z",
		"deleted records/12 2024-05-10T00:00:00Z",
		"created records/12 2024-05-15T00:00:00Z",
		"created records/2 2024-05-20T08:00:00Z",
		"updated records/3 2024-05-25T00:00:00Z",
		"deleted records/4 2024-05-28T13:30:00Z",
		"updated records/13 2024-05-31T00:00:00Z",
	}
	if !slices.Equal(got, want) {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestExportOfficialValidator runs the official validator over the golden
// documents.
func TestExportOfficialValidator(t *testing.T) {
	t.Parallel()
	if testenv.Official(t) == nil {
		t.Skip("the official validator cannot run here")
	}
	runOfficial(t, exportGolden)
}

// TestExportBadRecords checks that every kind of bad record is named with
// its line and reason: the build fails and writes nothing, or, with
// SkipBadRecords, publishes the rest and reports each one.
func TestExportBadRecords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string // export file name: its extension gives the format
		content string
		noBase  bool
		line    int
		reason  string
	}{
		{"missing loc", "r.jsonl", `{"lastmod":"2024-05-01T00:00:00Z"}`, false, 2, "missing loc"},
		{"unparsable time", "r.jsonl", `{"loc":"b","lastmod":"01/05/2024"}`, false, 2, `lastmod: "01/05/2024" is not a date and time`},
		{"time without zone", "r.csv", "b,2024-05-01T10:00:00,", false, 3, "has no time zone"},
		{"relative loc without base", "r.jsonl", `{"loc":"b"}`, true, 2, `loc: "b" is a relative path and no base URL is given`},
		{"relative link without base", "r.jsonl", `{"loc":"https://example.org/b","links":[{"rel":"describedby","href":"b.json"}]}`, true, 2, "link describedby: \"b.json\" is a relative path"},
		{"duplicate loc", "r.jsonl", `{"loc":"https://example.org/a"}`, false, 2, "duplicate loc https://example.org/a (first at line 1)"},
		{"duplicate loc after resolution", "r.csv", "HTTPS://EXAMPLE.ORG/a,,", false, 3, "duplicate loc https://example.org/a (first at line 2)"},
		{"duplicate loc after dot segments", "r.jsonl", `{"loc":"https://example.org/x/%2e%2e/a"}`, false, 2, "duplicate loc https://example.org/a (first at line 1)"},
		{"bad hash token", "r.jsonl", `{"loc":"b","hash":"sha256=abc"}`, false, 2, `hash: hash token "sha256=abc" is not of the form alg:hexdigest`},
		{"unknown field", "r.jsonl", `{"loc":"b","url":"x"}`, false, 2, `unknown field "url"`},
		{"bad length", "r.csv", "b,,12.5", false, 3, `length: "12.5" is not a whole number of bytes`},
		{"bad link", "r.jsonl", `{"loc":"b","links":[{"rel":"alternate"}]}`, false, 2, "link alternate has no href"},
		{"path outside the export", "r.jsonl", `{"loc":"b","path":"../etc/passwd"}`, false, 2, "leaves the directory of the export"},
		{"path missing", "r.jsonl", `{"loc":"b","path":"nothing.txt"}`, false, 2, "path nothing.txt: no such file in the directory of the export"},
		{"path through a link out", "r.jsonl", `{"loc":"b","path":"out/secret"}`, false, 2, "path out/secret:"},
		{"hash not of the file", "r.jsonl", `{"loc":"b","path":"report.txt","hash":"sha-256:` + strings.Repeat("0", 64) + `"}`, false, 2, "hash: the export gives sha-256:000"},
		{"length not of the file", "r.jsonl", `{"loc":"b","path":"report.txt","length":3}`, false, 2, "length: the export gives 3 bytes, the file report.txt has 19"},
		{"path a directory", "r.jsonl", `{"loc":"b","path":"dir"}`, false, 2, "not a regular file"},
		{"loc too long", "r.jsonl", `{"loc":"` + strings.Repeat("a", 2040) + `"}`, false, 2, "2,048"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			first := `{"loc":"https://example.org/a","lastmod":"2024-05-01T00:00:00Z"}`
			if strings.HasSuffix(tc.file, ".csv") {
				first = "loc,lastmod,length\nhttps://example.org/a,2024-05-01T00:00:00Z,"
			}
			export := writeExport(t, tc.file, first+"\n"+tc.content+"\n")
			dir := filepath.Dir(export)
			os.WriteFile(filepath.Join(dir, "report.txt"), []byte("Annual report 2023\n"), 0o644)
			os.Mkdir(filepath.Join(dir, "dir"), 0o755)
			outside := t.TempDir()
			os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o644)
			os.Symlink(outside, filepath.Join(dir, "out"))

			cfg := exportCfg(t, export)
			if tc.noBase {
				cfg.DocsURL, cfg.BaseURL = cfg.BaseURL, BaseURL{}
			}
			_, err := Build(context.Background(), cfg)
			var bre *exports.BadRecordsError
			if kindOf(err) != KindBadRecords || !errors.As(err, &bre) {
				t.Fatalf("error %v, want a BadRecordsError", err)
			}
			if bre.Total != 1 || len(bre.Problems) != 1 || bre.Problems[0].Line != tc.line || !strings.Contains(bre.Problems[0].Err.Error(), tc.reason) {
				t.Fatalf("bad records %d %v, want line %d: %s", bre.Total, bre.Problems, tc.line, tc.reason)
			}
			if want := fmt.Sprintf("%s:%d: ", export, tc.line); !strings.HasPrefix(bre.Problems[0].Error(), want) {
				t.Errorf("problem %q does not start with %q", bre.Problems[0].Error(), want)
			}
			if _, err := os.Stat(cfg.Out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a failed build left %s behind: %v", cfg.Out, err)
			}

			cfg.SkipBadRecords = true
			rep, err := Build(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Problems) != 1 || rep.Problems[0].Line != tc.line || rep.Export.Bad != 1 || rep.Export.Listed != 1 {
				t.Errorf("skipping: problems %v, report %+v", rep.Problems, rep.Export)
			}
			rl := testenv.ReadTree(t, cfg.Out)["resourcesync/resourcelist.xml"]
			if strings.Count(rl, "<url>") != 1 || !strings.Contains(rl, "<loc>https://example.org/a</loc>") {
				t.Errorf("the Resource List does not hold just the good record:\n%s", rl)
			}
		})
	}
}

// TestExportFailureKeepsOutput: bad records leave a previous output as it was.
func TestExportFailureKeepsOutput(t *testing.T) {
	t.Parallel()
	cfg := exportCfg(t, writeExport(t, "r.jsonl", `{"loc":"a","lastmod":"2024-05-01T00:00:00Z"}`+"\n"))
	if _, err := Build(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	before := testenv.ReadTree(t, cfg.Out)
	cfg.Export = writeExport(t, "r.jsonl", `{"loc":"b","lastmod":"2024-05-01T00:00:00Z"}`+"\n"+`{"loc":"c","x":1}`+"\n")
	if _, err := Build(context.Background(), cfg); err == nil {
		t.Fatal("no error")
	}
	after := testenv.ReadTree(t, cfg.Out)
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Error("a failed build changed the output")
	}
}

// TestExportNoChangeList: a record without a time omits the Change List,
// with a warning; a negative window omits it silently.
func TestExportNoChangeList(t *testing.T) {
	t.Parallel()
	content := `{"loc":"a","lastmod":"2024-05-20T00:00:00Z"}` + "\n" + `{"loc":"b"}` + "\n" + `{"loc":"c","deleted":true}` + "\n"
	for _, window := range []time.Duration{0, -1} {
		cfg := exportCfg(t, writeExport(t, "r.jsonl", content))
		cfg.ChangesWindow = units.Duration(window)
		rep, err := Build(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		files := testenv.ReadTree(t, cfg.Out)
		if _, ok := files["resourcesync/changelist.xml"]; ok || strings.Contains(files["resourcesync/capabilitylist.xml"], "changelist") {
			t.Errorf("window %v: a Change List was written", window)
		}
		warned := len(rep.Export.Warnings) == 1 && strings.Contains(rep.Export.Warnings[0], "no Change List: 2 records have no lastmod") &&
			strings.Contains(rep.Export.Warnings[0], "(first at line 2)")
		if warned != (window == 0) {
			t.Errorf("window %v: warnings %q", window, rep.Export.Warnings)
		}
	}
}

// TestExportSpill sorts through runs on disk and splits the lists: the
// bytes are those of a build that sorts in memory.
func TestExportSpill(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	sb.WriteString("loc,lastmod,created,deleted,hash\n")
	for i := range 3000 {
		n := (i * 7919) % 3000 // out of order
		day := 1 + n%28
		switch {
		case n%10 == 0:
			fmt.Fprintf(&sb, "gone/%d,2024-05-%02dT01:00:00Z,,t,\n", n, day)
		default:
			fmt.Fprintf(&sb, "records/%d,2024-05-%02dT0%d:00:00Z,2024-05-%02dT00:00:00Z,,md5:%032x\n", n, day, n%10, day, n)
		}
	}
	export := writeExport(t, "r.csv", sb.String())
	var outs []map[string]string
	for _, chunk := range []int{0, 8192} {
		cfg := exportCfg(t, export)
		cfg.chunk = chunk
		cfg.Limits = Limits{MaxEntries: 400, MaxBytes: rsxml.MaxBytes}
		rep, err := Build(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Export.Listed != 2700 || rep.Export.Changes == 0 {
			t.Fatalf("report %+v", rep.Export)
		}
		files := testenv.ReadTree(t, cfg.Out)
		if _, ok := files["resourcesync/resourcelist-00007.xml"]; !ok {
			t.Fatalf("the Resource List is not split in 7 parts: %d files", len(files))
		}
		for name := range files {
			if strings.Contains(name, ".sort") {
				t.Errorf("%s was published", name)
			}
		}
		outs = append(outs, files)
	}
	if fmt.Sprint(outs[0]) != fmt.Sprint(outs[1]) {
		t.Error("spilling to disk changed the output")
	}
}

// TestExportHosts warns when records are on another host than the documents.
func TestExportHosts(t *testing.T) {
	t.Parallel()
	content := `{"loc":"a"}` + "\n" + `{"loc":"https://other.example.com/x"}` + "\n" + `{"loc":"https://example.org/b"}` + "\n"
	cfg := exportCfg(t, writeExport(t, "r.jsonl", content))
	cfg.ChangesWindow = -1
	rep, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Export.Warnings) != 1 || !strings.Contains(rep.Export.Warnings[0], "1 record is not on https://example.org, where the documents are served: https://other.example.com (1)") {
		t.Errorf("warnings %q", rep.Export.Warnings)
	}
}

// TestExportStdin reads the export "-" with an explicit format; absolute
// locs need no base URL when the documents have their own.
func TestExportStdin(t *testing.T) {
	t.Parallel()
	cfg := exportCfg(t, "-")
	cfg.stdin = strings.NewReader("loc,lastmod\nhttps://example.org/a,2024-05-30T00:00:00+02:00\n")
	cfg.ExportFormat = "csv"
	cfg.DocsURL, cfg.BaseURL = cfg.BaseURL, BaseURL{}
	rep, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Export.Name != "stdin" || rep.Export.Listed != 1 || rep.Export.Changes != 1 {
		t.Errorf("report %+v", rep.Export)
	}
	cfg.ExportFormat = ""
	var fe *FieldError
	if _, err := Build(context.Background(), cfg); !errors.As(err, &fe) || fe.Field != "ExportFormat" || !errors.Is(err, errRequired) {
		t.Errorf("no format: %v, want ExportFormat required", err)
	}
}

// TestExportFatalErrors: what makes the whole export unreadable fails the
// build with a message that names it.
func TestExportFatalErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, file, content, want string }{
		{"unknown column", "r.csv", "loc,title\na,b\n", `unknown column "title"`},
		{"no format", "r.txt", "x", "ExportFormat is required: the name"},
		{"missing", "", "", "no such file"},
		{"empty", "r.jsonl", "\n\n", "holds no records; nothing was published"},
		{"header only", "r.csv", "loc,lastmod\n", "holds no records"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			export := filepath.Join(t.TempDir(), "missing.jsonl")
			if tc.file != "" {
				export = writeExport(t, tc.file, tc.content)
			}
			cfg := exportCfg(t, export)
			_, err := Build(context.Background(), cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
			if _, err := os.Stat(cfg.Out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("output left behind")
			}
		})
	}
}

// TestExportInterruptedWhileWaiting: an interrupt ends a build whose
// export is a pipe that sends nothing, and publishes nothing.
func TestExportInterruptedWhileWaiting(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	stdin := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = stdin }()
	w.Write([]byte(`{"loc":"https://example.org/a"}` + "\n"))
	cfg := exportCfg(t, "-")
	cfg.ExportFormat = "jsonl"
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := Build(ctx, cfg); done <- err }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Error("an interrupted build succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the build still waits for its input after the interrupt")
	}
	if _, err := os.Stat(cfg.Out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("output left behind: %v", err)
	}
}

// TestExportDeterministic: the same export gives the same bytes whatever
// the number of workers and however small the sorters' memory.
func TestExportDeterministic(t *testing.T) {
	t.Parallel()
	var outs []map[string]string
	for _, jobs := range []int{1, 2, 7} {
		cfg := exportCfg(t, "testdata/exports/catalogue.csv")
		cfg.Jobs = jobs
		if jobs == 7 {
			cfg.chunk = 1024
		}
		if _, err := Build(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, testenv.ReadTree(t, cfg.Out))
	}
	for i := 1; i < len(outs); i++ {
		if fmt.Sprint(outs[i]) != fmt.Sprint(outs[0]) {
			t.Errorf("build %d differs from build 0", i)
		}
	}
}

// TestExportChangesOfOneSecondSplit: records changed in one second, more
// than a Change List holds, are split between two lists, and the build
// says so, as it does for a tree.
func TestExportChangesOfOneSecondSplit(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	for i := range 12 {
		fmt.Fprintf(&sb, `{"loc":"r%d","lastmod":"2024-05-20T00:00:00Z"}`+"\n", i)
	}
	cfg := exportCfg(t, writeExport(t, "r.jsonl", sb.String()))
	cfg.Limits = Limits{MaxEntries: 5, MaxBytes: rsxml.MaxBytes}
	rep, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Export.Warnings) != 1 || !strings.Contains(rep.Export.Warnings[0], "the changes at 2024-05-20T00:00:00Z are more than one Change List holds") {
		t.Errorf("warnings %q", rep.Export.Warnings)
	}
}
