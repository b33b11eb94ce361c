package validate_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rsgen/rsgen/validate"
)

// testdata/foreign holds documents written the way other ResourceSync
// implementations write them (each file says whose habits it imitates;
// none is copied from one). The table gives rsgen's verdict on each, and
// the official validator's; where the two differ, differs says why
// rsgen's verdict is the deliberate one (docs/VALIDATE.md, "Documents
// written by other implementations").
type foreignDoc struct {
	file  string
	style string   // whose habits the document imitates
	rules []string // the rules of rsgen's findings, sorted, each once
	valid bool     // rsgen's verdict (without --strict)
	// official is rs-validate.py's verdict (without options); differs
	// says why rsgen's differs, and is empty when they agree.
	official bool
	differs  string
	// message, if set, is a part of the message of one finding.
	message string
}

var foreignDocs = []foreignDoc{
	{file: "resync-resourcelist.xml", style: "resync (Python): single-quoted declaration, one line, root rs:ln before rs:md, sorted attributes, microseconds",
		valid: true, official: true},
	{file: "resync-long-line.xml", style: "resync without pretty_xml: 400 entries on one 87 kB line",
		valid: true, official: true},
	{file: "resync-changelist-1.0.xml", style: "resync with spec_version 1.0: the change time in <lastmod>, no datetime",
		valid: true, official: true},
	{file: "resync-resourcelist-index-at-completed.xml", style: "resync: a Resource List Index with at/completed on each part",
		valid: true, official: true},
	{file: "resync-description-relative-loc.xml", style: "resync's test fixtures: a Source Description with a relative <loc>",
		rules: []string{validate.RuleLoc}, official: true,
		differs: "xsd:anyURI accepts a relative reference; section 7 wants the URI of the resource, and a Destination cannot dereference a relative one"},
	{file: "resync-resourcelist-short-relative-loc.xml", style: "resync's test fixtures: <loc>resource1</loc>",
		rules: []string{validate.RuleLoc}},
	{file: "resync-0.x-root-modified.xml", style: "resync 0.x and the drafts: modified on the root <rs:md> instead of at",
		rules: []string{validate.RuleTimeRequired}},
	{file: "resync-0.x-rs-size.xml", style: "resync 0.x: the size in an <rs:size> element",
		rules: []string{validate.RuleSchema}},
	{file: "pyrs-resourcedump-file-paths.xml", style: "py-resourcesync: a Resource Dump whose <loc>s are the packages' paths on the server",
		rules: []string{validate.RuleLoc}, official: true,
		differs: "xsd:anyURI accepts a path; section 7 wants the URI of the package, and a Destination cannot download a path"},
	{file: "pyrs-resourcelist-mimetypes.xml", style: "py-resourcesync: types from Python's mimetypes (dotted vendor types, none for an unknown extension), date-only lastmod",
		rules: []string{validate.RuleTypePattern}, valid: true,
		differs: "the schema's pattern [\\w-]+/[\\w-]+ rejects correct IANA names with dots: rsgen warns"},
	{file: "dspace-resourcelist-sm-prefix.xml", style: "DSpace (ResourceSyncJava, JDOM): sm: prefix, CRLF, unused atom namespace, href before rel, a relative describedby href",
		valid: true, official: true},
	{file: "dspace-early-prefixed-attributes.xml", style: "early ResourceSyncJava: rs:capability, atom:modified, atom:rel, atom:href",
		rules: []string{validate.RuleAttrPrefix, validate.RuleCapability, validate.RuleLink}},
	{file: "dspace-old-description-name.xml", style: "ResourceSyncJava and resync 0.x: capability=\"resourcesync\" for the Source Description",
		rules: []string{validate.RuleCapability}},
	{file: "dspace-capabilitylist-archives.xml", style: "ResourceSyncJava, resync: a Capability List that lists a changelist-archive (ResourceSync Archives)",
		valid: true, official: true},
	{file: "changelist-sorted-by-lastmod.xml", style: "ResourceSyncJava: entries sorted by <lastmod>, so datetimes run backwards",
		rules: []string{validate.RuleChronology}},
	{file: "ruby-gem-resourcelist-offsets.xml", style: "resync Ruby gem (REXML): no declaration, single quotes, Time#iso8601 offsets",
		rules: []string{validate.RuleDatetimeUTC}, valid: true, official: true},
	{file: "ruby-gem-changedump-index.xml", style: "resync Ruby gem: a Change Dump Index whose last package is open",
		valid: true, official: true},
	{file: "jaxb-ns2-default-rs.xml", style: "JAXB (Java): ns2: prefix for Sitemaps, ResourceSync the default namespace, standalone=\"yes\"",
		valid: true, official: true},
	{file: "default-namespace-per-element.xml", style: "a namespace declared on each ResourceSync element",
		valid: true, official: true},
	{file: "draft-2012-namespace.xml", style: "the 2012 drafts (D-Lib paper): namespace http://www.openarchives.org/rs/, modified, etag",
		rules: []string{validate.RuleSchema}, message: "ResourceSync 1.0 and 1.1 use http://www.openarchives.org/rs/terms/"},
	{file: "times-without-zone.xml", style: "a writer of local times without a zone (LocalDateTime, strftime without %z)",
		rules: []string{validate.RuleDatetime}},
	{file: "python-isoformat-utc-offset.xml", style: "Python's datetime.isoformat() of an aware UTC time: +00:00, microseconds",
		rules: []string{validate.RuleDatetimeUTC}, valid: true, official: true,
		message: `from="2021-03-04T00:00:00+00:00" is in UTC, but written with an offset rather than Z`},
	{file: "times-fraction-offset-date.xml", style: "fractional seconds with an offset; a date-only <lastmod>",
		rules: []string{validate.RuleDatetimeUTC}, valid: true, official: true},
	{file: "times-minutes-only.xml", style: "py-resourcesync's w3c_datetime, which drops zero seconds (12:00Z)",
		rules: []string{validate.RuleDatetime}},
	{file: "empty-resourcelist.xml", style: "resync: the Resource List of an empty collection",
		rules: []string{validate.RuleEmpty}, valid: true,
		differs: "section 7 allows a document without entries; the schemas (minOccurs 1) do not: rsgen warns"},
	{file: "empty-changedump-manifest.xml", style: "an empty Change Dump Manifest",
		rules: []string{validate.RuleEmpty}, valid: true,
		differs: "section 7 allows a document without entries; the schemas (minOccurs 1) do not: rsgen warns"},
	{file: "manifest-path-from-zip-names.xml", style: "a manifest written from ZIP entry names: path without the leading /",
		rules: []string{validate.RulePath}},
	{file: "dotnet-bom-crlf-comments.xml", style: ".NET XmlWriter (Encoding.UTF8): BOM, CRLF, a stylesheet processing instruction, comments",
		valid: true, official: true},
	{file: "php-cdata.xml", style: "PHP sitemap writers: <loc> and <lastmod> in CDATA sections",
		valid: true, official: true},
	{file: "php-latin1-declaration.xml", style: "an old PHP writer: encoding=\"ISO-8859-1\" declared (the bytes are ASCII)",
		rules: []string{validate.RuleXML}, official: true,
		differs: "the Sitemaps protocol requires UTF-8; lxml reads ISO-8859-1"},
	{file: "python-hashlib-names.xml", style: "Python's hashlib names: sha256 for sha-256",
		valid: true, official: true},
	{file: "minidom-prettyxml-whitespace.xml", style: "Python 2's minidom.toprettyxml: text on lines of its own, tabs, a line break inside hash, spaces around length",
		valid: true, official: true},
	{file: "template-xml-oddities.xml", style: "a template engine's XML: character references and a comment inside <loc>, another prefix for ResourceSync on an entry, a processing instruction, tags broken across lines",
		valid: true, official: true},
	{file: "links-duplicate-pri.xml", style: "the spec's mirrors: rs:ln duplicate with pri and modified, alternate with hash, describedby with profile",
		valid: true, official: true},
	{file: "links-mime-size-pri0.xml", style: "attributes other tools invented: mime for type, size for length; pri=\"0\"",
		rules: []string{validate.RulePri, validate.RuleSchema}},
	{file: "hash-several-uppercase.xml", style: "several digests, upper-case algorithm names and hex, two spaces between tokens",
		valid: true, official: true},
	{file: "changelist-index-entry-at.xml", style: "a Change List Index whose entries carry at, as a Resource List Index's do",
		rules: []string{validate.RuleTimeRecommended, validate.RuleTimeUnused}, valid: true, official: true},
	{file: "sitemapgen-schemalocation.xml", style: "Sitemap generators: xsi:schemaLocation, changefreq, priority, an escaped query",
		valid: true, official: true},
	{file: "sitemap-image-extension.xml", style: "an image-sitemap extension inside a Resource List entry",
		rules: []string{validate.RuleForeign}, valid: true,
		differs: "the Sitemaps protocol allows extensions; the schemas' strict wildcard rejects them: rsgen warns"},
}

