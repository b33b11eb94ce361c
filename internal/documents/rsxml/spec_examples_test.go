package rsxml

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/hashing"
)

// specExamples is the copy of the spec's examples in the repository (see
// its README): tests must not depend on ../shared.
const specExamples = "../../../testdata/spec-examples"

// exampleWant is what reading one example must give: a few fields of the
// root, of its first and last entries, and the number of entries.
type exampleWant struct {
	index      bool
	capability string
	at, completed,
	from, until string
	up, indexLink string // hrefs of the root links rel="up" and rel="index"
	describedby   string
	entries       int
	firstLoc      string
	lastLoc       string
	first         MD     // the first entry's <rs:md> (Extra not compared)
	firstLink     string // rel of the first entry's first <rs:ln>, "" if none
	firstLinks    int    // number of <rs:ln> of the first entry
	lastmod       string // the first entry's <lastmod>
}

var exampleTable = map[string]exampleWant{
	"resourcesync_ex_1.xml": {capability: CapResourceList, at: "2013-01-03T09:00:00Z", entries: 2,
		firstLoc: "http://example.com/res1", lastLoc: "http://example.com/res2"},
	"resourcesync_ex_2.xml": {capability: CapResourceList, at: "2013-01-03T09:00:00Z", entries: 2,
		firstLoc: "http://example.com/res1", lastLoc: "http://example.com/res2", lastmod: "2013-01-02T13:00:00Z",
		first: MD{Hash: "md5:1584abdf8ebdc9802ac0c6a7402c03b6"}},
	"resourcesync_ex_3.xml": {capability: CapChangeList, from: "2013-01-02T00:00:00Z", until: "2013-01-03T00:00:00Z", entries: 3,
		firstLoc: "http://example.com/res1.pdf", lastLoc: "http://example.com/res3.tiff", lastmod: "2013-01-02T13:00:00Z",
		first: MD{Change: ChangeUpdated, Datetime: "2013-01-02T13:00:00Z"}},
	"resourcesync_ex_4.xml": {capability: CapResourceDump, at: "2013-01-03T09:00:00Z", entries: 1,
		firstLoc: "http://example.com/resourcedump.zip", lastLoc: "http://example.com/resourcedump.zip"},
	"resourcesync_ex_5.xml": {capability: CapResourceDumpManifest, at: "2013-01-03T09:00:00Z", entries: 2,
		firstLoc: "http://example.com/res1", lastLoc: "http://example.com/res2",
		first: MD{Hash: "md5:1584abdf8ebdc9802ac0c6a7402c03b6", Path: "/resources/res1"}},
	"resourcesync_ex_6.xml": {capability: CapCapabilityList, up: "http://example.com/resourcesync_description.xml",
		describedby: "http://example.com/info_about_set1_of_resources.xml", entries: 3,
		firstLoc: "http://example.com/dataset1/resourcelist.xml", lastLoc: "http://example.com/dataset1/changelist.xml",
		first: MD{Capability: CapResourceList}},
	"resourcesync_ex_7.xml": {capability: CapDescription, describedby: "http://example.com/info-about-source.xml", entries: 1,
		firstLoc: "http://example.com/dataset1/capabilitylist.xml", lastLoc: "http://example.com/dataset1/capabilitylist.xml",
		first: MD{Capability: CapCapabilityList}, firstLink: "describedby", firstLinks: 1},
	"resourcesync_ex_8.xml": {index: true, capability: CapResourceList, at: "2013-01-03T09:00:00Z", entries: 2,
		firstLoc: "http://example.com/resourcelist-part1.xml", lastLoc: "http://example.com/resourcelist-part2.xml"},
	"resourcesync_ex_12.xml": {capability: CapDescription, describedby: "http://example.com/info_about_source.xml", entries: 3,
		firstLoc: "http://example.com/capabilitylist1.xml", lastLoc: "http://example.com/capabilitylist3.xml",
		first: MD{Capability: CapCapabilityList}, firstLink: "describedby", firstLinks: 1},
	"resourcesync_ex_13.xml": {capability: CapCapabilityList, up: "http://example.com/resourcesync_description.xml",
		describedby: "http://example.com/info_about_set1_of_resources.xml", entries: 4,
		firstLoc: "http://example.com/dataset1/resourcelist.xml", lastLoc: "http://example.com/dataset1/changedump.xml",
		first: MD{Capability: CapResourceList}},
	"resourcesync_ex_14.xml": {capability: CapResourceList, at: "2013-01-03T09:00:00Z", completed: "2013-01-03T09:01:00Z",
		up: "http://example.com/dataset1/capabilitylist.xml", entries: 2,
		firstLoc: "http://example.com/res1", lastLoc: "http://example.com/res2", lastmod: "2013-01-02T13:00:00Z",
		first: MD{Hash: "md5:1584abdf8ebdc9802ac0c6a7402c03b6", Length: "8876", Type: "text/html"}},
	"resourcesync_ex_15.xml": {index: true, capability: CapResourceList, at: "2013-01-03T09:00:00Z", completed: "2013-01-03T09:10:00Z",
		up: "http://example.com/dataset1/capabilitylist.xml", entries: 3,
		firstLoc: "http://example.com/resourcelist1.xml", lastLoc: "http://example.com/resourcelist3.xml",
		first: MD{At: "2013-01-03T09:00:00Z"}},
	"resourcesync_ex_16.xml": {capability: CapResourceList, at: "2013-01-03T09:00:00Z",
		up: "http://example.com/dataset1/capabilitylist.xml", indexLink: "http://example.com/dataset1/resourcelist-index.xml", entries: 2,
		firstLoc: "http://example.com/res3", lastLoc: "http://example.com/res4",
		first: MD{Hash: "md5:1584abdf8ebdc9802ac0c6a7402c8753", Length: "4385", Type: "application/pdf"}},
	"resourcesync_ex_17.xml": {capability: CapResourceDump, at: "2013-01-03T09:00:00Z", completed: "2013-01-03T09:04:00Z",
		up: "http://example.com/dataset1/capabilitylist.xml", entries: 3,
		firstLoc: "http://example.com/resourcedump-part1.zip", lastLoc: "http://example.com/resourcedump-part3.zip",
		first:     MD{Type: "application/zip", Length: "4765", At: "2013-01-03T09:00:00Z", Completed: "2013-01-03T09:02:00Z"},
		firstLink: "contents", firstLinks: 1},
	"resourcesync_ex_18.xml": {capability: CapResourceDumpManifest, at: "2013-01-03T09:00:00Z", completed: "2013-01-03T09:02:00Z",
		up: "http://example.com/dataset1/capabilitylist.xml", entries: 2,
		firstLoc: "http://example.com/res1", lastLoc: "http://example.com/res2", lastmod: "2013-01-02T13:00:00Z",
		first: MD{Hash: "md5:1584abdf8ebdc9802ac0c6a7402c03b6", Length: "8876", Type: "text/html", Path: "/resources/res1"}},
	"resourcesync_ex_19.xml": {capability: CapChangeList, from: "2013-01-03T00:00:00Z",
		up: "http://example.com/dataset1/capabilitylist.xml", entries: 4,
		firstLoc: "http://example.com/res1.html", lastLoc: "http://example.com/res2.pdf", lastmod: "2000-01-01T01:01:00Z",
		first: MD{Change: ChangeCreated, Datetime: "2013-01-03T11:00:00Z"}},
	"resourcesync_ex_20.xml": {index: true, capability: CapChangeList, from: "2013-01-01T00:00:00Z",
		up: "http://example.com/dataset1/capabilitylist.xml", entries: 3,
		firstLoc: "http://example.com/20130101-changelist.xml", lastLoc: "http://example.com/20130103-changelist.xml",
		first: MD{From: "2013-01-01T00:00:00Z", Until: "2013-01-02T00:00:00Z"}},
	"resourcesync_ex_21.xml": {capability: CapChangeList, from: "2013-01-02T00:00:00Z", until: "2013-01-03T00:00:00Z",
		up: "http://example.com/dataset1/capabilitylist.xml", indexLink: "http://example.com/dataset1/changelist.xml", entries: 4,
		firstLoc: "http://example.com/res7.html", lastLoc: "http://example.com/res7.html",
		first: MD{Change: ChangeCreated, Datetime: "2013-01-02T12:00:00Z"}},
	"resourcesync_ex_22.xml": {capability: CapChangeDump, from: "2013-01-01T00:00:00Z",
		up: "http://example.com/dataset1/capabilitylist.xml", entries: 3,
		firstLoc: "http://example.com/20130101-changedump.zip", lastLoc: "http://example.com/20130103-changedump.zip",
		lastmod:   "2013-01-01T23:59:59Z",
		first:     MD{Type: "application/zip", Length: "3109", From: "2013-01-01T00:00:00Z", Until: "2013-01-02T00:00:00Z"},
		firstLink: "contents", firstLinks: 1},
	"resourcesync_ex_23.xml": {capability: CapChangeDumpManifest, from: "2013-01-02T00:00:00Z", until: "2013-01-03T00:00:00Z",
		up: "http://example.com/dataset1/capabilitylist.xml", entries: 4,
		firstLoc: "http://example.com/res7.html", lastLoc: "http://example.com/res7.html", lastmod: "2013-01-02T12:00:00Z",
		first: MD{Change: ChangeCreated, Datetime: "2013-01-02T12:00:00Z", Hash: "md5:1c1b0e264fa9b7e1e9aa6f9db8d6362b",
			Length: "4339", Type: "text/html", Path: "/changes/res7.html"}},
	"resourcesync_ex_24.xml": {capability: CapChangeList, from: "2013-01-03T00:00:00Z",
		up: "http://example.com/dataset1/capabilitylist.xml", entries: 1,
		firstLoc: "http://example.com/res1", lastLoc: "http://example.com/res1", lastmod: "2013-01-03T18:00:00Z",
		first:     MD{Change: ChangeUpdated, Hash: "md5:1584abdf8ebdc9802ac0c6a7402c03b6", Length: "8876", Type: "text/html"},
		firstLink: "duplicate", firstLinks: 3},
	"resourcesync_ex_25.xml": {capability: CapChangeList, from: "2013-01-03T11:00:00Z",
		up: "http://example.com/dataset1/capabilitylist.xml", entries: 1,
		firstLoc: "http://example.com/res1", lastLoc: "http://example.com/res1",
		first: MD{Change: ChangeUpdated, Datetime: "2013-01-03T18:00:00Z"}, firstLink: "alternate", firstLinks: 2},
	"resourcesync_ex_26.xml": {capability: CapChangeList, from: "2013-01-03T00:00:00Z",
		up: "http://example.com/dataset1/capabilitylist.xml", entries: 1,
		firstLoc: "http://example.com/res1.html", lastLoc: "http://example.com/res1.html",
		first:     MD{Change: ChangeUpdated, Datetime: "2013-01-03T18:00:00Z", Hash: "md5:1584abdf8ebdc9802ac0c6a7402c03b6", Length: "8876"},
		firstLink: "canonical", firstLinks: 1},
	"resourcesync_ex_28.xml": {capability: CapChangeList, from: "2013-01-03T00:00:00Z",
		up: "http://example.com/dataset1/capabilitylist.xml", entries: 2,
		firstLoc: "http://example.com/res2.pdf", lastLoc: "http://example.com/res2_dublin-core_metadata.xml",
		first: MD{Change: ChangeUpdated, Datetime: "2013-01-03T18:00:00Z", Hash: "md5:1584abdf8ebdc9802ac0c6a7402c03b6",
			Length: "8876", Type: "application/pdf"},
		firstLink: "describedby", firstLinks: 1},
	"resourcesync_ex_29.xml": {capability: CapChangeList, from: "2013-01-03T00:00:00Z",
		up: "http://example.com/dataset1/capabilitylist.xml", entries: 1,
		firstLoc: "http://example.com/res1", lastLoc: "http://example.com/res1", lastmod: "2013-01-03T18:00:00Z",
		first:     MD{Change: ChangeUpdated, Hash: "md5:1584abdf8ebdc9802ac0c6a7402c03b6", Length: "8876", Type: "text/html"},
		firstLink: "memento", firstLinks: 3},
	"resourcesync_ex_30.xml": {capability: CapChangeList, from: "2013-01-03T00:00:00Z",
		up: "http://example.com/dataset1/capabilitylist.xml", entries: 1,
		firstLoc: "http://example.com/res1", lastLoc: "http://example.com/res1",
		first:     MD{Change: ChangeUpdated, Hash: "md5:1584abdf8ebdc9802ac0c6a7402c03b6", Length: "8876", Type: "text/html"},
		firstLink: "collection", firstLinks: 1},
	"resourcesync_ex_31.xml": {capability: CapChangeList, from: "2013-01-03T00:00:00Z",
		up: "http://example.com/dataset1/capabilitylist.xml", entries: 1,
		firstLoc: "http://original.example.com/res1.html", lastLoc: "http://original.example.com/res1.html", lastmod: "2013-01-03T07:00:00Z",
		first: MD{Change: ChangeUpdated, Hash: "md5:1584abdf8ebdc9802ac0c6a7402c03b6", Length: "8876", Type: "text/html"}},
	"resourcesync_ex_32.xml": {capability: CapChangeList, from: "2013-01-03T11:00:00Z",
		up: "http://aggregator1.example.com/dataset1/capabilitylist.xml", entries: 1,
		firstLoc: "http://aggregator1.example.com/res1.html", lastLoc: "http://aggregator1.example.com/res1.html", lastmod: "2013-01-03T20:00:00Z",
		first:     MD{Change: ChangeUpdated, Hash: "md5:1584abdf8ebdc9802ac0c6a7402c03b6", Length: "8876", Type: "text/html"},
		firstLink: "via", firstLinks: 1},
	"resourcesync_ex_33.xml": {capability: CapChangeList, from: "2013-01-03T12:00:00Z",
		up: "http://aggregator2.example.com/dataset1/capabilitylist.xml", entries: 1,
		firstLoc: "http://aggregator2.example.com/res1.html", lastLoc: "http://aggregator2.example.com/res1.html", lastmod: "2013-01-04T09:00:00Z",
		first:     MD{Change: ChangeUpdated, Hash: "md5:1584abdf8ebdc9802ac0c6a7402c03b6", Length: "8876", Type: "text/html"},
		firstLink: "via", firstLinks: 1},
	".well-known/resourcesync": {capability: CapDescription, describedby: "http://example.com/info_about_source.xml", entries: 3,
		firstLoc: "http://example.com/capabilitylist1.xml", lastLoc: "http://example.com/capabilitylist3.xml",
		first: MD{Capability: CapCapabilityList}, firstLink: "describedby", firstLinks: 1},
	"invalid/resourcesync_ex_27-nonhex-hash.xml": {capability: CapChangeList, from: "2013-01-03T00:00:00Z",
		up: "http://example.com/dataset1/capabilitylist.xml", entries: 2,
		firstLoc: "http://example.com/res4", lastLoc: "http://example.com/res5-full.tiff",
		first:     MD{Change: ChangeUpdated, Hash: "sha-256:f4OxZX_x_DFGFDgghgdfb6rtSx-iosjf6735432nklj", Length: "56778", Type: "application/json"},
		firstLink: "http://www.openarchives.org/rs/terms/patch", firstLinks: 1},
}

