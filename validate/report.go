package validate

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/text/units"
)

// Severity says whether a finding makes a document invalid: an error
// breaks a must of the spec or the official schemas; a warning a should,
// or something only some Destinations trip over.
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// A Rule is one check of the validator.
type Rule struct {
	ID       string   `json:"id"`
	Section  string   `json:"section"` // where the rule comes from: a section of the spec, or the schema
	Severity Severity `json:"severity"`
	Summary  string   `json:"summary"`
}

// The rules, in the order the documentation gives them, with the stable
// IDs findings carry.
var (
	// One document.
	RuleXML             = rule("xml", "§7", Error, "the document is well-formed XML in UTF-8 (a UTF-16 or UTF-32 document is refused for its encoding), without a DOCTYPE, and can be read")
	RuleRoot            = rule("root", "§7", Error, "the root is a Sitemap <urlset> or <sitemapindex> in namespace "+rsxml.NSSitemap)
	RuleSchema          = rule("schema", "schema", Error, "elements and attributes are where the official schemas allow them, in their order, with valid <changefreq> and <priority>; an element of the ResourceSync namespace other than <rs:md> and <rs:ln> (the <rs:size> old resync wrote) is an error")
	RuleForeign         = rule("foreign-element", "schema", Warning, "elements of other namespaces inside an entry: the official schemas' strict wildcard rejects them (an undeclared element of the ResourceSync namespace is a schema error)")
	RuleRootMD          = rule("root-md", "§7", Error, "the root has exactly one <rs:md>")
	RuleCapability      = rule("capability", "§7", Error, "the root <rs:md> has a capability: one of the spec's eight, an archive's or a notification's")
	RuleNotIndex        = rule("not-index", "§9, §11.2, §13.2, Change Notification §3", Error, "a Capability List, a manifest or a notification is a <urlset>, never a <sitemapindex>")
	RuleTimeRequired    = rule("time-required", "Appendix A, Archives", Error, "the root <rs:md> has at (Resource List, Resource Dump, their indexes, Resource Dump Manifest) or from (Change List, Change Dump, their indexes, Change Dump Manifest); an archive's entries have at (of Resource Lists and Dumps) or from and until (of Change Lists and Dumps)")
	RuleTimeUnused      = rule("time-unused", "Appendix A", Warning, "at/completed and from/until only where Table 4 uses them")
	RuleTimeRecommended = rule("time-recommended", "Appendix A", Warning, "entries of a Change List Index, Change Dump and Change Dump Index have from")
	RuleDatetime        = rule("datetime", "§7", Error, "datetimes are W3C Datetimes the schema's types accept: attributes YYYY-MM-DDThh:mm:ss[.s]TZD, <lastmod> also YYYY-MM-DD")
	RuleDatetimeUTC     = rule("datetime-utc", "§7", Warning, "datetimes of rs:md are in UTC (Z), as the spec recommends")
	RuleInterval        = rule("interval", "§7", Error, "completed is not before at, until is not before from")
	RuleDatetimeRange   = rule("datetime-range", "§7", Error, "an entry's datetime lies within the document's from and until")
	RulePackageTimes    = rule("package-times", "§11.1, §13.1", Error, "a dump's package is taken within the dump (its at and completed between the dump's, its from and until between the dump's), and its manifest gives the times its entry gives")
	RuleChronology      = rule("chronology", "§12.1, §12.2, §13.2", Error, "Change Lists, Change List Indexes and Change Dump Manifests list their entries oldest first")
	RuleChronologyDump  = rule("chronology-dump", "§13.1", Warning, "Change Dumps and their indexes list their packages oldest first")
	RuleChange          = rule("change", "§12.1, §13.2, Change Notification §3", Error, "entries of a Change List, Change Dump Manifest or notification have change=created|updated|deleted")
	RulePath            = rule("path", "§11.2, §13.2", Error, "manifest entries have a path starting with / and not ending with / (schema pattern /.*[^/]); only deletions may lack it")
	RulePathUnused      = rule("path-unused", "§7", Warning, "path is used only in manifests")
	RuleHash            = rule("hash", "§7", Error, "hash is space-separated alg:hexdigest tokens, each algorithm once, with the digest length of md5, sha-1, sha-256…")
	RuleLength          = rule("length", "§7", Error, "length is a non-negative integer")
	RuleType            = rule("type", "§7", Error, "type is a bare media type (type/subtype, RFC 6838), without parameters")
	RuleTypePattern     = rule("type-pattern", "schema", Warning, "type matches the schema's pattern [\\w-]+/[\\w-]+, which rejects correct IANA names with dots (application/vnd.ms-excel)")
	RuleLoc             = rule("loc", "§7, schema", Error, "<loc> is an absolute URI of 12 to 2,048 characters")
	RuleLocEscape       = rule("loc-escape", "§7", Warning, "<loc> is percent-encoded: no spaces, non-ASCII or other characters URIs cannot carry, and no raw # or ? that a name holds (…/what?.txt names …/what; a ? before name=value pairs is taken for a query)")
	RuleDuplicateLoc    = rule("duplicate-loc", "§10.1, §11.2, Archives", Error, "a resource appears once in a Resource List or Resource Dump Manifest, a document once in an archive")
	RuleLink            = rule("link", "§7, schema", Error, "every <rs:ln> has rel and href, and href is a URI")
	RuleRel             = rule("rel", "§7", Warning, "rel values are registered relation types (lower case) or absolute URIs")
	RulePri             = rule("pri", "§7, schema", Error, "pri is an integer from 1 to 999999")
	RuleMDRepeat        = rule("md-repeat", "§7", Error, "an entry has at most one <rs:md>")
	RuleAttrPrefix      = rule("attr-prefix", "§7", Error, "ResourceSync attributes carry no namespace prefix; other attributes are in another namespace")
	RuleLimitEntries    = rule("limit-entries", "§7", Error, "at most 50,000 entries per document")
	RuleLimitBytes      = rule("limit-bytes", "§7", Error, "at most 50 MB (52,428,800 bytes, uncompressed) per document")
	RuleEmpty           = rule("empty", "§7, schema", Warning, "a document without entries: the spec allows it, the official schemas do not")
	RuleUp              = rule("up", "§10-§13", Warning, "capability documents link rel=\"up\" to their Capability List (required by the spec, missing from its Examples 1-5 and 8)")
	RuleCapListUp       = rule("caplist-up", "§9", Error, "a Capability List links rel=\"up\" to the Source Description")
	RuleCapListEntry    = rule("caplist-entry", "§9", Error, "every entry of a Capability List has <rs:md capability> naming a capability document")
	RuleCapListUnique   = rule("caplist-unique", "§9", Error, "a Capability List lists each capability once")
	RuleCapListUnknown  = rule("caplist-unknown", "§9", Warning, "a Capability List lists capabilities this validator knows: those of the core, the notification channels and the archives of the other ResourceSync specifications")
	RuleDescEntry       = rule("description-entry", "§8", Error, "an <rs:md> of a Source Description entry has capability=capabilitylist")
	RuleLastmodOmit     = rule("lastmod-omit", "§8, §9", Warning, "a Source Description or Capability List has no <lastmod>, unless it is rewritten each time a document it lists changes")
	RuleNotifyEntry     = rule("notification-entry", "Framework Notification §3", Error, "an entry of a framework notification names the capability of the document it is about")

	// Several documents.
	RuleLinkResolve    = rule("link-resolve", "§6.2", Error, "up, index, contents links and listed documents within the site lead to a document")
	RuleLinkCapability = rule("link-capability", "§6.2", Error, "a linked document is what the link says: up leads to the Capability List (from a Capability List: the Source Description), a listed document has the capability its parent gives, contents leads to a manifest")
	RuleIndexPart      = rule("index-part", "§10.2, §12.2", Error, "the documents of an index are <urlset>s of its capability that link rel=\"index\" back to it")
	RuleIndexLink      = rule("index-link", "§10.1, §11.1, §12.1, §13.1", Warning, "a document listed by an index links rel=\"index\" to it")
	RuleIndexUntil     = rule("index-until", "§12.2", Error, "a Change List Index gives until for a closed Change List and none for the open one")
	RuleArchiveEntry   = rule("archive-entry", "Archives §3-§6", Error, "an archive lists documents of the capability it archives, oldest first, each with the times of its root (at, or from and until)")
	RuleUpConsistent   = rule("up-consistent", "§6.2", Warning, "the documents of an index link up to the same Capability List as the index")
	RuleCapListListed  = rule("caplist-listed", "§8", Warning, "a Capability List is listed by the Source Description it links up to")
	RuleOrphan         = rule("orphan", "§6.2", Warning, "every document of the site is reachable from the Source Description")
	RuleWellKnown      = rule("well-known", "§6.3.2", Error, "a site publishes its Source Description at /.well-known/resourcesync")
	RuleFetch          = rule("fetch", "§6.2", Error, "a document can be fetched (HTTP 200)")
	RuleContentType    = rule("content-type", "§6.3", Warning, "documents are served as XML (application/xml), the extension-less /.well-known/resourcesync included")
	RuleLimitDocuments = rule("limit-documents", "-", Warning, "the crawl stopped at --max-documents: some documents were not checked")

	// The resources (audit).
	RuleAuditMissing   = rule("audit-missing", "§10.1", Error, "every listed resource exists (audit)")
	RuleAuditLength    = rule("audit-length", "§7", Error, "a resource has the length its entry gives (audit)")
	RuleAuditHash      = rule("audit-hash", "§7", Error, "a resource has the digests its entry gives (audit)")
	RuleAuditType      = rule("audit-type", "§7", Warning, "a resource is served with the type its entry gives (audit over HTTP)")
	RuleAuditUnchecked = rule("audit-unchecked", "§7", Warning, "a digest could not be audited: an algorithm this validator does not compute")
	RuleAuditUnreached = rule("audit-unreached", "§10.1", Error, "every listed resource is within the audit's reach: under the URL the resources directory is served at, or on the site validated (other sites with --cross-site)")
	RuleDumpManifest   = rule("dump-manifest", "§11.2, §13.2", Error, "a dump's ZIP package holds its manifest as manifest.xml at the top level, and it is a valid manifest (audit)")
)

