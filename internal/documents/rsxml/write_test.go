package rsxml

import (
	"bytes"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func TestAppendEscaped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		read           string // what an XML parser reads back; in if empty
	}{
		{name: "plain URL", in: "https://example.org/a%20b/c.html", want: "https://example.org/a%20b/c.html"},
		{name: "ampersand", in: "a&b", want: "a&amp;b"},
		{name: "angle brackets", in: "<x>", want: "&lt;x&gt;"},
		{name: "quote", in: `say "hi"`, want: "say &quot;hi&quot;"},
		{name: "apostrophe kept", in: "it's", want: "it's"},
		{name: "tab newline return as references", in: "a\tb\nc\rd", want: "a&#x9;b&#xA;c&#xD;d"},
		{name: "C0 controls", in: "a\x00b\x01c\x1f", want: "a\uFFFDb\uFFFDc\uFFFD", read: "a\uFFFDb\uFFFDc\uFFFD"},
		{name: "DEL is allowed", in: "a\x7fb", want: "a\x7fb"},
		{name: "multi-byte UTF-8 kept", in: "café ☕ 𝄞", want: "café ☕ 𝄞"},
		{name: "invalid UTF-8", in: "a\xffb\xc3", want: "a\uFFFDb\uFFFD", read: "a\uFFFDb\uFFFD"},
		{name: "non-characters U+FFFE U+FFFF", in: "a\uFFFEb\uFFFF", want: "a\uFFFDb\uFFFD", read: "a\uFFFDb\uFFFD"},
		{name: "special at both ends", in: "&plain&", want: "&amp;plain&amp;"},
		{name: "only specials", in: `&<>"`, want: "&amp;&lt;&gt;&quot;"},
		{name: "one character", in: "x", want: "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := appendEscaped([]byte("keep:"), tt.in)
			if string(got) != "keep:"+tt.want {
				t.Fatalf("appendEscaped(%q) = %q, want %q", tt.in, got, "keep:"+tt.want)
			}
			// What was written reads back as the input (with the
			// replacements), as an attribute and as text.
			esc := string(got[len("keep:"):])
			var v struct {
				A string `xml:"a,attr"`
				T string `xml:",chardata"`
			}
			if err := xml.Unmarshal([]byte(`<x a="`+esc+`">`+esc+`</x>`), &v); err != nil {
				t.Fatalf("escaped value is not well-formed: %v", err)
			}
			read := tt.read
			if read == "" {
				read = tt.in
			}
			if v.A != read || v.T != read {
				t.Errorf("read back attribute %q, text %q, want %q", v.A, v.T, read)
			}
		})
	}
	if got := appendEscaped(nil, ""); len(got) != 0 {
		t.Errorf("appendEscaped of \"\" = %q", got)
	}
}

// sampleDoc is a small Resource List with every kind of root and entry
// element the writer produces.
func sampleDoc() (Doc, []Entry) {
	doc := Doc{
		MD:    MD{Capability: CapResourceList, At: "2013-01-03T09:00:00Z", Completed: "2013-01-03T09:01:00Z"},
		Links: []Link{{Rel: "up", Href: "http://example.com/dataset1/capabilitylist.xml"}},
	}
	entries := []Entry{
		{
			Loc:     "http://example.com/res1",
			Lastmod: "2013-01-02T13:00:00Z",
			MD:      MD{Hash: "md5:1584abdf8ebdc9802ac0c6a7402c03b6", Length: "8876", Type: "text/html"},
		},
		{
			Loc:     "http://example.com/res2?a=1&b=2",
			Lastmod: "2013-01-02T14:00:00Z",
			MD:      MD{Hash: "md5:1e0d5cb8ef6ba40c99b14c0237be735e sha-256:854f61290e2e197a11bc91063afce22e43f8ccc655237050ace766adc68dc784", Length: "14599", Type: "application/pdf"},
			Links:   []Link{{Rel: "duplicate", Href: "http://mirror.example.com/res2", Pri: "1", Modified: "2013-01-02T14:00:00Z"}},
		},
		{Loc: "http://example.com/res3"},
	}
	return doc, entries
}

