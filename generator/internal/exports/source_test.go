package exports

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator/internal/docs/docstest"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/testenv"
)

var snapshot = time.Date(2024, 6, 2, 0, 0, 0, 0, time.UTC)

// openExport writes lines as the JSON Lines export r.jsonl, beside the
// file files/c.txt, and opens it with documents written into a stage of
// their own. The caller closes it.
func openExport(t *testing.T, lines []string, skipBad bool) *Source {
	t.Helper()
	return openExportWith(t, lines, func(o *Options) { o.SkipBadRecords = skipBad })
}

// openExportWith is openExport with the options that set gives.
func openExportWith(t *testing.T, lines []string, set func(*Options)) *Source {
	t.Helper()
	dir := t.TempDir()
	testenv.WriteFile(t, dir, "files/c.txt", "the bytes of c")
	export := testenv.WriteFile(t, dir, "r.jsonl", strings.Join(lines, "\n")+"\n")
	base, err := uri.ParseBase("https://example.org/")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{
		Export: export,
		Jobs:   2, Hashes: hashing.Set{hashing.SHA256}, Base: base, At: snapshot,
		SortDir:  filepath.Join(t.TempDir(), "sort"),
		Docs:     docstest.Writer(t),
		Stats:    new(report.Stats),
		Problems: new(report.Problems),
	}
	set(&opt)
	s, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// locs returns the locs of the document name of s's stage, in order.
func locs(t *testing.T, s *Source, name string) []string {
	t.Helper()
	b, err := os.ReadFile(s.opt.Docs.Stage.Path("resourcesync/" + name))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile(`<loc>([^<]*)</loc>`).FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	return out
}

// The steps of a build from an export, in the build's order: the
// Resource List lists the published records sorted by loc, with the
// digest and length of a local file; a tombstone is not in it, nor a
// draft; the Change List holds, oldest first, the record created, the
// tombstone and the record updated; Report counts them all; Close
// removes the sorted records.
func TestSourceSteps(t *testing.T) {
	t.Parallel()
	s := openExport(t, []string{
		`{"loc":"c","lastmod":"2024-06-01T10:00:00Z","created":"2024-06-01T10:00:00Z","path":"files/c.txt"}`,
		`{"loc":"a","lastmod":"2024-06-01T12:00:00Z"}`,
		`{"loc":"b","deleted":"2024-06-01T11:00:00Z"}`,
		`{"loc":"d","status":"draft","lastmod":"2024-06-01T00:00:00Z"}`,
	}, false)
	defer s.Close() // again after the Close below: a second call does nothing
	if err := s.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteResourceList(snapshot.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteChangeList(); err != nil {
		t.Fatal(err)
	}

	if got, want := locs(t, s, "resourcelist.xml"), []string{"https://example.org/a", "https://example.org/c"}; !slices.Equal(got, want) {
		t.Errorf("the Resource List lists %v, want %v", got, want)
	}
	rl, _ := os.ReadFile(s.opt.Docs.Stage.Path("resourcesync/resourcelist.xml"))
	if !strings.Contains(string(rl), `hash="sha-256:`) || !strings.Contains(string(rl), `length="14"`) {
		t.Errorf("the Resource List has no digest and length of files/c.txt:\n%s", rl)
	}
	if got, want := locs(t, s, "changelist.xml"), []string{"https://example.org/c", "https://example.org/b", "https://example.org/a"}; !slices.Equal(got, want) {
		t.Errorf("the Change List lists %v, want %v", got, want)
	}
	cl, _ := os.ReadFile(s.opt.Docs.Stage.Path("resourcesync/changelist.xml"))
	if got := regexp.MustCompile(`change="(\w+)"`).FindAllStringSubmatch(string(cl), -1); len(got) != 3 ||
		got[0][1] != "created" || got[1][1] != "deleted" || got[2][1] != "updated" {
		t.Errorf("the Change List's changes are %v, want created, deleted, updated", got)
	}
	rep := s.Report()
	if rep.Records != 4 || rep.Listed != 2 || rep.Tombstones != 1 || rep.Withheld["draft"] != 1 || !rep.ChangeList || rep.Changes != 3 {
		t.Errorf("report %+v, want 4 records, 2 listed, 1 tombstone, 1 draft withheld, a Change List of 3", rep)
	}

	sortDir := s.opt.SortDir
	if _, err := os.Stat(sortDir); err != nil {
		t.Fatalf("no directory of sorted records while the export is open: %v", err)
	}
	s.Close()
	if _, err := os.Stat(sortDir); !os.IsNotExist(err) {
		t.Errorf("the sorted records are still there after Close: %v", err)
	}
}

// The lengths an export gives may sum past what an int64 holds: the total
// saturates rather than turning negative.
func TestSourceBytesSaturate(t *testing.T) {
	t.Parallel()
	s := openExport(t, []string{`{"loc":"a","length":9223372036854775807}`, `{"loc":"b","length":1}`, `{"loc":"c","length":5}`}, false)
	defer s.Close()
	if err := s.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if got := s.Report().Bytes; got != math.MaxInt64 {
		t.Errorf("Bytes = %d, want math.MaxInt64", got)
	}
}

// Stats.Found counts the records as they are read, before a batch fills:
// from a slow pipe, the progress said 0 records for as long as it took
// to read 256 of them.
func TestSourceCountsRecordsAsRead(t *testing.T) {
	t.Parallel()
	in := &slowInput{lines: []string{`{"loc":"a"}` + "\n", `{"loc":"b"}` + "\n"}, asked: make(chan struct{}), goOn: make(chan struct{})}
	s := openExportWith(t, nil, func(o *Options) { o.Export, o.Format, o.Stdin = "-", "jsonl", in })
	defer s.Close()
	done := make(chan error)
	go func() { done <- s.Read(context.Background()) }()
	for want := range int64(2) {
		<-in.asked // every line given so far has been read
		if got := s.opt.Stats.Found.Load(); got != want+1 {
			t.Errorf("Found = %d after %d records, want %d", got, want+1, want+1)
		}
		in.goOn <- struct{}{}
	}
	if err := <-done; err != nil || s.Report().Records != 2 {
		t.Errorf("Read: %v, %d records, want 2", err, s.Report().Records)
	}
}

// slowInput gives one line a Read, as a slow pipe does: each Read but the
// first sends on asked, then waits on goOn, until it has given io.EOF.
type slowInput struct {
	lines       []string
	asked, goOn chan struct{}
	reads       int
	eof         bool
}

func (in *slowInput) Read(p []byte) (int, error) {
	if in.eof {
		return 0, io.EOF
	}
	if in.reads++; in.reads > 1 {
		in.asked <- struct{}{}
		<-in.goOn
	}
	if in.eof = len(in.lines) == 0; in.eof {
		return 0, io.EOF
	}
	n := copy(p, in.lines[0])
	in.lines = in.lines[1:]
	return n, nil
}

// A bad record fails the build at Check with a *BadRecordsError naming
// its line, unless bad records are skipped: each is then a problem, the
// others are listed, and Report counts it.
func TestSourceBadRecords(t *testing.T) {
	t.Parallel()
	lines := []string{`{"loc":"a"}`, `{"loc":"b","url":"x"}`}
	t.Run("failing", func(t *testing.T) {
		s := openExport(t, lines, false)
		defer s.Close()
		if err := s.Read(context.Background()); err != nil {
			t.Fatal(err)
		}
		var bad *BadRecordsError
		if err := s.Check(); !errors.As(err, &bad) || bad.Total != 1 || len(bad.Problems) != 1 || bad.Problems[0].Line != 2 {
			t.Errorf("Check: %v, want a BadRecordsError of line 2", err)
		}
	})
	t.Run("skipped", func(t *testing.T) {
		s := openExport(t, lines, true)
		defer s.Close()
		if err := s.Read(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := s.Check(); err != nil {
			t.Fatalf("Check: %v", err)
		}
		if problems := s.opt.Problems.Sorted(); len(problems) != 1 || problems[0].Line != 2 || s.Report().Bad != 1 || s.Report().Listed != 1 {
			t.Errorf("problems %v, report %+v; want one problem of line 2, 1 bad, 1 listed", problems, s.Report())
		}
	})
}

// Many bad records are reported in order of line, the first MaxReportedBad
// by name, and the first alone with FailFast (once generator's
// TestExportManyBadRecords).
func TestSourceManyBadRecords(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range 1500 {
		lines = append(lines, fmt.Sprintf(`{"loc":"r/%d","lastmod":"bad"}`, i))
	}
	for _, failFast := range []bool{false, true} {
		s := openExportWith(t, lines, func(o *Options) { o.Jobs, o.FailFast = 4, failFast })
		err := s.Read(context.Background())
		if err == nil {
			err = s.Check()
		}
		s.Close()
		var bad *BadRecordsError
		switch {
		case !errors.As(err, &bad):
			t.Errorf("FailFast %v: %v, want a BadRecordsError", failFast, err)
		case failFast && bad.Total != 1:
			t.Errorf("with FailFast: %v", err)
		case !failFast && (bad.Total != 1500 || len(bad.Problems) != MaxReportedBad):
			t.Errorf("%d bad records, %d named: %v", bad.Total, len(bad.Problems), err)
		case !failFast && (!slices.IsSortedFunc(bad.Problems, func(a, b report.Problem) int { return a.Line - b.Line }) || !strings.HasPrefix(bad.Error(), "1500 bad records in ") || !strings.HasSuffix(bad.Error(), "r.jsonl; nothing was published")):
			t.Errorf("problems not in order of line, or message %q", bad.Error())
		}
	}
}
