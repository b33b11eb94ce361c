package listwriter

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

// memFiles keeps the documents in memory and the body files in a
// temporary directory, which must be empty once a Writer is done.
type memFiles struct {
	dir   string
	docs  map[string]*bytes.Buffer
	order []string
	fail  string // Create fails for this name
}

func newFiles(t *testing.T) *memFiles {
	return &memFiles{dir: t.TempDir(), docs: map[string]*bytes.Buffer{}}
}

type nopCloser struct{ *bytes.Buffer }

func (nopCloser) Close() error { return nil }

func (f *memFiles) Create(name string) (io.WriteCloser, error) {
	if name == f.fail {
		return nil, errors.New("disk full")
	}
	if _, dup := f.docs[name]; dup {
		return nil, fmt.Errorf("%s: %w", name, os.ErrExist)
	}
	b := &bytes.Buffer{}
	f.docs[name] = b
	f.order = append(f.order, name)
	return nopCloser{b}, nil
}

func (f *memFiles) Temp() (*os.File, error) { return os.CreateTemp(f.dir, "body-*") }

func (f *memFiles) checkNoBody(t *testing.T) {
	t.Helper()
	if left, _ := os.ReadDir(f.dir); len(left) > 0 {
		t.Errorf("%d body files left", len(left))
	}
}

const base = "https://example.org/rs/"

func url(name string) string { return base + name }

func entries(n int) []rsxml.Entry {
	es := make([]rsxml.Entry, n)
	for i := range es {
		es[i] = rsxml.Entry{Loc: fmt.Sprintf("https://example.org/f%03d", i),
			MD: rsxml.MD{Datetime: fmt.Sprintf("2024-06-01T00:%02d:%02dZ", i/60, i%60), Change: rsxml.ChangeCreated}}
	}
	return es
}

func listDoc() rsxml.Doc {
	return rsxml.Doc{MD: rsxml.MD{Capability: rsxml.CapResourceList, At: "2024-06-01T00:00:00Z"},
		Links: []rsxml.Link{{Rel: "up", Href: url("capabilitylist.xml")}}}
}

// write writes es through a Writer of opt, and fails the test on an error.
func write(t *testing.T, f *memFiles, opt Options, es []rsxml.Entry) Written {
	t.Helper()
	wl, err := writeErr(f, opt, es)
	if err != nil {
		t.Fatal(err)
	}
	f.checkNoBody(t)
	return wl
}

func writeErr(f *memFiles, opt Options, es []rsxml.Entry) (Written, error) {
	if opt.URL == nil {
		opt.URL = url
	}
	w := New(f, opt)
	defer w.Abort()
	for i := range es {
		if err := w.Add(&es[i]); err != nil {
			return Written{}, err
		}
	}
	return w.Close()
}

// render is a document as rsxml.Writer writes it.
func render(doc rsxml.Doc, es []rsxml.Entry) string {
	var b bytes.Buffer
	w := rsxml.NewWriter(&b, doc)
	for i := range es {
		w.Add(&es[i])
	}
	w.Close()
	return b.String()
}

func entrySize(e *rsxml.Entry) int64 { return int64(len(rsxml.AppendEntry(nil, false, e))) }

// partDocOf is the root of a part of doc, linked to the index at name.
func partDocOf(doc rsxml.Doc, name string) rsxml.Doc {
	doc.Links = append(slices.Clone(doc.Links), rsxml.Link{Rel: "index", Href: url(name + ".xml")})
	return doc
}

func TestWholeList(t *testing.T) {
	t.Parallel()
	f := newFiles(t)
	es := entries(5)
	wl := write(t, f, Options{Name: "resourcelist", Doc: listDoc()}, es)
	if wl.Name != "resourcelist.xml" || wl.Index || wl.Docs != 1 || len(wl.Parts) != 1 || wl.Parts[0].Entries != 5 {
		t.Fatalf("wrote %+v, want resourcelist.xml whole", wl)
	}
	if got, want := f.docs["resourcelist.xml"].String(), render(listDoc(), es); got != want {
		t.Errorf("whole list:\n%s\nwant (no rel=\"index\"):\n%s", got, want)
	}
	if len(f.docs) != 1 {
		t.Errorf("wrote %v", f.order)
	}
}

