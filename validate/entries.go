package validate

import (
	"slices"
	"strings"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/published/rules"
)

// archiveEntry checks an entry of an archive (not of its index): the
// times of the past document it lists, oldest first.
func (c *docCheck) archiveEntry(e *rsxml.Entry, line int) {
	if msg := rules.ArchiveEntry(c.capability, rules.Clip(e.Loc), &e.MD); msg != "" {
		c.add(line, RuleTimeRequired, "%s", msg)
	}
	switch rules.Archived[c.capability] {
	case rsxml.CapResourceList, rsxml.CapResourceDump:
		c.chronology(e.MD.At, line, RuleArchiveEntry, "at")
	default:
		c.chronology(e.MD.From, line, RuleArchiveEntry, "from")
	}
}

func (c *docCheck) entry(e *rsxml.Entry) {
	info := c.info
	info.entries++
	if info.entries == rsxml.MaxEntries+1 {
		c.over = e.Line
	}
	for _, d := range e.Deviations {
		c.add(d.Line, RuleSchema, "%s", d.Msg)
	}
	for _, d := range e.Foreign {
		c.add(d.Line, RuleForeign, "%s; the official schemas' strict wildcard rejects it", d.Msg)
	}
	if bad, esc := rules.Loc(e.Loc); bad != "" {
		c.add(e.Line, RuleLoc, "%s", bad)
	} else if esc != "" {
		c.add(e.Line, RuleLocEscape, "%s", esc)
	}
	if e.Lastmod != "" {
		if _, msg := rules.Lastmod(e.Lastmod); msg != "" {
			c.add(e.Line, RuleDatetime, "%s", msg)
		}
	}
	if msg := rules.Changefreq(e.Changefreq); msg != "" {
		c.add(e.Line, RuleSchema, "%s", msg)
	}
	if msg := rules.Priority(e.Priority); msg != "" {
		c.add(e.Line, RuleSchema, "%s", msg)
	}
	mdLine := e.MDLine
	if mdLine == 0 {
		mdLine = e.Line
	}
	if msg := rules.MDRepeat(e.MDCount); msg != "" {
		c.add(e.Line, RuleMDRepeat, "%s", msg)
	}
	c.checkMD(&e.MD, mdLine, "<rs:md>")
	for i := range e.Links {
		c.checkLink(&e.Links[i])
	}
	if c.capability == "" {
		return
	}
	if c.hasTimes {
		c.unusedTimes(&e.MD, mdLine, c.times.EntryAt, c.times.EntryFrom, "an entry's <rs:md>", describe(info))
		if c.times.EntryFrom == rules.Recommended && e.MD.From == "" {
			c.add(mdLine, RuleTimeRecommended, "the entry of %s has no from: Appendix A recommends it", rules.Clip(e.Loc))
		}
	}
	if e.MD.Path != "" && !rules.IsManifest(c.capability) {
		c.add(mdLine, RulePathUnused, "path is used in manifests only, not in a %s", rules.Name(c.capability))
	}
	c.byCapability(e, mdLine)
}

func (c *docCheck) byCapability(e *rsxml.Entry, mdLine int) {
	info := c.info
	switch {
	case c.capability == rsxml.CapDescription:
		if e.HasMD && e.MD.Capability != rsxml.CapCapabilityList {
			c.add(mdLine, RuleDescEntry, "the <rs:md> of a Source Description entry has capability=\"capabilitylist\", not %q", e.MD.Capability)
		}
		c.lastmodOmitted(e)
		c.keepChild(e)
	case c.capability == rsxml.CapCapabilityList:
		c.capListEntry(e, mdLine)
		c.lastmodOmitted(e)
		c.keepChild(e)
	case rules.IsArchive(c.capability):
		c.keepChild(e)
		if !info.index {
			c.unique(e)
			c.archiveEntry(e, mdLine)
		}
	case info.index:
		c.keepChild(e)
		switch c.capability {
		case rsxml.CapChangeList:
			c.chronology(e.MD.From, mdLine, RuleChronology, "from")
		case rsxml.CapChangeDump:
			c.chronology(e.MD.From, mdLine, RuleChronologyDump, "from")
		}
	case c.capability == rsxml.CapResourceList:
		c.unique(e)
		c.spanOf(e.Loc)
		c.keepResource(e, false)
	case c.capability == rsxml.CapResourceDumpManifest:
		c.unique(e)
		c.manifestPath(e, mdLine)
		c.keepBitstream(e)
	case rules.IsNotification(c.capability):
		c.notificationEntry(e, mdLine)
	case c.capability == rsxml.CapChangeList || c.capability == rsxml.CapChangeDumpManifest:
		c.change(e, mdLine)
		if c.capability == rsxml.CapChangeDumpManifest {
			c.manifestPath(e, mdLine)
			c.keepBitstream(e)
		}
	case c.capability == rsxml.CapResourceDump:
		c.keepChild(e)
		c.keepResource(e, true)
		c.packageTimes(e, mdLine)
	case c.capability == rsxml.CapChangeDump:
		c.keepChild(e)
		c.keepResource(e, true)
		c.packageTimes(e, mdLine)
		c.chronology(e.MD.From, mdLine, RuleChronologyDump, "from")
	}
}

