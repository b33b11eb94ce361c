package validate

import (
	"fmt"
	"strconv"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
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

// Rule identifiers: the stable names findings carry.
const (
	// One document.
	RuleXML             = "xml"
	RuleRoot            = "root"
	RuleSchema          = "schema"
	RuleForeign         = "foreign-element"
	RuleRootMD          = "root-md"
	RuleCapability      = "capability"
	RuleNotIndex        = "not-index"
	RuleTimeRequired    = "time-required"
	RuleTimeUnused      = "time-unused"
	RuleTimeRecommended = "time-recommended"
	RuleDatetime        = "datetime"
	RuleDatetimeUTC     = "datetime-utc"
	RuleInterval        = "interval"
	RuleDatetimeRange   = "datetime-range"
	RulePackageTimes    = "package-times"
	RuleChronology      = "chronology"
	RuleChronologyDump  = "chronology-dump"
	RuleChange          = "change"
	RulePath            = "path"
	RulePathUnused      = "path-unused"
	RuleHash            = "hash"
	RuleLength          = "length"
	RuleType            = "type"
	RuleTypePattern     = "type-pattern"
	RuleLoc             = "loc"
	RuleLocEscape       = "loc-escape"
	RuleDuplicateLoc    = "duplicate-loc"
	RuleLink            = "link"
	RuleRel             = "rel"
	RulePri             = "pri"
	RuleMDRepeat        = "md-repeat"
	RuleAttrPrefix      = "attr-prefix"
	RuleLimitEntries    = "limit-entries"
	RuleLimitBytes      = "limit-bytes"
	RuleEmpty           = "empty"
	RuleUp              = "up"
	RuleCapListUp       = "caplist-up"
	RuleCapListEntry    = "caplist-entry"
	RuleCapListUnique   = "caplist-unique"
	RuleCapListUnknown  = "caplist-unknown"
	RuleDescEntry       = "description-entry"
	RuleLastmodOmit     = "lastmod-omit"
	RuleNotifyEntry     = "notification-entry"

	// Several documents.
	RuleLinkResolve    = "link-resolve"
	RuleLinkCapability = "link-capability"
	RuleIndexPart      = "index-part"
	RuleIndexLink      = "index-link"
	RuleIndexUntil     = "index-until"
	RuleArchiveEntry   = "archive-entry"
	RuleUpConsistent   = "up-consistent"
	RuleCapListListed  = "caplist-listed"
	RuleOrphan         = "orphan"
	RuleWellKnown      = "well-known"
	RuleFetch          = "fetch"
	RuleContentType    = "content-type"
	RuleLimitDocuments = "limit-documents"

	// The resources (audit).
	RuleAuditMissing   = "audit-missing"
	RuleAuditLength    = "audit-length"
	RuleAuditHash      = "audit-hash"
	RuleAuditType      = "audit-type"
	RuleAuditUnchecked = "audit-unchecked"
	RuleAuditUnreached = "audit-unreached"
	RuleDumpManifest   = "dump-manifest"
)

// catalogue lists every rule, in the order the documentation gives them.
var catalogue = []Rule{
	{RuleXML, "§7", Error, "the document is well-formed XML in UTF-8 (a UTF-16 or UTF-32 document is refused for its encoding), without a DOCTYPE, and can be read"},
	{RuleRoot, "§7", Error, "the root is a Sitemap <urlset> or <sitemapindex> in namespace " + rsxml.NSSitemap},
	{RuleSchema, "schema", Error, "elements and attributes are where the official schemas allow them, in their order, with valid <changefreq> and <priority>; an element of the ResourceSync namespace other than <rs:md> and <rs:ln> (the <rs:size> old resync wrote) is an error"},
	{RuleForeign, "schema", Warning, "elements of other namespaces inside an entry: the official schemas' strict wildcard rejects them (an undeclared element of the ResourceSync namespace is a schema error)"},
	{RuleRootMD, "§7", Error, "the root has exactly one <rs:md>"},
	{RuleCapability, "§7", Error, "the root <rs:md> has a capability: one of the spec's eight, an archive's or a notification's"},
	{RuleNotIndex, "§9, §11.2, §13.2, Change Notification §3", Error, "a Capability List, a manifest or a notification is a <urlset>, never a <sitemapindex>"},
	{RuleTimeRequired, "Appendix A, Archives", Error, "the root <rs:md> has at (Resource List, Resource Dump, their indexes, Resource Dump Manifest) or from (Change List, Change Dump, their indexes, Change Dump Manifest); an archive's entries have at (of Resource Lists and Dumps) or from and until (of Change Lists and Dumps)"},
	{RuleTimeUnused, "Appendix A", Warning, "at/completed and from/until only where Table 4 uses them"},
	{RuleTimeRecommended, "Appendix A", Warning, "entries of a Change List Index, Change Dump and Change Dump Index have from"},
	{RuleDatetime, "§7", Error, "datetimes are W3C Datetimes the schema's types accept: attributes YYYY-MM-DDThh:mm:ss[.s]TZD, <lastmod> also YYYY-MM-DD"},
	{RuleDatetimeUTC, "§7", Warning, "datetimes of rs:md are in UTC (Z), as the spec recommends"},
	{RuleInterval, "§7", Error, "completed is not before at, until is not before from"},
	{RuleDatetimeRange, "§7", Error, "an entry's datetime lies within the document's from and until"},
	{RulePackageTimes, "§11.1, §13.1", Error, "a dump's package is taken within the dump (its at and completed between the dump's, its from and until between the dump's), and its manifest gives the times its entry gives"},
	{RuleChronology, "§12.1, §12.2, §13.2", Error, "Change Lists, Change List Indexes and Change Dump Manifests list their entries oldest first"},
	{RuleChronologyDump, "§13.1", Warning, "Change Dumps and their indexes list their packages oldest first"},
	{RuleChange, "§12.1, §13.2, Change Notification §3", Error, "entries of a Change List, Change Dump Manifest or notification have change=created|updated|deleted"},
	{RulePath, "§11.2, §13.2", Error, "manifest entries have a path starting with / and not ending with / (schema pattern /.*[^/]); only deletions may lack it"},
	{RulePathUnused, "§7", Warning, "path is used only in manifests"},
	{RuleHash, "§7", Error, "hash is space-separated alg:hexdigest tokens, each algorithm once, with the digest length of md5, sha-1, sha-256…"},
	{RuleLength, "§7", Error, "length is a non-negative integer"},
	{RuleType, "§7", Error, "type is a bare media type (type/subtype, RFC 6838), without parameters"},
	{RuleTypePattern, "schema", Warning, "type matches the schema's pattern [\\w-]+/[\\w-]+, which rejects correct IANA names with dots (application/vnd.ms-excel)"},
	{RuleLoc, "§7, schema", Error, "<loc> is an absolute URI of 12 to 2,048 characters"},
	{RuleLocEscape, "§7", Warning, "<loc> is percent-encoded: no spaces, non-ASCII or other characters URIs cannot carry, and no raw # or ? that a name holds (…/what?.txt names …/what; a ? before name=value pairs is taken for a query)"},
	{RuleDuplicateLoc, "§10.1, §11.2, Archives", Error, "a resource appears once in a Resource List or Resource Dump Manifest, a document once in an archive"},
	{RuleLink, "§7, schema", Error, "every <rs:ln> has rel and href, and href is a URI"},
	{RuleRel, "§7", Warning, "rel values are registered relation types (lower case) or absolute URIs"},
	{RulePri, "§7, schema", Error, "pri is an integer from 1 to 999999"},
	{RuleMDRepeat, "§7", Error, "an entry has at most one <rs:md>"},
	{RuleAttrPrefix, "§7", Error, "ResourceSync attributes carry no namespace prefix; other attributes are in another namespace"},
	{RuleLimitEntries, "§7", Error, "at most 50,000 entries per document"},
	{RuleLimitBytes, "§7", Error, "at most 50 MB (52,428,800 bytes, uncompressed) per document"},
	{RuleEmpty, "§7, schema", Warning, "a document without entries: the spec allows it, the official schemas do not"},
	{RuleUp, "§10-§13", Warning, "capability documents link rel=\"up\" to their Capability List (required by the spec, missing from its Examples 1-5 and 8)"},
	{RuleCapListUp, "§9", Error, "a Capability List links rel=\"up\" to the Source Description"},
	{RuleCapListEntry, "§9", Error, "every entry of a Capability List has <rs:md capability> naming a capability document"},
	{RuleCapListUnique, "§9", Error, "a Capability List lists each capability once"},
	{RuleCapListUnknown, "§9", Warning, "a Capability List lists capabilities this validator knows: those of the core, the notification channels and the archives of the other ResourceSync specifications"},
	{RuleDescEntry, "§8", Error, "an <rs:md> of a Source Description entry has capability=capabilitylist"},
	{RuleLastmodOmit, "§8, §9", Warning, "a Source Description or Capability List has no <lastmod>, unless it is rewritten each time a document it lists changes"},
	{RuleNotifyEntry, "Framework Notification §3", Error, "an entry of a framework notification names the capability of the document it is about"},

	{RuleLinkResolve, "§6.2", Error, "up, index, contents links and listed documents within the site lead to a document"},
	{RuleLinkCapability, "§6.2", Error, "a linked document is what the link says: up leads to the Capability List (from a Capability List: the Source Description), a listed document has the capability its parent gives, contents leads to a manifest"},
	{RuleIndexPart, "§10.2, §12.2", Error, "the documents of an index are <urlset>s of its capability that link rel=\"index\" back to it"},
	{RuleIndexLink, "§10.1, §11.1, §12.1, §13.1", Warning, "a document listed by an index links rel=\"index\" to it"},
	{RuleIndexUntil, "§12.2", Error, "a Change List Index gives until for a closed Change List and none for the open one"},
	{RuleArchiveEntry, "Archives §3-§6", Error, "an archive lists documents of the capability it archives, oldest first, each with the times of its root (at, or from and until)"},
	{RuleUpConsistent, "§6.2", Warning, "the documents of an index link up to the same Capability List as the index"},
	{RuleCapListListed, "§8", Warning, "a Capability List is listed by the Source Description it links up to"},
	{RuleOrphan, "§6.2", Warning, "every document of the site is reachable from the Source Description"},
	{RuleWellKnown, "§6.3.2", Error, "a site publishes its Source Description at /.well-known/resourcesync"},
	{RuleFetch, "§6.2", Error, "a document can be fetched (HTTP 200)"},
	{RuleContentType, "§6.3", Warning, "documents are served as XML (application/xml), the extension-less /.well-known/resourcesync included"},
	{RuleLimitDocuments, "-", Warning, "the crawl stopped at --max-documents: some documents were not checked"},

	{RuleAuditMissing, "§10.1", Error, "every listed resource exists (audit)"},
	{RuleAuditLength, "§7", Error, "a resource has the length its entry gives (audit)"},
	{RuleAuditHash, "§7", Error, "a resource has the digests its entry gives (audit)"},
	{RuleAuditType, "§7", Warning, "a resource is served with the type its entry gives (audit over HTTP)"},
	{RuleAuditUnchecked, "§7", Warning, "a digest could not be audited: an algorithm this validator does not compute"},
	{RuleAuditUnreached, "§10.1", Error, "every listed resource is within the audit's reach: under the URL the resources directory is served at, or on the site validated (other sites with --cross-site)"},
	{RuleDumpManifest, "§11.2, §13.2", Error, "a dump's ZIP package holds its manifest as manifest.xml at the top level, and it is a valid manifest (audit)"},
}

// ruleIndex maps a rule ID to its catalogue entry.
var ruleIndex = func() map[string]Rule {
	m := make(map[string]Rule, len(catalogue))
	for _, r := range catalogue {
		m[r.ID] = r
	}
	return m
}()

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
