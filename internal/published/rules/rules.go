package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
)

var names = map[string]string{
	rsxml.CapDescription:            "Source Description",
	rsxml.CapCapabilityList:         "Capability List",
	rsxml.CapResourceList:           "Resource List",
	rsxml.CapResourceDump:           "Resource Dump",
	rsxml.CapResourceDumpManifest:   "Resource Dump Manifest",
	rsxml.CapChangeList:             "Change List",
	rsxml.CapChangeDump:             "Change Dump",
	rsxml.CapChangeDumpManifest:     "Change Dump Manifest",
	rsxml.CapChangeListNotification: "change notification",
	rsxml.CapFrameworkNotification:  "framework notification",
}

// Name is the name the spec gives the document of a capability.
func Name(capability string) string {
	if name, ok := names[capability]; ok {
		return name
	}
	if of, ok := Archived[capability]; ok {
		return names[of] + " Archive"
	}
	return fmt.Sprintf("%q document", capability)
}

// Archived maps the capability of each archive of ResourceSync Archives
// (sections 3-6) to that of the documents it lists.
var Archived = map[string]string{
	rsxml.CapResourceListArchive: rsxml.CapResourceList,
	rsxml.CapResourceDumpArchive: rsxml.CapResourceDump,
	rsxml.CapChangeListArchive:   rsxml.CapChangeList,
	rsxml.CapChangeDumpArchive:   rsxml.CapChangeDump,
}

func IsArchive(capability string) bool { _, ok := Archived[capability]; return ok }

// IsNotification reports whether capability is that of a notification
// (Change and Framework Notification 1.0.1): a payload, or a channel in a
// Capability List whose <loc> is a topic, not a document.
func IsNotification(capability string) bool {
	return slices.Contains(rsxml.Notifications, capability)
}

func Known(capability string) bool {
	return slices.Contains(rsxml.Capabilities, capability) || IsArchive(capability) || IsNotification(capability)
}

func IsManifest(capability string) bool {
	return capability == rsxml.CapResourceDumpManifest || capability == rsxml.CapChangeDumpManifest
}

// A Use says how a document uses a time attribute (Appendix A, Table 4).
type Use uint8

const (
	Unused Use = iota
	Optional
	Recommended
	Required
)

// Times is a row of Table 4: how a document uses at (and completed) and
// from (and until) on its root and on its entries.
type Times struct{ RootAt, RootFrom, EntryAt, EntryFrom Use }

// TimesOf returns the row of Table 4 of a document of capability, an
// index or not, if the table has one.
func TimesOf(capability string, index bool) (Times, bool) {
	rows, ok := table[capability]
	if index {
		return rows[1], ok
	}
	return rows[0], ok
}

// table is Table 4, a row for a document and one for its index. A
// notification has no times of its own; an archive's entries give those
// of the documents it lists.
var table = map[string][2]Times{
	rsxml.CapResourceList:           {{RootAt: Required}, {RootAt: Required, EntryAt: Optional}},
	rsxml.CapResourceDump:           {{RootAt: Required, EntryAt: Optional}, {RootAt: Required, EntryAt: Optional}},
	rsxml.CapResourceDumpManifest:   {{RootAt: Required}, {RootAt: Required}},
	rsxml.CapChangeList:             {{RootFrom: Required}, {RootFrom: Required, EntryFrom: Recommended}},
	rsxml.CapChangeDump:             {{RootFrom: Required, EntryFrom: Recommended}, {RootFrom: Required, EntryFrom: Recommended}},
	rsxml.CapChangeDumpManifest:     {{RootFrom: Required}, {RootFrom: Required}},
	rsxml.CapChangeListNotification: {},
	rsxml.CapFrameworkNotification:  {},
	rsxml.CapResourceListArchive:    {{EntryAt: Required}, {}},
	rsxml.CapResourceDumpArchive:    {{EntryAt: Required}, {}},
	rsxml.CapChangeListArchive:      {{EntryFrom: Required}, {}},
	rsxml.CapChangeDumpArchive:      {{EntryFrom: Required}, {}},
}

func Describe(capability string, index bool) string {
	if index {
		return Name(capability) + " Index"
	}
	return Name(capability)
}

// RootTimes judges that the root <rs:md> of a document of capability has
// the times Table 4 requires (rule time-required).
func RootTimes(capability string, index bool, md *rsxml.MD) string {
	t, _ := TimesOf(capability, index)
	switch {
	case t.RootAt == Required && md.At == "":
		return fmt.Sprintf("a %s needs at on its root <rs:md> (Appendix A)", Describe(capability, index))
	case t.RootFrom == Required && md.From == "":
		return fmt.Sprintf("a %s needs from on its root <rs:md> (Appendix A)", Describe(capability, index))
	}
	return ""
}

// RootMD judges the number of root <rs:md> elements (rule root-md).
func RootMD(n int) string {
	switch {
	case n == 0:
		return "the root has no <rs:md>, which every ResourceSync document needs: it carries the capability"
	case n > 1:
		return fmt.Sprintf("the root has %d <rs:md> elements; exactly one is allowed", n)
	}
	return ""
}

