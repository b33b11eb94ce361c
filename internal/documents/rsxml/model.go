package rsxml

import "strings"

// Namespaces of a ResourceSync document.
const (
	NSSitemap = "http://www.sitemaps.org/schemas/sitemap/0.9"
	NSRS      = "http://www.openarchives.org/rs/terms/"
)

// Document limits of section 7 (inherited from Sitemaps).
const (
	MaxEntries = 50000
	MaxBytes   = 52428800 // 50 MB
)

// Capability values of the root <rs:md> (section 8-13).
const (
	CapDescription          = "description"
	CapCapabilityList       = "capabilitylist"
	CapResourceList         = "resourcelist"
	CapResourceDump         = "resourcedump"
	CapResourceDumpManifest = "resourcedump-manifest"
	CapChangeList           = "changelist"
	CapChangeDump           = "changedump"
	CapChangeDumpManifest   = "changedump-manifest"

	// The archives of ResourceSync Archives (sections 3-6): the Resource
	// Lists, Resource Dumps, Change Lists and Change Dumps of the past.
	CapResourceListArchive = "resourcelist-archive"
	CapResourceDumpArchive = "resourcedump-archive"
	CapChangeListArchive   = "changelist-archive"
	CapChangeDumpArchive   = "changedump-archive"

	// The notifications of ResourceSync Change Notification and Framework
	// Notification 1.0.1 (section 3 of each): the capability of the root
	// of a payload, and of the Capability List entry that advertises its
	// channel (section 5 of each).
	CapChangeListNotification = "changelist-notification"
	CapFrameworkNotification  = "framework-notification"
)

// Capabilities lists the capability values of the core specification.
var Capabilities = []string{
	CapDescription, CapCapabilityList, CapResourceList, CapResourceDump,
	CapResourceDumpManifest, CapChangeList, CapChangeDump, CapChangeDumpManifest,
}

// Notifications lists the capability values of the notification
// specifications.
var Notifications = []string{CapChangeListNotification, CapFrameworkNotification}

// Change values of a change document entry (section 12.1).
const (
	ChangeCreated = "created"
	ChangeUpdated = "updated"
	ChangeDeleted = "deleted"
)

// MD holds the attributes of an <rs:md> element. An empty field is absent.
type MD struct {
	Capability string
	At         string
	Completed  string
	From       string
	Until      string
	Change     string
	Datetime   string
	Hash       string
	Length     string
	Type       string
	Encoding   string
	Path       string
	Modified   string
	Extra      []Attr // other attributes, as read
}

// mdAttrs are the attributes MD has a field for, in the order of its
// fields, in which they are written.
var mdAttrs = [...]string{"capability", "at", "completed", "from", "until", "change", "datetime",
	"hash", "length", "type", "encoding", "path", "modified"}

func (md *MD) fields() [len(mdAttrs)]*string {
	return [...]*string{&md.Capability, &md.At, &md.Completed, &md.From, &md.Until, &md.Change, &md.Datetime,
		&md.Hash, &md.Length, &md.Type, &md.Encoding, &md.Path, &md.Modified}
}

// IsZero reports whether md has no attribute.
func (md *MD) IsZero() bool {
	for _, f := range md.fields() {
		if *f != "" {
			return false
		}
	}
	return len(md.Extra) == 0
}

// Link holds the attributes of an <rs:ln> element (section 14).
type Link struct {
	Rel      string
	Href     string
	Type     string
	Hash     string
	Length   string
	Modified string
	Encoding string
	Path     string
	Pri      string
	Profile  string
	Extra    []Attr
	Line     int // where it was read; 0 when written
}

// linkAttrs are the attributes Link has a field for, in the order of its
// fields, in which they are written.
var linkAttrs = [...]string{"rel", "href", "type", "hash", "length", "modified", "encoding", "path", "pri", "profile"}

func (l *Link) fields() [len(linkAttrs)]*string {
	return [...]*string{&l.Rel, &l.Href, &l.Type, &l.Hash, &l.Length, &l.Modified, &l.Encoding, &l.Path, &l.Pri, &l.Profile}
}

// Attr is an attribute rsxml has no field for, kept as read.
type Attr struct {
	Space, Name, Value string
}

// Doc is the root of a document: its element and its root <rs:md> and <rs:ln>.
type Doc struct {
	Index  bool // <sitemapindex> rather than <urlset>
	MD     MD
	Links  []Link
	MDLine int // line of the root <rs:md> when read; 0 when written
}

// Link returns the href of the first root link whose rel includes rel.
func (d *Doc) Link(rel string) string { return findLink(d.Links, rel) }

// Entry is one <url> (or <sitemap> in an index).
type Entry struct {
	Loc        string
	Lastmod    string
	Changefreq string
	MD         MD
	Links      []Link
	HasMD      bool // an <rs:md> element was present (when reading)
	Line       int  // line of the entry's start tag when read; 0 when written
	MDCount    int  // number of <rs:md> elements read (more than one is invalid)

	// Read only, for validators; never written.
	Priority   string      // the <priority> text, as read
	MDLine     int         // line of the first <rs:md>
	Deviations []Deviation // departures from the schemas inside the entry
	Foreign    []Deviation // elements of other namespaces, which the schemas cannot validate
}

// Link returns the href of the first entry link whose rel includes rel.
func (e *Entry) Link(rel string) string { return findLink(e.Links, rel) }

func findLink(links []Link, rel string) string {
	for _, l := range links {
		if hasToken(l.Rel, rel) {
			return l.Href
		}
	}
	return ""
}

func hasToken(s, tok string) bool {
	for f := range strings.SplitSeq(s, " ") {
		if f == tok {
			return true
		}
	}
	return false
}

// nsDraft2012 is the namespace of the 2012 drafts of ResourceSync, which
// early documents carry.
const nsDraft2012 = "http://www.openarchives.org/rs/"

// draftHint says, of an element of the 2012 drafts' namespace, which one
// ResourceSync uses.
func draftHint(space string) string {
	if space == nsDraft2012 {
		return "; that is the namespace of the 2012 drafts: ResourceSync 1.0 and 1.1 use " + NSRS
	}
	return ""
}