func TestEmptyList(t *testing.T) {
	t.Parallel()
	f := newFiles(t)
	wl := write(t, f, Options{Name: "resourcelist", Doc: listDoc()}, nil)
	if wl.Docs != 1 || f.docs["resourcelist.xml"].String() != render(listDoc(), nil) {
		t.Errorf("wrote %+v: %q", wl, f.docs["resourcelist.xml"])
	}
}

// TestCutAtMaxEntries: a list of exactly MaxEntries is whole; one more
// entry splits it, and each part but the last is full.
func TestCutAtMaxEntries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n, max int
		parts  []int // entries per part; nil: whole
	}{
		{n: 10, max: 10},
		{n: 11, max: 10, parts: []int{10, 1}},
		{n: 30, max: 10, parts: []int{10, 10, 10}},
		{n: 7, max: 3, parts: []int{3, 3, 1}},
		{n: 1, max: 1},
		{n: 4, max: 2, parts: []int{2, 2}},
	} {
		t.Run(fmt.Sprintf("%d by %d", tc.n, tc.max), func(t *testing.T) {
			f := newFiles(t)
			es := entries(tc.n)
			doc := listDoc()
			wl := write(t, f, Options{Name: "resourcelist", Doc: doc, Limits: Limits{MaxEntries: tc.max}}, es)
			checkParts(t, f, wl, doc, es, tc.parts)
		})
	}
}

// checkParts checks that wl split es into parts of the given sizes (nil:
// whole), each the bytes rsxml.Writer writes with the root of a part, and
// an index over them.
func checkParts(t *testing.T, f *memFiles, wl Written, doc rsxml.Doc, es []rsxml.Entry, parts []int) {
	t.Helper()
	if parts == nil {
		if wl.Index || len(wl.Parts) != 1 || f.docs["resourcelist.xml"].String() != render(doc, es) {
			t.Fatalf("wrote %+v, want a whole list", wl)
		}
		return
	}
	var got []int
	for _, p := range wl.Parts {
		got = append(got, p.Entries)
	}
	if !slices.Equal(got, parts) {
		t.Fatalf("parts of %v entries, want %v", got, parts)
	}
	if !wl.Index || wl.Name != "resourcelist.xml" || wl.Docs != len(parts)+1 {
		t.Fatalf("wrote %+v, want an index over %d parts", wl, len(parts))
	}
	first := 0
	var index []rsxml.Entry
	for i, p := range wl.Parts {
		if want := fmt.Sprintf("resourcelist-%05d.xml", i+1); p.Name != want {
			t.Errorf("part %d named %s, want %s", i+1, p.Name, want)
		}
		want := render(partDocOf(doc, "resourcelist"), es[first:first+p.Entries])
		if got := f.docs[p.Name].String(); got != want {
			t.Errorf("part %d:\n%s\nwant:\n%s", i+1, got, want)
		}
		first += p.Entries
		index = append(index, rsxml.Entry{Loc: url(p.Name), MD: p.MD})
	}
	idx := rsxml.Doc{Index: true, MD: doc.MD, Links: doc.Links}
	if got, want := f.docs["resourcelist.xml"].String(), render(idx, index); got != want {
		t.Errorf("index:\n%s\nwant:\n%s", got, want)
	}
	if f.order[len(f.order)-1] != "resourcelist.xml" {
		t.Errorf("wrote %v: the index is not last", f.order)
	}
}

// TestCutAtMaxBytes: a part takes entries while it stays within MaxBytes,
// counted with the root of a part, and not one byte more.
func TestCutAtMaxBytes(t *testing.T) {
	t.Parallel()
	es := entries(4)
	doc := listDoc()
	pd := partDocOf(doc, "resourcelist")
	fixed := int64(len(rsxml.AppendHeader(nil, &pd)) + len(rsxml.AppendFooter(nil, &pd)))
	three := fixed
	for i := range 3 {
		three += entrySize(&es[i])
	}
	for _, tc := range []struct {
		name  string
		max   int64
		parts []int
	}{
		{name: "three fit exactly", max: three, parts: []int{3, 1}},
		{name: "one byte short of three", max: three - 1, parts: []int{2, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFiles(t)
			wl := write(t, f, Options{Name: "resourcelist", Doc: doc, Limits: Limits{MaxBytes: tc.max}}, es)
			checkParts(t, f, wl, doc, es, tc.parts)
			for _, p := range wl.Parts {
				if n := int64(f.docs[p.Name].Len()); n > tc.max {
					t.Errorf("%s is %d bytes, over %d", p.Name, n, tc.max)
				}
			}
		})
	}
}