// packageTimes checks the times of a dump's package against the dump's
// (its manifest's: set.checkContents).
func (c *docCheck) packageTimes(e *rsxml.Entry, line int) {
	if msg := rsxml.PackageTimes(&c.doc.MD, &e.MD, nil); msg != "" {
		c.add(line, RulePackageTimes, "%s: %s", rules.Clip(e.Loc), msg)
	}
}

func (c *docCheck) lastmodOmitted(e *rsxml.Entry) {
	if e.Lastmod != "" {
		c.add(e.Line, RuleLastmodOmit, "<lastmod> in a %s must be omitted unless the document is rewritten whenever a document it lists changes", rules.Name(c.capability))
	}
}

func (c *docCheck) capListEntry(e *rsxml.Entry, line int) {
	if c.caps == nil {
		c.caps = make(map[string]int)
	}
	entry, unique := rules.CapListEntry(rules.Clip(e.Loc), e.MD.Capability, e.Line, c.caps)
	switch {
	case entry != "":
		c.add(line, RuleCapListEntry, "%s", entry)
	case e.MD.Capability != "" && !rules.Known(e.MD.Capability):
		c.add(line, RuleCapListUnknown, "capability=%q is not a capability of ResourceSync 1.1, its notification specifications or its archives", e.MD.Capability)
	}
	if unique != "" {
		c.add(line, RuleCapListUnique, "%s", unique)
	}
}

// spanOf notes loc, the next <loc> of a Resource List, in its span.
func (c *docCheck) spanOf(loc string) {
	sp := &c.span
	if c.locsSeen == 0 {
		sp.first, sp.ordered, sp.decoded = loc, true, true
	} else {
		sp.ordered = sp.ordered && sp.last < loc
		sp.decoded = sp.decoded && uri.CompareDecoded(sp.last, loc) < 0
	}
	sp.last = loc
	c.locsSeen++
}

func (c *docCheck) unique(e *rsxml.Entry) {
	if first, dup := c.locs.add(e.Loc, e.Line); dup {
		c.add(e.Line, RuleDuplicateLoc, "%s is listed again (first on line %d); a %s describes each resource once", rules.Clip(e.Loc), first, rules.Name(c.capability))
	}
}

// locSet finds the <loc>s a document repeats. While each loc sorts after
// the one before (rsgen writes lists so) it repeats none, and is appended
// to blocks (no copy as one slice grows, no hashing); the first loc out
// of order moves them all to a map.
type locSet struct {
	sorted [][]lineOf     // blocks of locBlock
	last   lineOf         // the last of sorted
	byLoc  map[string]int // loc → line of its first entry, once out of order
}

type lineOf struct {
	loc  string
	line int
}

const locBlock = 4096

// add notes loc on line; if it was there, it returns its first line and true.
func (s *locSet) add(loc string, line int) (int, bool) {
	if s.byLoc == nil {
		switch {
		case len(s.sorted) == 0 || loc > s.last.loc:
			if len(s.sorted) == 0 || len(s.sorted[len(s.sorted)-1]) == locBlock {
				s.sorted = append(s.sorted, make([]lineOf, 0, locBlock))
			}
			s.last = lineOf{loc, line}
			s.sorted[len(s.sorted)-1] = append(s.sorted[len(s.sorted)-1], s.last)
			return 0, false
		case loc == s.last.loc:
			return s.last.line, true
		}
		s.byLoc = make(map[string]int, 2*locBlock*len(s.sorted))
		for _, block := range s.sorted {
			for _, l := range block {
				s.byLoc[l.loc] = l.line
			}
		}
		s.sorted = nil
	}
	if first, dup := s.byLoc[loc]; dup {
		return first, true
	}
	s.byLoc[loc] = line
	return 0, false
}

