package rsxml

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rsgen/rsgen/internal/documents/mediatype"
)

// Limits the fuzz target reads with: small, so that the fuzzer reaches them.
const (
	fuzzMaxBytes   = 64 << 10
	fuzzMaxEntries = 64
)

// FuzzReaderBounded feeds the Reader arbitrary bytes. It must never panic,
// must stay within the limits it was given, and what it accepts must come
// back the same when written by a Writer and read again.
//
// Seeds: the spec's examples, and the files of testdata/fuzz/FuzzReaderBounded
// (hostile documents: entity bombs, DOCTYPEs, truncations, deep nesting).
func FuzzReaderBounded(f *testing.F) {
	for _, file := range exampleFiles(f) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rd, err := NewReader(bytes.NewReader(data), ReadOptions{MaxBytes: fuzzMaxBytes, MaxEntries: fuzzMaxEntries})
		if err != nil {
			checkReadError(t, err)
			return
		}
		var entries []*Entry
		for {
			e, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				checkReadError(t, err)
				return
			}
			if len(e.Loc) > 1<<16 || len(e.Lastmod) > 1<<16 {
				t.Fatalf("entry text of %d bytes passed the 64 KiB cap", max(len(e.Loc), len(e.Lastmod)))
			}
			entries = append(entries, e)
			if len(entries) > fuzzMaxEntries {
				t.Fatalf("%d entries read with MaxEntries %d", len(entries), fuzzMaxEntries)
			}
		}
		if len(data) > fuzzMaxBytes {
			t.Fatalf("a document of %d bytes was accepted with MaxBytes %d", len(data), fuzzMaxBytes)
		}
		if _, err := rd.Next(); err != io.EOF {
			t.Fatalf("Next after the end = %v, want io.EOF", err)
		}
		checkReuse(t, data, entries)
		checkRoundTrip(t, rd.Doc(), entries)
	})
}

// checkReuse reads data again with ReuseEntries: the entries must be
// those read without it.
func checkReuse(t *testing.T, data []byte, want []*Entry) {
	t.Helper()
	rd, err := NewReader(bytes.NewReader(data), ReadOptions{MaxBytes: fuzzMaxBytes, MaxEntries: fuzzMaxEntries, ReuseEntries: true})
	if err != nil {
		t.Fatalf("with ReuseEntries: %v", err)
	}
	var prev *Entry
	for i := 0; ; i++ {
		e, err := rd.Next()
		if err == io.EOF {
			if i != len(want) {
				t.Fatalf("with ReuseEntries: %d entries, want %d", i, len(want))
			}
			return
		}
		if err != nil || i >= len(want) {
			t.Fatalf("with ReuseEntries: entry %d: %v", i, err)
		}
		if prev != nil && e != prev {
			t.Fatalf("with ReuseEntries: entry %d is a new *Entry", i)
		}
		prev = e
		if !reflect.DeepEqual(e, want[i]) {
			t.Fatalf("with ReuseEntries: entry %d is\n%+v, want\n%+v", i, *e, *want[i])
		}
	}
}

// checkReadError checks that a Reader failed with one of its documented errors.
func checkReadError(t *testing.T, err error) {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrTooManyEntries) {
		t.Fatalf("error %v (%T) is neither a *SyntaxError, ErrTooLarge nor ErrTooManyEntries", err, err)
	}
}

// checkRoundTrip writes doc and entries with a Writer, reads them back and
// compares: what rsgen reads, it can write without loss.
func checkRoundTrip(t *testing.T, doc *Doc, entries []*Entry) {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, *doc)
	for _, e := range entries {
		w.Add(e)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	doc2, entries2, err := ReadAll(bytes.NewReader(buf.Bytes()), ReadOptions{})
	if err != nil {
		t.Fatalf("reading what the Writer wrote: %v\n%s", err, buf.Bytes())
	}
	if doc2.Index != doc.Index || !mdSame(&doc2.MD, &doc.MD) || !linksSame(doc2.Links, doc.Links) {
		t.Fatalf("root changed in a write and read:\nread    %+v\nwritten %+v\n%s", *doc, *doc2, buf.Bytes())
	}
	if len(entries2) != len(entries) {
		t.Fatalf("%d entries written, %d read back", len(entries), len(entries2))
	}
	for i, e := range entries {
		g := entries2[i]
		changefreq := e.Changefreq
		if doc.Index {
			changefreq = "" // <sitemap> has no <changefreq>; the Writer drops it
		}
		if g.Loc != e.Loc || g.Lastmod != e.Lastmod || g.Changefreq != changefreq || !mdSame(&g.MD, &e.MD) || !linksSame(g.Links, e.Links) {
			t.Fatalf("entry %d changed in a write and read:\nread    %+v\nwritten %+v\n%s", i, *e, *g, buf.Bytes())
		}
	}
}

// mdSame compares a, read back, with b, written: only attributes without a
// namespace are written, and a type only if the schema accepts it.
func mdSame(a, b *MD) bool {
	w := *b
	w.Type = writtenType(b.Type)
	return mdEqual(a, &w) && attrsSame(a.Extra, b.Extra)
}

// writtenType is what a Writer writes of a type attribute: nothing if the
// official schema refuses it (mediatype.SchemaValid).
func writtenType(t string) string {
	if !mediatype.SchemaValid(t) {
		return ""
	}
	return t
}

func linksSame(a, b []Link) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if !attrsSame(x.Extra, y.Extra) {
			return false
		}
		x.Extra, y.Extra, x.Line, y.Line, y.Type = nil, nil, 0, 0, writtenType(y.Type)
		if x.Rel != y.Rel || x.Href != y.Href || x.Type != y.Type || x.Hash != y.Hash || x.Length != y.Length ||
			x.Modified != y.Modified || x.Encoding != y.Encoding || x.Path != y.Path || x.Pri != y.Pri || x.Profile != y.Profile {
			return false
		}
	}
	return true
}

func attrsSame(a, b []Attr) bool {
	unqualified := func(as []Attr) []Attr {
		var out []Attr
		for _, x := range as {
			if x.Space == "" {
				out = append(out, x)
			}
		}
		return out
	}
	a, b = unqualified(a), unqualified(b)
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestFuzzReaderCorpus fails if the seed corpus of FuzzReaderBounded is
// missing: the fuzz target would then run on the examples alone, silently.
func TestFuzzReaderCorpus(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzReaderBounded", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("testdata/fuzz/FuzzReaderBounded holds %d seeds, want the hostile documents kept there", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte("go test fuzz v1\n")) {
			t.Errorf("%s is not in the Go fuzz corpus format: 'go test' would refuse it", f)
		}
	}
}