// TestEntryTooLarge: an entry that does not fit a document alone is an
// error that names it; no body file is left.
func TestEntryTooLarge(t *testing.T) {
	t.Parallel()
	f := newFiles(t)
	es := entries(3)
	es[1].Loc = "https://example.org/" + strings.Repeat("x", 5000)
	_, err := writeErr(f, Options{Name: "resourcelist", Doc: listDoc(), Limits: Limits{MaxBytes: 4096}}, es)
	var ee *EntryError
	if !errors.As(err, &ee) || ee.Loc != es[1].Loc || ee.List != "resourcelist" || ee.Limit != 4096 || !strings.Contains(err.Error(), es[1].Loc) {
		t.Fatalf("error %v, want an EntryError naming %s", err, es[1].Loc)
	}
	f.checkNoBody(t)
}

// TestIndexLimits: an index is never split: parts too many for its
// entries, or for its bytes, are an error.
func TestIndexLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		n      int
		limits Limits
		bytes  bool
	}{
		{name: "as many parts as entries", n: 9, limits: Limits{MaxEntries: 3}},
		{name: "one part too many", n: 10, limits: Limits{MaxEntries: 3}},
		{name: "index over the bytes", n: 200, limits: Limits{MaxBytes: 1200}, bytes: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFiles(t)
			_, err := writeErr(f, Options{Name: "resourcelist", Doc: listDoc(), Limits: tc.limits}, entries(tc.n))
			f.checkNoBody(t)
			if tc.n == 9 {
				if err != nil {
					t.Fatalf("an index of 3 parts with MaxEntries 3: %v", err)
				}
				return
			}
			var ie *IndexError
			if !errors.As(err, &ie) || (ie.Bytes > 0) != tc.bytes {
				t.Fatalf("error %v, want an IndexError (over the bytes: %v)", err, tc.bytes)
			}
			if _, ok := f.docs["resourcelist.xml"]; ok {
				t.Error("an index was written")
			}
		})
	}
}

// TestChangeParts: each part of a change document covers its own
// interval; they meet at the time of the first entry of the next part.
func TestChangeParts(t *testing.T) {
	t.Parallel()
	es := entries(7)
	for _, open := range []bool{false, true} {
		t.Run(fmt.Sprintf("open %v", open), func(t *testing.T) {
			doc := rsxml.Doc{MD: rsxml.MD{Capability: rsxml.CapChangeList, From: "2024-05-01T00:00:00Z", Until: "2024-07-01T00:00:00Z"},
				Links: []rsxml.Link{{Rel: "up", Href: url("capabilitylist.xml")}}}
			if open {
				doc.MD.Until = ""
			}
			f := newFiles(t)
			wl := write(t, f, Options{Name: "changelist", Doc: doc, Limits: Limits{MaxEntries: 3},
				Time: func(e *rsxml.Entry) string { return e.MD.Datetime }}, es)
			want := []Part{
				{Name: "changelist-00001.xml", Entries: 3, From: doc.MD.From, Until: es[3].MD.Datetime},
				{Name: "changelist-00002.xml", Entries: 3, From: es[3].MD.Datetime, Until: es[6].MD.Datetime},
				{Name: "changelist-00003.xml", Entries: 1, From: es[6].MD.Datetime, Until: doc.MD.Until},
			}
			for i := range want {
				want[i].MD = rsxml.MD{From: want[i].From, Until: want[i].Until}
			}
			if !slices.EqualFunc(wl.Parts, want, func(a, b Part) bool {
				return a.Name == b.Name && a.Entries == b.Entries && a.From == b.From && a.Until == b.Until && a.MD.From == b.MD.From && a.MD.Until == b.MD.Until
			}) {
				t.Fatalf("parts %+v\nwant %+v", wl.Parts, want)
			}
			for i, p := range wl.Parts {
				pd := partDocOf(doc, "changelist")
				pd.MD.From, pd.MD.Until = p.From, p.Until
				if got, want := f.docs[p.Name].String(), render(pd, es[3*i:min(3*i+3, len(es))]); got != want {
					t.Errorf("part %d:\n%s\nwant:\n%s", i+1, got, want)
				}
			}
		})
	}
}