// exampleFiles lists every document of the examples folder. It fails the
// test if the folder is missing or empty: a test over no vectors passes
// whatever the reader does.
func exampleFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"*.xml", ".well-known/resourcesync", "invalid/*.xml"} {
		m, err := filepath.Glob(filepath.Join(specExamples, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 30 {
		t.Fatalf("%s holds %d examples, want the 32 of the spec: is the copy complete?", specExamples, len(files))
	}
	return files
}

func TestSpecExamplesRead(t *testing.T) {
	t.Parallel()
	files := exampleFiles(t)
	seen := map[string]bool{}
	for _, file := range files {
		rel, _ := filepath.Rel(specExamples, file)
		rel = filepath.ToSlash(rel)
		seen[rel] = true
		t.Run(rel, func(t *testing.T) {
			want, ok := exampleTable[rel]
			if !ok {
				t.Fatalf("%s has no row in exampleTable: add what reading it must give", rel)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			doc, entries, err := ReadAll(bytes.NewReader(data), ReadOptions{MaxBytes: MaxBytes, MaxEntries: MaxEntries})
			if err != nil {
				t.Fatalf("reading: %v", err)
			}
			checkExample(t, doc, entries, want)
		})
	}
	for name := range exampleTable {
		if !seen[name] {
			t.Errorf("exampleTable has %s, which is not in %s", name, specExamples)
		}
	}
}

func checkExample(t *testing.T, doc *Doc, entries []*Entry, want exampleWant) {
	t.Helper()
	str := func(field, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %q, want %q", field, got, want)
		}
	}
	if doc.Index != want.index {
		t.Errorf("Index = %v, want %v", doc.Index, want.index)
	}
	str("root capability", doc.MD.Capability, want.capability)
	str("root at", doc.MD.At, want.at)
	str("root completed", doc.MD.Completed, want.completed)
	str("root from", doc.MD.From, want.from)
	str("root until", doc.MD.Until, want.until)
	str(`root link "up"`, doc.Link("up"), want.up)
	str(`root link "index"`, doc.Link("index"), want.indexLink)
	str(`root link "describedby"`, doc.Link("describedby"), want.describedby)
	if len(entries) != want.entries {
		t.Fatalf("%d entries, want %d", len(entries), want.entries)
	}
	first, last := entries[0], entries[len(entries)-1]
	str("first loc", first.Loc, want.firstLoc)
	str("last loc", last.Loc, want.lastLoc)
	str("first lastmod", first.Lastmod, want.lastmod)
	got := first.MD
	got.Extra = nil
	// A hash attribute may be spread over lines (Example 14): compare its tokens.
	got.Hash = strings.Join(strings.Fields(got.Hash), " ")
	if !mdEqual(&got, &want.first) {
		t.Errorf("first rs:md = %+v, want %+v", got, want.first)
	}
	if first.HasMD != !want.first.IsZero() {
		t.Errorf("first HasMD = %v, want %v", first.HasMD, !want.first.IsZero())
	}
	if len(first.Links) != want.firstLinks {
		t.Errorf("first entry has %d links, want %d", len(first.Links), want.firstLinks)
	} else if want.firstLinks > 0 {
		str("first link rel", first.Links[0].Rel, want.firstLink)
		if first.Links[0].Href == "" || first.Links[0].Line == 0 {
			t.Errorf("first link = %+v, want an href and a line", first.Links[0])
		}
	}
	for i, e := range entries {
		if e.Line == 0 {
			t.Errorf("entry %d has no line number", i)
		}
		if i > 0 && e.Line <= entries[i-1].Line {
			t.Errorf("entry %d starts on line %d, not after entry %d (line %d)", i, e.Line, i-1, entries[i-1].Line)
		}
		if e.MDCount > 1 {
			t.Errorf("entry %d: MDCount = %d", i, e.MDCount)
		}
	}
}

// mdEqual compares the fields of two MDs but Extra.
func mdEqual(a, b *MD) bool {
	x, y := *a, *b
	x.Extra, y.Extra = nil, nil
	return slices.Equal([]string{x.Capability, x.At, x.Completed, x.From, x.Until, x.Change, x.Datetime, x.Hash, x.Length, x.Type, x.Encoding, x.Path, x.Modified},
		[]string{y.Capability, y.At, y.Completed, y.From, y.Until, y.Change, y.Datetime, y.Hash, y.Length, y.Type, y.Encoding, y.Path, y.Modified})
}

// TestSpecExamplesHashes checks that every hash attribute of the valid
// examples parses, and that Example 27's non-hex digests are refused.
func TestSpecExamplesHashes(t *testing.T) {
	t.Parallel()
	checked := 0
	for _, file := range exampleFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		_, entries, err := ReadAll(bytes.NewReader(data), ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		invalid := strings.Contains(file, "invalid")
		for _, e := range entries {
			if e.MD.Hash == "" {
				continue
			}
			checked++
			_, err := hashing.ParseAttr(e.MD.Hash)
			if invalid && err == nil {
				t.Errorf("%s line %d: hashing.ParseAttr(%q) accepted a digest that is not hex", file, e.Line, e.MD.Hash)
			}
			if !invalid && err != nil {
				t.Errorf("%s line %d: %v", file, e.Line, err)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d hash attributes checked: the examples hold more", checked)
	}
}

// TestReadNamespaceDeclarations: a namespace declaration on <rs:md> or
// <rs:ln> is not an attribute of the element.
func TestReadNamespaceDeclarations(t *testing.T) {
	t.Parallel()
	doc := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
		`<rs:md xmlns:rs="http://www.openarchives.org/rs/terms/" xmlns="urn:other" capability="resourcelist" x="1"/>` +
		`<url><loc>http://e/</loc><ln xmlns="http://www.openarchives.org/rs/terms/" rel="up" href="http://e/c"/></url></urlset>`
	d, entries, err := ReadAll(strings.NewReader(doc), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.MD.Extra) != 1 || d.MD.Extra[0] != (Attr{"", "x", "1"}) || d.MD.Capability != CapResourceList {
		t.Errorf("root rs:md = %+v, want capability and x only", d.MD)
	}
	if len(entries) != 1 || len(entries[0].Links) != 1 || len(entries[0].Links[0].Extra) != 0 || entries[0].Link("up") != "http://e/c" {
		t.Errorf("entry links = %+v, want one up link without extra attributes", entries[0].Links)
	}
}