var (
	catalogue []Rule
	ruleIndex = map[string]Rule{}
)

// rule adds a rule to the catalogue and returns its ID.
func rule(id, section string, sev Severity, summary string) string {
	r := Rule{id, section, sev, summary}
	catalogue = append(catalogue, r)
	ruleIndex[id] = r
	return id
}

// Rules returns every rule of the validator, in documentation order.
func Rules() []Rule { return append([]Rule(nil), catalogue...) }

// A Finding is one violation of a rule in one document.
type Finding struct {
	Document string   `json:"document"`       // path or URL
	Line     int      `json:"line,omitempty"` // 0 when the finding has no line
	Rule     string   `json:"rule"`
	Section  string   `json:"section"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

// String renders f the way compilers do: "doc:line: error: message [rule, §7]".
func (f Finding) String() string {
	loc := f.Document
	if f.Line > 0 {
		loc += ":" + strconv.Itoa(f.Line)
	}
	return fmt.Sprintf("%s: %s: %s [%s, %s]", loc, f.Severity, f.Message, f.Rule, f.Section)
}

// Report is the outcome of a validation.
type Report struct {
	Documents   []string       `json:"documents"` // the documents checked, in the order they were read
	Findings    []Finding      `json:"findings"`  // sorted by document, line, rule
	Errors      int            `json:"errors"`    // error findings, those left out of Findings included
	Warnings    int            `json:"warnings"`  // warning findings, likewise
	ByRule      map[string]int `json:"by_rule"`   // findings per rule, likewise
	Audited     int            `json:"resources_audited,omitempty"`
	NotFollowed int            `json:"links_not_followed,omitempty"` // links to other sites (see Options.CrossSite)
}

// Valid reports whether the report has no error and, if strict, no warning.
func (r *Report) Valid(strict bool) bool {
	return r.Errors == 0 && (!strict || r.Warnings == 0)
}

// Merge appends the documents and findings of o to r.
func (r *Report) Merge(o *Report) {
	r.Documents = append(r.Documents, o.Documents...)
	r.Findings = append(r.Findings, o.Findings...)
	r.Errors += o.Errors
	r.Warnings += o.Warnings
	if r.ByRule == nil {
		r.ByRule = map[string]int{}
	}
	for k, n := range o.ByRule {
		r.ByRule[k] += n
	}
	r.Audited += o.Audited
	r.NotFollowed += o.NotFollowed
}

// WriteJSON writes r as one JSON object, as docs/VALIDATE.md describes it:
// valid and strict, then the fields of the Report.
func (r *Report) WriteJSON(w io.Writer, strict bool) error {
	out := *r
	out.Documents, out.Findings = append([]string{}, r.Documents...), append([]Finding{}, r.Findings...) // [], not null
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Valid  bool `json:"valid"`
		Strict bool `json:"strict"`
		*Report
	}{r.Valid(strict), strict, &out})
}

// Summary is the last line of a report in text: the verdict and counts.
func (r *Report) Summary(strict bool) string {
	verdict := map[bool]string{true: "valid", false: "NOT valid"}[r.Valid(strict)]
	s := fmt.Sprintf("%s: %s, %s, %s", verdict, units.Count(len(r.Documents), "document"), units.Count(r.Errors, "error"), units.Count(r.Warnings, "warning"))
	if strict && r.Errors == 0 && r.Warnings > 0 {
		s += " (--strict)"
	}
	if r.Audited > 0 {
		s += ", " + units.Count(r.Audited, "resource") + " audited"
	}
	if r.NotFollowed > 0 {
		s += ", " + units.Count(r.NotFollowed, "link") + " to other sites not followed"
	}
	return s
}

// MaxPerRule is how many findings of one rule one document reports; the
// rest are counted, and summed up in one more finding.
const MaxPerRule = 10

// sink collects findings; it may be called from several goroutines. The
// zero sink is ready to add to.
type sink struct {
	mu       sync.Mutex
	findings []Finding
	counts   map[sinkKey]int
	byRule   map[string]int
	errors   int
	warnings int
}

type sinkKey struct {
	doc, rule string
	sev       Severity
}

func newSink() *sink { return &sink{counts: map[sinkKey]int{}, byRule: map[string]int{}} }

func (s *sink) add(doc string, line int, rule, format string, args ...any) {
	s.addAs("", doc, line, rule, format, args...)
}

// addAs records a finding of rule in doc of severity sev ("": the rule's).
func (s *sink) addAs(sev Severity, doc string, line int, rule, format string, args ...any) {
	r, ok := ruleIndex[rule]
	if !ok {
		panic("validate: unknown rule " + rule)
	}
	sev = cmp.Or(sev, r.Severity)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.counts == nil { // an audit job's
		s.counts, s.byRule = map[sinkKey]int{}, map[string]int{}
	}
	if sev == Error {
		s.errors++
	} else {
		s.warnings++
	}
	s.byRule[rule]++
	k := sinkKey{doc, rule, sev}
	s.counts[k]++
	if s.counts[k] > MaxPerRule {
		return
	}
	s.findings = append(s.findings, Finding{Document: doc, Line: line, Rule: rule, Section: r.Section, Severity: sev, Message: fmt.Sprintf(format, args...)})
}

// merge adds the findings of o, at most MaxPerRule of each rule and doc.
func (s *sink) merge(o *sink) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o.mu.Lock()
	defer o.mu.Unlock()
	room := make(map[sinkKey]int, len(o.counts))
	for k, n := range o.counts {
		room[k] = max(0, MaxPerRule-s.counts[k])
		s.counts[k] += n
	}
	for _, f := range o.findings {
		if k := (sinkKey{f.Document, f.Rule, f.Severity}); room[k] > 0 {
			room[k]--
			s.findings = append(s.findings, f)
		}
	}
	for r, n := range o.byRule {
		s.byRule[r] += n
	}
	s.errors += o.errors
	s.warnings += o.warnings
}

// report returns the findings sorted, with a summary for each rule whose
// findings were cut at MaxPerRule.
func (s *sink) report() *Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	rep := &Report{Findings: slices.Clone(s.findings), Errors: s.errors, Warnings: s.warnings, ByRule: maps.Clone(s.byRule)}
	for k, n := range s.counts {
		if n > MaxPerRule {
			r := ruleIndex[k.rule]
			rep.Findings = append(rep.Findings, Finding{Document: k.doc, Rule: k.rule, Section: r.Section, Severity: k.sev,
				Message: fmt.Sprintf("… and %d more findings of this rule in this document", n-MaxPerRule)})
		}
	}
	slices.SortStableFunc(rep.Findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Document, b.Document), cmp.Compare(lineKey(a.Line), lineKey(b.Line)),
			cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Message, b.Message))
	})
	return rep
}

// lineKey sorts findings without a line after those with one.
func lineKey(l int) int {
	if l == 0 {
		return 1 << 30
	}
	return l
}