func TestForeignDocuments(t *testing.T) {
	t.Parallel()
	listed := map[string]bool{}
	for _, d := range foreignDocs {
		listed[d.file] = true
		t.Run(d.file, func(t *testing.T) {
			rep, err := validate.Path(context.Background(), filepath.Join("testdata/foreign", d.file), validate.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var rules []string
			for _, f := range rep.Findings {
				if !slices.Contains(rules, f.Rule) {
					rules = append(rules, f.Rule)
				}
			}
			slices.Sort(rules)
			if !slices.Equal(rules, d.rules) {
				t.Errorf("findings of rules %q, want %q: %v", rules, d.rules, rep.Findings)
			}
			if d.message != "" && !slices.ContainsFunc(rep.Findings, func(f validate.Finding) bool { return strings.Contains(f.Message, d.message) }) {
				t.Errorf("no finding says %q: %v", d.message, rep.Findings)
			}
			if got := rep.Valid(false); got != d.valid {
				t.Errorf("valid=%v, want %v: %v", got, d.valid, rep.Findings)
			}
			if (d.official != d.valid) != (d.differs != "") {
				t.Errorf("the table says rsgen valid=%v, rs-validate.py valid=%v, and differs=%q: a difference needs its reason, and only a difference", d.valid, d.official, d.differs)
			}
		})
	}
	files, err := filepath.Glob("testdata/foreign/*.xml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no documents in testdata/foreign (%v)", err)
	}
	for _, f := range files {
		if !listed[filepath.Base(f)] {
			t.Errorf("%s is not in foreignDocs", f)
		}
	}
}

// TestForeignDocumentsOfficial checks the table's official verdicts
// against rs-validate.py itself.
func TestForeignDocumentsOfficial(t *testing.T) {
	t.Parallel()
	official(t)
	var paths []string
	for _, d := range foreignDocs {
		paths = append(paths, filepath.Join("testdata/foreign", d.file))
	}
	verdicts := officialVerdicts(t, paths...)
	for i, d := range foreignDocs {
		theirs, ok := verdicts[paths[i]]
		switch {
		case !ok:
			t.Errorf("%s: rs-validate.py said nothing of it", d.file)
		case theirs != d.official:
			t.Errorf("%s: rs-validate.py says valid=%v, the table %v", d.file, theirs, d.official)
		}
	}
}

// TestDocsListForeignDocuments keeps the table of docs/VALIDATE.md in step
// with the documents.
func TestDocsListForeignDocuments(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/VALIDATE.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range foreignDocs {
		if !strings.Contains(string(doc), "`"+d.file+"`") {
			t.Errorf("docs/VALIDATE.md does not mention %s", d.file)
		}
	}
}
