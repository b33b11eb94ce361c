package docs

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/storage/stage"
)

func newWriter(t *testing.T, dir string, limits listwriter.Limits) *Writer {
	t.Helper()
	stg, err := stage.New(t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stg.Discard)
	return &Writer{Stage: stg, Base: "https://example.org/", Dir: dir, Limits: limits}
}

// The URLs of a set's documents are under its directory, and only the
// documents directly in it are its own.
func TestWriterURLs(t *testing.T) {
	t.Parallel()
	d := newWriter(t, "resourcesync/articles", listwriter.Limits{MaxEntries: rsxml.MaxEntries, MaxBytes: rsxml.MaxBytes})
	if got := d.CapabilityListURL(); got != "https://example.org/resourcesync/articles/capabilitylist.xml" {
		t.Errorf("CapabilityListURL %s", got)
	}
	if got := d.SourceDescriptionURL(); got != "https://example.org/.well-known/resourcesync" {
		t.Errorf("SourceDescriptionURL %s", got)
	}
	for rel, want := range map[string]bool{
		"resourcesync/articles/changelist.xml":         true,
		"resourcesync/articles/archive/changelist.xml": false,
		"resourcesync/changelist.xml":                  false,
		"resourcesync/articles2/changelist.xml":        false,
	} {
		if _, ok := d.Mine(rel); ok != want {
			t.Errorf("Mine(%s) = %v", rel, ok)
		}
	}
}

// A list past the limits is split under an index at its name; one whose
// index cannot hold its parts fails with a LimitError that names the
// limits to raise.
func TestWriterList(t *testing.T) {
	t.Parallel()
	fill := func(i int, e *rsxml.Entry) {
		*e = rsxml.Entry{Loc: "https://example.org/" + strings.Repeat("x", i+1)}
	}
	opt := listwriter.Options{Name: "resourcelist", Doc: rsxml.Doc{MD: rsxml.MD{Capability: rsxml.CapResourceList}}}
	d := newWriter(t, "resourcesync", listwriter.Limits{MaxEntries: 2, MaxBytes: rsxml.MaxBytes})
	wl, err := d.List(opt, 4, fill)
	if err != nil {
		t.Fatal(err)
	}
	if wl.Docs != 3 || d.N != 3 { // an index and two parts
		t.Errorf("%d documents written (N %d), want 3", wl.Docs, d.N)
	}
	d = newWriter(t, "resourcesync", listwriter.Limits{MaxEntries: 1, MaxBytes: rsxml.MaxBytes})
	var le *LimitError
	if _, err := d.List(opt, 3, fill); !errors.As(err, &le) || len(le.Raise) == 0 {
		t.Errorf("a list whose index cannot hold its parts: %v, want a LimitError", err)
	}
}

// failing reads a few bytes, then fails.
type failing struct{ n int }

var errRead = errors.New("the previous build went away")

func (f *failing) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errRead
	}
	f.n--
	p[0] = '<'
	return 1, nil
}

// Copy records the document copied; a failure of reading it is returned
// wrapped, for the caller to classify, not as one of writing.
func TestWriterCopy(t *testing.T) {
	t.Parallel()
	d := newWriter(t, "resourcesync", listwriter.Limits{MaxEntries: rsxml.MaxEntries, MaxBytes: rsxml.MaxBytes})
	if err := d.Copy("changelist-1.xml", "https://example.org/old.xml", io.NopCloser(strings.NewReader("<urlset/>"))); err != nil {
		t.Fatal(err)
	}
	if d.Copied["changelist-1.xml"] != "https://example.org/old.xml" || d.N != 1 {
		t.Errorf("Copied %v, N %d", d.Copied, d.N)
	}
	if b, err := os.ReadFile(d.Stage.Path("resourcesync/changelist-1.xml")); err != nil || string(b) != "<urlset/>" {
		t.Errorf("copied %q, %v", b, err)
	}
	err := d.Copy("changelist-2.xml", "https://example.org/gone.xml", io.NopCloser(&failing{n: 3}))
	if !errors.Is(err, errRead) || err.Error() != "reading again: https://example.org/gone.xml: "+errRead.Error() {
		t.Errorf("a failed read: %v", err)
	}
	// The reader of a previous build's document names it in its errors:
	// named once.
	const big = "https://example.org/resourcesync/changedump-20240602T000000Z-00001.zip"
	capped := &previous.Error{Doc: big, Kind: previous.ErrLimit, Err: errors.New("larger than the size allowed")}
	err = d.Copy("changedump.zip", big, io.NopCloser(iotest.ErrReader(capped)))
	if !errors.Is(err, previous.ErrLimit) || strings.Count(err.Error(), big) != 1 {
		t.Errorf("a document larger than allowed: %v", err)
	}
	if _, ok := d.Copied["changelist-2.xml"]; ok {
		t.Error("a failed copy is recorded")
	}
}