// TestExternalIndex: with the caller's index, a whole list links to it
// too, and no index is written.
func TestExternalIndex(t *testing.T) {
	t.Parallel()
	doc := rsxml.Doc{MD: rsxml.MD{Capability: rsxml.CapChangeList, From: "2024-05-01T00:00:00Z", Until: "2024-07-01T00:00:00Z"}}
	opt := Options{Name: "changelist-20240701T000000Z", Doc: doc, Index: url("changelist.xml"), Limits: Limits{MaxEntries: 4},
		Time: func(e *rsxml.Entry) string { return e.MD.Datetime }}
	es := entries(4)
	f := newFiles(t)
	wl := write(t, f, opt, es)
	whole := doc
	whole.Links = []rsxml.Link{{Rel: "index", Href: url("changelist.xml")}}
	if got, want := f.docs["changelist-20240701T000000Z.xml"].String(), render(whole, es); got != want || len(f.docs) != 1 {
		t.Errorf("whole list (of %v):\n%s\nwant:\n%s", f.order, got, want)
	}
	if p := wl.Parts[0]; p.From != doc.MD.From || p.Until != doc.MD.Until {
		t.Errorf("part %+v, want the interval of the list", p)
	}
	f = newFiles(t)
	wl = write(t, f, opt, entries(5))
	if len(wl.Parts) != 2 || len(f.docs) != 2 || wl.Docs != 2 || wl.Index {
		t.Errorf("wrote %v (%+v), want two parts and no index", f.order, wl)
	}
}

// TestApart: parts for a caller that lists them in no index link to none,
// and Close writes none; each covers its share of the interval.
func TestApart(t *testing.T) {
	t.Parallel()
	doc := rsxml.Doc{MD: rsxml.MD{Capability: rsxml.CapChangeList, From: "2024-05-01T00:00:00Z", Until: "2024-07-01T00:00:00Z"},
		Links: []rsxml.Link{{Rel: "up", Href: url("capabilitylist.xml")}}}
	opt := Options{Name: "archive/changelist-20240701T000000Z", Doc: doc, Apart: true, Limits: Limits{MaxEntries: 4},
		Time: func(e *rsxml.Entry) string { return e.MD.Datetime }}
	f := newFiles(t)
	es := entries(4)
	write(t, f, opt, es)
	if got, want := f.docs["archive/changelist-20240701T000000Z.xml"].String(), render(doc, es); got != want || len(f.docs) != 1 {
		t.Errorf("whole list (of %v):\n%s\nwant:\n%s", f.order, got, want)
	}
	f = newFiles(t)
	es = entries(9)
	wl := write(t, f, opt, es)
	if len(wl.Parts) != 3 || len(f.docs) != 3 || wl.Docs != 3 || wl.Index || wl.Name != "" {
		t.Fatalf("wrote %v (%+v), want three parts and no index", f.order, wl)
	}
	for i, p := range wl.Parts {
		part := doc
		part.MD.From, part.MD.Until = p.From, p.Until
		if got, want := f.docs[p.Name].String(), render(part, es[4*i:min(4*i+4, len(es))]); got != want {
			t.Errorf("part %s:\n%s\nwant:\n%s", p.Name, got, want)
		}
		if i > 0 && p.From != wl.Parts[i-1].Until {
			t.Errorf("part %s starts at %s, not where the one before ends (%s)", p.Name, p.From, wl.Parts[i-1].Until)
		}
	}
}