func (c *docCheck) manifestPath(e *rsxml.Entry, line int) {
	switch {
	case e.MD.Path != "":
		// Its pattern is checked with the other attributes.
	case c.capability == rsxml.CapChangeDumpManifest && e.MD.Change == rsxml.ChangeDeleted:
	case c.capability == rsxml.CapChangeDumpManifest:
		c.add(line, RulePath, "the entry of %s has no path; a Change Dump Manifest needs one except for deletions", rules.Clip(e.Loc))
	default:
		c.add(line, RulePath, "the entry of %s has no path; a Resource Dump Manifest needs one for every bitstream", rules.Clip(e.Loc))
	}
}

func (c *docCheck) change(e *rsxml.Entry, line int) {
	if e.MD.Change == "" {
		c.add(line, RuleChange, "%s", rules.Change(rules.Clip(e.Loc), "", rules.Name(c.capability)))
	}
	if e.MD.Datetime == "" {
		return
	}
	t, ok := checkDatetimeQuiet(e.MD.Datetime)
	if !ok {
		return
	}
	// Each bound the document has on its own: a datetime can be outside
	// both when until is before from.
	var msgs [2]string
	if !c.from.IsZero() {
		msgs[0] = rules.NotBefore(e.MD.Datetime, t, c.from, c.doc.MD.From)
	}
	if !c.until.IsZero() {
		msgs[1] = rules.NotAfter(e.MD.Datetime, t, c.until, "the document's until="+c.doc.MD.Until)
	}
	for _, msg := range msgs {
		if msg != "" {
			c.add(line, RuleDatetimeRange, "%s", msg)
		}
	}
	c.chronology(e.MD.Datetime, line, RuleChronology, "datetime")
}

// notificationEntry checks an entry of a notification (Change and
// Framework Notification 1.0.1, section 3), which need not be in order.
func (c *docCheck) notificationEntry(e *rsxml.Entry, line int) {
	if e.MD.Change == "" {
		c.add(line, RuleChange, "%s", rules.Change(rules.Clip(e.Loc), "", "notification"))
	}
	if c.capability != rsxml.CapFrameworkNotification {
		return
	}
	switch capability := e.MD.Capability; {
	case capability == "":
		c.add(line, RuleNotifyEntry, "the entry of %s has no capability attribute: an entry of a framework notification names the capability of the document it is about", rules.Clip(e.Loc))
	case !rules.Known(capability) || rules.IsNotification(capability):
		c.add(line, RuleNotifyEntry, "capability=%q is not that of a document of the framework", capability)
	}
}

func (c *docCheck) chronology(v string, line int, rule, attr string) {
	if t, ok := checkDatetimeQuiet(v); v != "" && ok {
		if msg := c.order.Next(attr, v, t, line); msg != "" {
			c.add(line, rule, "%s", msg)
		}
	}
}

func (c *docCheck) keepChild(e *rsxml.Entry) {
	ch := child{loc: e.Loc, line: e.Line, md: e.MD}
	for _, l := range e.Links {
		if slices.Contains(strings.Fields(l.Rel), "contents") {
			ch.contents = l
			break
		}
	}
	ch.md.Extra = nil
	c.info.children = append(c.info.children, ch)
}

func (c *docCheck) keepResource(e *rsxml.Entry, pkg bool) {
	if c.opts.audit {
		c.info.resources = append(c.info.resources, resource{loc: e.Loc, line: e.Line, length: e.MD.Length, hash: e.MD.Hash, typ: e.MD.Type, pkg: pkg})
	}
}

func (c *docCheck) keepBitstream(e *rsxml.Entry) {
	if c.opts.manifest && e.MD.Path != "" {
		c.info.resources = append(c.info.resources, resource{loc: e.Loc, line: e.Line, length: e.MD.Length, hash: e.MD.Hash, path: e.MD.Path})
	}
}

func (c *docCheck) checkMD(md *rsxml.MD, line int, where string) {
	at, okAt := c.mdTime(line, where, "at", md.At)
	done, okDone := c.mdTime(line, where, "completed", md.Completed)
	from, okFrom := c.mdTime(line, where, "from", md.From)
	until, okUntil := c.mdTime(line, where, "until", md.Until)
	c.mdTime(line, where, "datetime", md.Datetime)
	c.mdTime(line, where, "modified", md.Modified)
	if okAt && okDone && done.Before(at) {
		c.add(line, RuleInterval, "%s: completed=%s is before at=%s", where, md.Completed, md.At)
	}
	if okFrom && okUntil {
		if msg := rules.Interval(md.From, md.Until, from, until); msg != "" {
			c.add(line, RuleInterval, "%s: %s", where, msg)
		}
	}
	if md.Change != "" {
		if msg := rules.Change("", md.Change, ""); msg != "" {
			c.add(line, RuleChange, "%s: %s", where, msg)
		}
	}
	c.checkCommon(line, where, md.Hash, md.Length, md.Type, md.Path, md.Extra)
}