// TestWriterGolden writes a list and an index and compares them with the
// golden files (go test -run TestWriterGolden -update rewrites them).
func TestWriterGolden(t *testing.T) {
	t.Parallel()
	doc, entries := sampleDoc()
	index := Doc{Index: true, MD: doc.MD, Links: doc.Links}
	tests := []struct {
		name    string
		doc     Doc
		entries []Entry
	}{
		{"resourcelist.xml", doc, entries},
		{"resourcelist-index.xml", index, []Entry{{Loc: "http://example.com/resourcelist-00001.xml", MD: MD{At: "2013-01-03T09:00:00Z"}}}},
		{"empty.xml", Doc{MD: MD{Capability: CapChangeList, From: "2013-01-03T00:00:00Z"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := NewWriter(&buf, tt.doc)
			for i := range tt.entries {
				if err := w.Add(&tt.entries[i]); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if w.Size() != int64(buf.Len()) {
				t.Errorf("Size %d; wrote %d bytes", w.Size(), buf.Len())
			}
			golden := filepath.Join("testdata", "golden", tt.name)
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("output differs from %s:\n%s", golden, buf.Bytes())
			}
			// The document reads back as written.
			rdoc, got, err := ReadAll(bytes.NewReader(buf.Bytes()), ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rdoc.Index != tt.doc.Index || rdoc.MD.Capability != tt.doc.MD.Capability || len(got) != len(tt.entries) {
				t.Fatalf("read back index=%v capability=%q with %d entries", rdoc.Index, rdoc.MD.Capability, len(got))
			}
			for i, e := range got {
				want := tt.entries[i]
				if e.Loc != want.Loc || e.Lastmod != want.Lastmod || e.MD.Hash != want.MD.Hash ||
					e.MD.Length != want.MD.Length || e.MD.Type != want.MD.Type || e.MD.At != want.MD.At || len(e.Links) != len(want.Links) {
					t.Errorf("entry %d read back as %+v, want %+v", i, e, want)
				}
			}
		})
	}
}

// TestAppendEntryMatchesWriter checks the promise the list planner relies
// on: AppendHeader + AppendEntry... + AppendFooter are the Writer's bytes.
func TestAppendEntryMatchesWriter(t *testing.T) {
	t.Parallel()
	doc, entries := sampleDoc()
	for _, index := range []bool{false, true} {
		doc.Index = index
		var buf bytes.Buffer
		w := NewWriter(&buf, doc)
		planned := AppendHeader(nil, &doc)
		for i := range entries {
			w.Add(&entries[i])
			planned = AppendEntry(planned, index, &entries[i])
		}
		planned = AppendFooter(planned, &doc)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), planned) {
			t.Errorf("index=%v: planned bytes differ from written ones", index)
		}
	}
}

// failWriter fails every write after the first n bytes.
type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n := f.n
		f.n = 0
		return n, os.ErrClosed
	}
	f.n -= len(p)
	return len(p), nil
}

func TestWriterErrorSticks(t *testing.T) {
	t.Parallel()
	doc, entries := sampleDoc()
	w := NewWriter(&failWriter{n: 100}, doc)
	// The writer buffers 64 KiB: the error shows at the latest on Close.
	var err error
	for range 2000 {
		if err = w.Add(&entries[0]); err != nil {
			break
		}
	}
	if cerr := w.Close(); cerr == nil || err != nil && cerr != err {
		t.Errorf("Add = %v, Close = %v; want the write error, sticking", err, cerr)
	}
	if err := w.Add(&entries[0]); err == nil {
		t.Error("Add after a failed write succeeded")
	}
}

// A type the official schema rejects is left out, of rs:md and rs:ln.
func TestWriteLeavesOutSchemaRejectedTypes(t *testing.T) {
	t.Parallel()
	e := Entry{Loc: "https://example.org/a.docx", MD: MD{Type: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", Length: "3"},
		Links: []Link{{Rel: "alternate", Href: "https://example.org/a.pdf", Type: "text/html; charset=utf-8"}, {Rel: "describedby", Href: "https://example.org/a.json", Type: "application/ld+json"}}}
	got := string(AppendEntry(nil, false, &e))
	if strings.Count(got, "type=") != 1 || !strings.Contains(got, `type="application/ld+json"`) || !strings.Contains(got, `length="3"`) {
		t.Errorf("wrote\n%s\nwant only the type application/ld+json", got)
	}
}