// TestPartMD: the entry of a part in the index is PartMD of its first
// and last entries.
func TestPartMD(t *testing.T) {
	t.Parallel()
	es := entries(5)
	for i := range es {
		es[i].MD = rsxml.MD{At: fmt.Sprintf("2024-06-01T00:00:0%dZ", i), Completed: fmt.Sprintf("2024-06-01T00:01:0%dZ", i)}
	}
	f := newFiles(t)
	wl := write(t, f, Options{Name: "resourcedump", Doc: listDoc(), Limits: Limits{MaxEntries: 3},
		PartMD: func(first, last *rsxml.MD) rsxml.MD { return rsxml.MD{At: first.At, Completed: last.Completed} }}, es)
	var got []string
	for _, p := range wl.Parts {
		got = append(got, p.MD.At+" "+p.MD.Completed)
	}
	want := []string{es[0].MD.At + " " + es[2].MD.Completed, es[3].MD.At + " " + es[4].MD.Completed}
	if !slices.Equal(got, want) {
		t.Errorf("index entries %q, want %q", got, want)
	}
}

// TestCreateFails: a document that cannot be created fails the list with
// its name, and leaves no body file.
func TestCreateFails(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"resourcelist-00001.xml", "resourcelist-00002.xml", "resourcelist.xml"} {
		f := newFiles(t)
		f.fail = name
		_, err := writeErr(f, Options{Name: "resourcelist", Doc: listDoc(), Limits: Limits{MaxEntries: 3}}, entries(5))
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("Create of %s failing: error %v", name, err)
		}
		f.checkNoBody(t)
	}
}

func TestFitOldestAndMeasure(t *testing.T) {
	t.Parallel()
	es := entries(10)
	doc := rsxml.Doc{Index: true, MD: rsxml.MD{Capability: rsxml.CapChangeList}}
	size := int64(len(render(doc, es[4:])))
	for _, tc := range []struct {
		n      int
		limits Limits
		drop   int
		fits   bool
	}{
		{n: 6, limits: Limits{MaxEntries: 7}, drop: 3, fits: true},
		{n: 2, limits: Limits{MaxEntries: 7}, drop: 2, fits: false},
		{n: 10, limits: Limits{MaxBytes: size}, drop: 4, fits: true},
		{n: 3, limits: Limits{MaxBytes: size}, drop: 3, fits: false},
		{n: 10, limits: Limits{MaxEntries: 10}, drop: 0, fits: true},
	} {
		if drop, fits := FitOldest(&doc, es, tc.n, tc.limits); drop != tc.drop || fits != tc.fits {
			t.Errorf("FitOldest of %d droppable within %+v: %d, %v; want %d, %v", tc.n, tc.limits, drop, fits, tc.drop, tc.fits)
		}
	}
	m := NewMeasure(&doc, Limits{MaxBytes: size})
	for i := range es[4:] {
		if !m.Add(&es[4+i]) {
			t.Fatalf("Measure: entry %d does not fit, all do", 4+i)
		}
	}
	if m.Add(&es[0]) {
		t.Error("Measure: one entry over fits")
	}
}

// TestMeasureRoom: Room says whether n more entries fit, to the byte and
// to the entry; AddSize counts what the caller rendered itself.
func TestMeasureRoom(t *testing.T) {
	t.Parallel()
	doc := listDoc()
	fixed := int64(len(render(doc, nil)))
	m := NewMeasure(&doc, Limits{MaxEntries: 3, MaxBytes: fixed + 100})
	if m.Size() != fixed || !m.Fits() {
		t.Fatalf("empty: %d bytes (want %d), fits %v", m.Size(), fixed, m.Fits())
	}
	if !m.Room(100, 3) || m.Room(101, 1) || m.Room(0, 4) {
		t.Error("Room of an empty document: wrong at the byte or entry limit")
	}
	m.AddSize(60, 2)
	if !m.Room(40, 1) || m.Room(41, 1) || m.Room(0, 2) {
		t.Error("Room after 2 entries of 60 bytes: wrong at the byte or entry limit")
	}
}