// MDRepeat judges the <rs:md> elements of an entry (rule md-repeat).
func MDRepeat(n int) string {
	if n > 1 {
		return fmt.Sprintf("the entry has %d <rs:md> elements; at most one is allowed", n)
	}
	return ""
}

// NotIndex judges that a Capability List, a manifest or a notification is
// a <urlset> (rule not-index).
func NotIndex(capability string, index bool) string {
	if index && (capability == rsxml.CapCapabilityList || IsManifest(capability) || IsNotification(capability)) {
		return fmt.Sprintf("a %s is a <urlset>; this one is a <sitemapindex>", Name(capability))
	}
	return ""
}

// Change judges the change attribute of an entry at loc of a document
// (of, in words) whose entries need one (rule change).
func Change(loc, change, of string) string {
	switch change {
	case "":
		return fmt.Sprintf("the entry of %s has no change attribute, which every entry of a %s needs", loc, of)
	case rsxml.ChangeCreated, rsxml.ChangeUpdated, rsxml.ChangeDeleted:
		return ""
	}
	return fmt.Sprintf("change=%q is not created, updated or deleted", change)
}

// CapListEntry judges the capability of an entry of a Capability List
// (rule caplist-entry) and that no entry before it had it (rule
// caplist-unique): seen maps each capability to the line of its entry.
func CapListEntry(loc, capability string, line int, seen map[string]int) (entry, unique string) {
	switch {
	case capability == "":
		return fmt.Sprintf("the entry of %s has no <rs:md capability>, which every Capability List entry needs", loc), ""
	case capability == rsxml.CapDescription || capability == rsxml.CapCapabilityList || IsManifest(capability):
		entry = fmt.Sprintf("capability=%q: a Capability List lists Resource Lists, Resource Dumps, Change Lists and Change Dumps, not a %s", capability, Name(capability))
	}
	if first, dup := seen[capability]; dup {
		return entry, fmt.Sprintf("capability=%q is listed again (first on line %d); a Capability List lists each capability once", capability, first)
	}
	seen[capability] = line
	return entry, ""
}

// Length reads a length, the Content-Length of a resource (rule length):
// an xsd:integer, not negative.
func Length(v string) (int64, string) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	switch {
	case err != nil:
		return 0, fmt.Sprintf("length=%q is not an integer", v)
	case n < 0:
		return n, fmt.Sprintf("length=%q is negative; it is a Content-Length in bytes", v)
	}
	return n, ""
}

// Interval judges that until is not before from (rule interval).
func Interval(from, until string, f, u time.Time) string {
	if u.Before(f) {
		return fmt.Sprintf("until=%s is before from=%s", until, from)
	}
	return ""
}

// NotBefore judges that the datetime v (t) of an entry is not before its
// document's from (fromV as written) (rule datetime-range).
func NotBefore(v string, t, from time.Time, fromV string) string {
	if t.Before(from) {
		return fmt.Sprintf("datetime=%s is before the document's from=%s", v, fromV)
	}
	return ""
}

// NotAfter judges that the datetime v (t) of an entry is not after the
// end of its document's interval, until, which after names ("the
// document's until=…") (rule datetime-range).
func NotAfter(v string, t, until time.Time, after string) string {
	if t.After(until) {
		return fmt.Sprintf("datetime=%s is after %s", v, after)
	}
	return ""
}

// An Order judges that a document lists its entries oldest first (rules
// chronology, chronology-dump, archive-entry).
type Order struct {
	prev time.Time
	line int
}

func (o *Order) Next(attr, v string, t time.Time, line int) string {
	if o.line > 0 && t.Before(o.prev) {
		return fmt.Sprintf("%s=%s is earlier than that of the entry on line %d: entries go oldest first", attr, v, o.line)
	}
	o.prev, o.line = t, line
	return ""
}

// ArchiveEntry judges that an entry at loc of an archive (of capability)
// gives the times of the document it lists: at for the snapshots of
// Resource Lists and Dumps, from and until for Change Lists and Dumps
// (rule time-required).
func ArchiveEntry(capability, loc string, md *rsxml.MD) string {
	switch Archived[capability] {
	case rsxml.CapResourceList, rsxml.CapResourceDump:
		if md.At == "" {
			return fmt.Sprintf("the entry of %s has no at: an entry of a %s gives the snapshot time of the document it lists (ResourceSync Archives)", loc, Name(capability))
		}
	default:
		if md.From == "" || md.Until == "" {
			return fmt.Sprintf("the entry of %s lacks from or until: an entry of a %s gives the interval of the document it lists (ResourceSync Archives)", loc, Name(capability))
		}
	}
	return ""
}

// Lastmod reads a <lastmod>: an xsd:date or xsd:dateTime that is also a W3C
// Datetime (rule datetime).
func Lastmod(v string) (time.Time, string) {
	t, p, err := rsxml.ParseTimeForm(strings.TrimSpace(v))
	if p != rsxml.Day && p != rsxml.Second {
		return time.Time{}, fmt.Sprintf("<lastmod> %q is neither a date (YYYY-MM-DD) nor a full W3C Datetime (YYYY-MM-DDThh:mm:ss[.s]Z)", v)
	}
	if err != nil {
		return time.Time{}, err.Error()
	}
	return t, ""
}