// mdTime checks the datetime attribute attr of an <rs:md> ("" if absent)
// and returns its time, if valid.
func (c *docCheck) mdTime(line int, where, attr, v string) (time.Time, bool) {
	if v == "" {
		return time.Time{}, false
	}
	t, msg := rules.Datetime(v)
	if msg != "" {
		c.add(line, RuleDatetime, "%s: %s=%s", where, attr, msg)
		return time.Time{}, false
	}
	if tv := strings.TrimSpace(v); attr != "modified" && !strings.HasSuffix(tv, "Z") {
		what := "is not in UTC"
		if strings.HasSuffix(tv, "+00:00") || strings.HasSuffix(tv, "-00:00") {
			what = "is in UTC, but written with an offset rather than Z"
		}
		c.add(line, RuleDatetimeUTC, "%s: %s=%q %s; the spec recommends YYYY-MM-DDThh:mm:ss[.s]Z", where, attr, v, what)
	}
	return t, true
}

func (c *docCheck) checkCommon(line int, where, hash, length, typ, path string, extra []rsxml.Attr) {
	if hash != "" {
		var tokens [4]hashing.Token
		hashing.ScanAttr(hash, tokens[:0], func(p hashing.AttrProblem) {
			var sev Severity
			if p.NonHex {
				p.Msg += " (spec Example 27 is not hex either; --lenient-hash makes this a warning)"
				if c.opts.lenientHash {
					sev = Warning
				}
			}
			c.s.addAs(sev, c.info.name, line, RuleHash, "%s: %s", where, p.Msg)
		})
	}
	if length != "" {
		if _, msg := rules.Length(length); msg != "" {
			c.add(line, RuleLength, "%s: %s", where, msg)
		}
	}
	if typ != "" {
		bad, pattern := c.checkType(typ)
		if bad != "" {
			c.add(line, RuleType, "%s: %s", where, bad)
		} else if pattern != "" {
			c.add(line, RuleTypePattern, "%s: %s", where, pattern)
		}
	}
	if path != "" {
		if msg := rules.Path(path); msg != "" {
			c.add(line, RulePath, "%s: %s", where, msg)
		}
	}
	for _, a := range extra {
		if undeclared, prefix := rules.ExtraAttr(a); undeclared != "" {
			c.add(line, RuleSchema, "%s: %s", where, undeclared)
		} else if prefix != "" {
			c.add(line, RuleAttrPrefix, "%s: %s", where, prefix)
		}
	}
}

func (c *docCheck) checkLink(l *rsxml.Link) {
	where := "<rs:ln>"
	if l.Rel != "" {
		where = "<rs:ln rel=\"" + rules.Clip(l.Rel) + "\">"
	}
	if l.Rel == "" {
		c.add(l.Line, RuleLink, "<rs:ln> has no rel, which every link needs")
	} else if bad, odd := rules.Rel(l.Rel); bad != "" {
		c.add(l.Line, RuleLink, "%s", bad)
	} else if odd != "" {
		c.add(l.Line, RuleRel, "%s", odd)
	}
	if l.Href == "" {
		c.add(l.Line, RuleLink, "%s has no href, which every link needs", where)
	} else if !rules.IsAnyURI(l.Href) {
		c.add(l.Line, RuleLink, "%s: href=%q is not a URI", where, rules.Clip(l.Href))
	}
	if l.Profile != "" && !rules.IsAnyURI(l.Profile) {
		c.add(l.Line, RuleLink, "%s: profile=%q is not a URI", where, rules.Clip(l.Profile))
	}
	if l.Pri != "" {
		if msg := rules.Pri(l.Pri); msg != "" {
			c.add(l.Line, RulePri, "%s: %s", where, msg)
		}
	}
	if l.Modified != "" {
		if _, msg := rules.Datetime(l.Modified); msg != "" {
			c.add(l.Line, RuleDatetime, "%s: modified=%s", where, msg)
		}
	}
	c.checkCommon(l.Line, where, l.Hash, l.Length, l.Type, l.Path, l.Extra)
}