// TestChangePartCutAtMaxBytes: a part of a change document is measured
// with its own from and until, to the byte: a part that fits exactly is
// not cut short.
func TestChangePartCutAtMaxBytes(t *testing.T) {
	t.Parallel()
	es := entries(6)
	doc := rsxml.Doc{MD: rsxml.MD{Capability: rsxml.CapChangeList, From: "2024-05-01T00:00:00Z", Until: "2024-07-01T00:00:00Z"}}
	pd := partDocOf(doc, "changelist")
	pd.MD.Until = es[3].MD.Datetime
	exact := int64(len(render(pd, es[:3])))
	for _, tc := range []struct {
		max   int64
		parts []int
	}{
		{max: exact, parts: []int{3, 3}},
		{max: exact - 1, parts: []int{2, 2, 2}},
	} {
		f := newFiles(t)
		wl := write(t, f, Options{Name: "changelist", Doc: doc, Index: url("changelist.xml"), Limits: Limits{MaxBytes: tc.max},
			Time: func(e *rsxml.Entry) string { return e.MD.Datetime }}, es)
		var got []int
		for _, p := range wl.Parts {
			got = append(got, p.Entries)
			if n := int64(f.docs[p.Name].Len()); n > tc.max {
				t.Errorf("%s is %d bytes, over %d", p.Name, n, tc.max)
			}
		}
		if !slices.Equal(got, tc.parts) {
			t.Errorf("MaxBytes %d: parts of %v entries, want %v", tc.max, got, tc.parts)
		}
	}
}

// TestAddHoldsNoEntry: past the first entry, Add allocates (almost)
// nothing: the Writer renders into one buffer and keeps no entry, so its
// memory does not grow with the list.
func TestAddHoldsNoEntry(t *testing.T) { // not parallel: it counts the bytes the process allocates
	f := newFiles(t)
	w := New(f, Options{Name: "changelist", Doc: listDoc(), URL: url, Time: func(e *rsxml.Entry) string { return e.MD.Datetime }})
	defer w.Abort()
	e := entries(1)[0]
	if err := w.Add(&e); err != nil {
		t.Fatal(err)
	}
	// Bytes, not allocations: a slice that kept every entry would grow
	// by doubling, a few allocations in all, but of their whole size.
	const n = 2000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		if err := w.Add(&e); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if grown := after.TotalAlloc - before.TotalAlloc; grown > n*8 {
		t.Errorf("%d entries added: %d bytes allocated, more than an entry's %d bytes would take if kept", n, grown, entrySize(&e))
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.checkNoBody(t)
}

// TestAddRendersNoHeader: a change document's entries each have their own
// time, and Add measures the root of a part only when it starts one.
func TestAddRendersNoHeader(t *testing.T) {
	f := newFiles(t)
	w := New(f, Options{Name: "changelist", Doc: listDoc(), URL: url, Time: func(e *rsxml.Entry) string { return e.MD.Datetime }})
	defer w.Abort()
	es := entries(600)
	if err := w.Add(&es[0]); err != nil {
		t.Fatal(err)
	}
	i := 1
	if allocs := testing.AllocsPerRun(500, func() {
		if err := w.Add(&es[i]); err != nil {
			t.Fatal(err)
		}
		i++
	}); allocs > 0 {
		t.Errorf("Add of entries of distinct times allocates %v times each", allocs)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestChangePartsBetweenTimes: the parts of a change document are split
// between two datetimes, never inside one (a Destination that resumes
// after the last datetime it saw would skip the rest): the entries of the
// time a full part ends with start the next, by count and by bytes; only a
// time with more entries than a part holds is split, and Written.Inside
// says so. Each part's until is the next one's from, and every entry lies
// within its part's.
func TestChangePartsBetweenTimes(t *testing.T) {
	t.Parallel()
	doc := rsxml.Doc{MD: rsxml.MD{Capability: rsxml.CapChangeList, From: "2024-05-01T00:00:00Z", Until: "2024-07-01T00:00:00Z"},
		Links: []rsxml.Link{{Rel: "up", Href: url("capabilitylist.xml")}}}
	// seconds gives the second of each entry's datetime.
	changes := func(seconds ...int) []rsxml.Entry {
		es := make([]rsxml.Entry, len(seconds))
		for i, s := range seconds {
			es[i] = rsxml.Entry{Loc: fmt.Sprintf("https://example.org/f%03d", i),
				MD: rsxml.MD{Datetime: fmt.Sprintf("2024-06-01T00:00:%02dZ", s), Change: rsxml.ChangeCreated}}
		}
		return es
	}
	oneEntry := entrySize(&changes(0)[0])
	pd := partDocOf(doc, "changelist")
	pd.MD.From, pd.MD.Until = "2024-06-01T00:00:00Z", "2024-06-01T00:00:00Z"
	fixed := int64(len(render(pd, nil)))
	for _, tc := range []struct {
		name    string
		limits  Limits
		seconds []int
		parts   []int
		inside  []string
	}{
		{"the cut falls between two times", Limits{MaxEntries: 3}, []int{1, 2, 3, 4, 5}, []int{3, 2}, nil},
		{"a time across the cut moves", Limits{MaxEntries: 3}, []int{1, 2, 2, 2, 3}, []int{1, 3, 1}, nil},
		{"two times across two cuts", Limits{MaxEntries: 4}, []int{1, 1, 2, 2, 2, 3, 3, 3, 3}, []int{2, 3, 4}, nil},
		{"by bytes", Limits{MaxBytes: fixed + 3*oneEntry}, []int{1, 2, 2, 2, 3}, []int{1, 3, 1}, nil},
		{"a time that fills a part alone", Limits{MaxEntries: 3}, []int{1, 2, 2, 2, 2, 3}, []int{1, 3, 2}, []string{"2024-06-01T00:00:02Z"}},
		{"a time longer than two parts", Limits{MaxEntries: 3}, []int{2, 2, 2, 2, 2, 2, 2}, []int{3, 3, 1}, []string{"2024-06-01T00:00:02Z"}},
		{"a moved time that fills the next part", Limits{MaxEntries: 4}, []int{1, 2, 2, 2, 2, 2, 2, 3}, []int{1, 4, 3}, []string{"2024-06-01T00:00:02Z"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es := changes(tc.seconds...)
			f := newFiles(t)
			wl := write(t, f, Options{Name: "changelist", Doc: doc, Index: url("changelist.xml"), Limits: tc.limits,
				Time: func(e *rsxml.Entry) string { return e.MD.Datetime }}, es)
			var got []int
			i := 0
			for k, p := range wl.Parts {
				got = append(got, p.Entries)
				if k > 0 && p.From != wl.Parts[k-1].Until {
					t.Errorf("%s starts at %s, but the part before ends at %s", p.Name, p.From, wl.Parts[k-1].Until)
				}
				pd := partDocOf(doc, "changelist")
				pd.MD.From, pd.MD.Until = p.From, p.Until
				if got, want := f.docs[p.Name].String(), render(pd, es[i:min(i+p.Entries, len(es))]); got != want {
					t.Errorf("%s:\n%s\nwant:\n%s", p.Name, got, want)
				}
				for _, e := range es[i:min(i+p.Entries, len(es))] {
					if e.MD.Datetime < p.From || e.MD.Datetime > p.Until {
						t.Errorf("%s: a change at %s, outside %s..%s", p.Name, e.MD.Datetime, p.From, p.Until)
					}
				}
				i += p.Entries
				if n := int64(f.docs[p.Name].Len()); tc.limits.MaxBytes > 0 && n > tc.limits.MaxBytes {
					t.Errorf("%s is %d bytes, over %d", p.Name, n, tc.limits.MaxBytes)
				}
			}
			if !slices.Equal(got, tc.parts) || !slices.Equal(wl.Inside, tc.inside) {
				t.Errorf("parts of %v entries, split inside %v; want %v, %v", got, wl.Inside, tc.parts, tc.inside)
			}
			if wl.Parts[0].From != doc.MD.From || wl.Parts[len(wl.Parts)-1].Until != doc.MD.Until {
				t.Errorf("parts from %s until %s, want the list's %s, %s", wl.Parts[0].From, wl.Parts[len(wl.Parts)-1].Until, doc.MD.From, doc.MD.Until)
			}
		})
	}
}
