package validate

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/published/rules"
	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/extsort"
	"github.com/rsgen/rsgen/internal/text/units"
)

// checkLinks runs the checks that span documents: where the navigation
// links (section 6.2) lead, the parts of indexes, reachability.
func (st *set) checkLinks(ctx context.Context) {
	for _, d := range slices.Clone(st.order) {
		if !d.readable || d.capability == "" {
			continue
		}
		st.checkUp(ctx, d)
		st.checkIndexLink(ctx, d)
		switch {
		case d.capability == rsxml.CapDescription && !d.index:
			st.checkChildren(ctx, d, func(c *child) string { return rsxml.CapCapabilityList })
		case d.capability == rsxml.CapCapabilityList:
			st.checkChildren(ctx, d, func(c *child) string {
				if rules.IsNotification(c.md.Capability) {
					return ""
				}
				return c.md.Capability
			})
			for _, c := range d.children {
				if t := st.byKey[urlKey(c.loc)]; t != nil {
					st.withParts(t, func(d *docInfo) { d.live = true })
				}
			}
		case d.index:
			st.checkParts(ctx, d)
			if d.capability == rsxml.CapResourceList {
				st.checkPartsUnique(ctx, d)
			}
		case rules.IsArchive(d.capability):
			st.checkArchived(ctx, d)
		}
		st.checkContents(ctx, d)
	}
	st.checkReachable()
	if st.limited {
		st.s.add(st.order[0].name, 0, RuleLimitDocuments, "stopped at %s (--max-documents): the others were not checked", units.Count(st.opts.MaxDocuments, "document"))
	}
}

func (st *set) checkUp(ctx context.Context, d *docInfo) {
	if d.capability == rsxml.CapDescription {
		return
	}
	l, ok := d.link("up")
	if !ok || l.Href == "" {
		return
	}
	want := rsxml.CapCapabilityList
	if d.capability == rsxml.CapCapabilityList {
		want = rsxml.CapDescription
	}
	t := st.target(ctx, d, l.Line, "rel=\"up\"", l.Href)
	if t == nil {
		return
	}
	if t.capability != want {
		st.s.add(d.name, l.Line, RuleLinkCapability, "rel=\"up\" leads to %s, a %s; it should lead to the %s", rules.Clip(l.Href), describe(t), rules.Name(want))
		return
	}
	if want == rsxml.CapDescription && d.url != "" && !t.lists(d.url) {
		st.s.add(d.name, l.Line, RuleCapListListed, "the Source Description at %s does not list this Capability List (%s)", rules.Clip(l.Href), d.url)
	}
}

func (st *set) checkIndexLink(ctx context.Context, d *docInfo) {
	l, ok := d.link("index")
	if !ok || l.Href == "" || d.index {
		return
	}
	t := st.target(ctx, d, l.Line, "rel=\"index\"", l.Href)
	if t == nil {
		return
	}
	if !t.index || t.capability != d.capability {
		st.s.add(d.name, l.Line, RuleLinkCapability, "rel=\"index\" leads to %s, a %s; it should lead to a %s Index", rules.Clip(l.Href), describe(t), rules.Name(d.capability))
		return
	}
	if d.url != "" && !t.lists(d.url) {
		st.s.add(d.name, l.Line, RuleIndexPart, "rel=\"index\" leads to %s, which does not list this document (%s)", rules.Clip(l.Href), d.url)
	}
}

// checkChildren checks that each document d lists has the capability want
// gives ("": not checked).
func (st *set) checkChildren(ctx context.Context, d *docInfo, want func(*child) string) {
	for i := range d.children {
		c := &d.children[i]
		w := want(c)
		if w == "" || c.loc == "" {
			continue
		}
		t := st.target(ctx, d, c.line, "the entry", c.loc)
		if t == nil {
			continue
		}
		if t.capability != w {
			st.s.add(d.name, c.line, RuleLinkCapability, "%s is a %s; the %s says it is a %s", rules.Clip(c.loc), describe(t), rules.Name(d.capability), rules.Name(w))
		}
	}
}

func (st *set) checkParts(ctx context.Context, d *docInfo) {
	up, _ := d.link("up")
	listed := map[*docInfo]int{} // each part, by the line of its first entry
	for i := range d.children {
		c := &d.children[i]
		t := st.target(ctx, d, c.line, "the entry", c.loc)
		if t == nil {
			continue
		}
		if first, again := listed[t]; again {
			st.s.add(d.name, c.line, RuleDuplicateLoc, "%s is listed again (first on line %d, under the same or another spelling of its URL); an index lists each of its parts once, or what they list is listed twice", rules.Clip(c.loc), first)
			continue
		}
		listed[t] = c.line
		switch {
		case t.index:
			st.s.add(d.name, c.line, RuleIndexPart, "%s is an index itself; an index lists <urlset> documents only", rules.Clip(c.loc))
			continue
		case t.capability != d.capability:
			st.s.add(d.name, c.line, RuleIndexPart, "%s is a %s; this index lists %ss", rules.Clip(c.loc), describe(t), rules.Name(d.capability))
			continue
		}
		if il, ok := t.link("index"); !ok {
			st.s.add(t.name, t.mdLine, RuleIndexLink, "the %s is listed by the index %s but has no <rs:ln rel=\"index\"> to it", rules.Name(t.capability), d.displayURL())
		} else if d.url != "" && urlKey(il.Href) != urlKey(d.url) {
			st.s.add(t.name, il.Line, RuleIndexPart, "rel=\"index\" leads to %s, but the index that lists this document is %s", rules.Clip(il.Href), d.url)
		}
		if tu, ok := t.link("up"); ok && up.Href != "" && urlKey(tu.Href) != urlKey(up.Href) {
			st.s.add(t.name, tu.Line, RuleUpConsistent, "rel=\"up\" leads to %s, but its index links up to %s", rules.Clip(tu.Href), rules.Clip(up.Href))
		}
		if d.capability == rsxml.CapChangeList {
			switch {
			case t.md.Until != "" && c.md.Until == "":
				st.s.add(d.name, c.line, RuleIndexUntil, "%s is closed (until=%s) but its entry has no until", rules.Clip(c.loc), t.md.Until)
			case t.md.Until == "" && c.md.Until != "":
				st.s.add(d.name, c.line, RuleIndexUntil, "%s is open (no until) but its entry has until=%s", rules.Clip(c.loc), c.md.Until)
			}
		}
	}
}

// checkArchived checks that the documents an archive lists are of the
// capability it archives, with the times its entry gives.
func (st *set) checkArchived(ctx context.Context, d *docInfo) {
	want := rules.Archived[d.capability]
	for i := range d.children {
		c := &d.children[i]
		t := st.target(ctx, d, c.line, "the entry", c.loc)
		if t == nil {
			continue
		}
		if t.capability != want {
			st.s.add(d.name, c.line, RuleArchiveEntry, "%s is a %s; a %s lists %ss", rules.Clip(c.loc), describe(t), rules.Name(d.capability), rules.Name(want))
			continue
		}
		st.withParts(t, func(d *docInfo) { d.archived = true })
		for _, a := range [][3]string{{"at", c.md.At, t.md.At}, {"from", c.md.From, t.md.From}, {"until", c.md.Until, t.md.Until}} {
			if a[1] == "" {
				continue
			}
			entry, ok1 := checkDatetimeQuiet(a[1])
			root, ok2 := checkDatetimeQuiet(a[2])
			if ok1 && (!ok2 || !entry.Equal(root)) {
				st.s.add(d.name, c.line, RuleArchiveEntry, "the entry gives %s=%s, but %s has %s", a[0], a[1], rules.Clip(c.loc), describeTime(a[0], a[2]))
			}
		}
	}
}

func (st *set) withParts(d *docInfo, f func(*docInfo)) {
	f(d)
	if !d.index {
		return
	}
	for _, c := range d.children {
		if part := st.byKey[urlKey(c.loc)]; part != nil {
			f(part)
		}
	}
}

func describeTime(attr, v string) string {
	if v == "" {
		return "no " + attr
	}
	return attr + "=" + v
}

// checkContents checks that the contents links of a dump's packages lead
// to manifests with the times of their packages.
func (st *set) checkContents(ctx context.Context, d *docInfo) {
	want := ""
	switch d.capability {
	case rsxml.CapResourceDump:
		want = rsxml.CapResourceDumpManifest
	case rsxml.CapChangeDump:
		want = rsxml.CapChangeDumpManifest
	}
	if want == "" || d.index {
		return
	}
	for i := range d.children {
		c := &d.children[i]
		if c.contents.Href == "" {
			continue
		}
		t := st.target(ctx, d, c.contents.Line, "rel=\"contents\"", c.contents.Href)
		switch {
		case t == nil:
		case t.capability != want:
			st.s.add(d.name, c.contents.Line, RuleLinkCapability, "rel=\"contents\" leads to %s, a %s; it should lead to a %s", rules.Clip(c.contents.Href), describe(t), rules.Name(want))
		case rsxml.PackageTimes(&d.md, &c.md, nil) == "": // else reported with the entry
			if msg := rsxml.PackageTimes(&d.md, &c.md, &t.md); msg != "" {
				st.s.add(d.name, c.line, RulePackageTimes, "%s: %s", rules.Clip(c.loc), msg)
			}
		}
	}
}

// target returns the document a link of d leads to, reporting a link
// within the set that leads nowhere. Links out of the set give nil.
func (st *set) target(ctx context.Context, d *docInfo, line int, what, href string) *docInfo {
	t, why, in := st.get(ctx, href)
	if !in {
		return nil
	}
	if t == nil {
		st.s.add(d.name, line, RuleLinkResolve, "%s leads to %s: %s", what, rules.Clip(href), why)
		return nil
	}
	if !t.readable {
		return nil // its own findings say why
	}
	return t
}

// checkReachable warns of documents no navigation from a Source
// Description (if the set has one) reaches.
func (st *set) checkReachable() {
	reached := map[*docInfo]bool{}
	var queue []*docInfo
	for _, d := range st.order {
		if d.capability == rsxml.CapDescription {
			reached[d] = true
			queue = append(queue, d)
		}
	}
	if len(queue) == 0 {
		return
	}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		for _, c := range d.children {
			for _, u := range []string{c.loc, c.contents.Href} {
				if d.capability != rsxml.CapDescription && d.capability != rsxml.CapCapabilityList && !d.index && !rules.IsArchive(d.capability) && u == c.loc {
					continue // a dump's package, not a document
				}
				if t, ok := st.byKey[urlKey(u)]; ok && u != "" && !reached[t] {
					reached[t] = true
					queue = append(queue, t)
				}
			}
		}
	}
	for _, d := range st.order {
		if !reached[d] && d.readable {
			st.s.add(d.name, 0, RuleOrphan, "no Source Description, Capability List, index or archive leads to this document")
		}
	}
}

func (d *docInfo) lists(u string) bool {
	k := urlKey(u)
	for _, c := range d.children {
		if urlKey(c.loc) == k {
			return true
		}
	}
	return false
}

func (d *docInfo) displayURL() string {
	if d.url != "" {
		return d.url
	}
	return d.name
}

func describe(d *docInfo) string {
	if d.capability == "" {
		return "document without a known capability"
	}
	return rules.Describe(d.capability, d.index)
}

// checkPartsUnique finds the resources two parts of the Resource List
// index d list (section 10.1). Parts in order, as rsgen writes them,
// cannot share one (locSpan); others are read again and their <loc>s
// sorted on disk, so that memory stays bounded.
func (st *set) checkPartsUnique(ctx context.Context, d *docInfo) {
	var parts []*docInfo
	for i := range d.children {
		t, _, _ := st.get(ctx, d.children[i].loc) // loaded by checkParts
		if t == nil || t.index || t.capability != rsxml.CapResourceList || t.span == nil || slices.Contains(parts, t) {
			continue
		}
		parts = append(parts, t)
	}
	if len(parts) < 2 {
		return
	}
	ordered, decoded := true, true
	for i, t := range parts {
		ordered = ordered && t.span.ordered && (i == 0 || t.span.first > parts[i-1].span.last)
		decoded = decoded && t.span.decoded && (i == 0 || uri.CompareDecoded(t.span.first, parts[i-1].span.last) > 0)
	}
	if ordered || decoded {
		return
	}
	if err := st.duplicatesAcross(ctx, parts); err != nil {
		st.s.addAs(Warning, d.name, 0, RuleDuplicateLoc, "its parts could not be read again to find a resource listed in two of them: %v", err)
	}
}

// duplicatesAcross reports each <loc> two parts list, in the later part.
func (st *set) duplicatesAcross(ctx context.Context, parts []*docInfo) error {
	dir, err := confined.MkdirTemp("", "rsgen-validate-*")
	if err != nil {
		return err
	}
	defer confined.RemoveAll(dir)
	sorter := extsort.New(dir, 32<<20)
	defer sorter.Close()
	var val []byte
	for i, t := range parts {
		err := st.loader.entries(ctx, t, func(loc string, line int) error {
			val = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(val[:0], uint32(i)), uint32(line))
			return sorter.Add([]byte(loc), val)
		})
		if err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
	}
	it, err := sorter.Iter()
	if err != nil {
		return err
	}
	// The entries of one <loc>, sorted by part and line: the first is the
	// one listed first.
	type at struct{ part, line uint32 }
	var loc string
	var run []at
	flush := func() {
		slices.SortFunc(run, func(a, b at) int { return cmp.Or(cmp.Compare(a.part, b.part), cmp.Compare(a.line, b.line)) })
		for _, a := range run[1:] {
			if a.part != run[0].part { // a repeat within a part is that part's finding
				first := parts[run[0].part]
				st.s.add(parts[a.part].name, int(a.line), RuleDuplicateLoc, "%s is listed again (first in %s, line %d); a Resource List describes each resource once, across the parts of its index", rules.Clip(loc), first.displayURL(), run[0].line)
			}
		}
	}
	for it.Next() {
		if k := string(it.Key()); len(run) == 0 || k != loc {
			if len(run) > 1 {
				flush()
			}
			loc, run = k, run[:0]
		}
		v := it.Value()
		run = append(run, at{binary.BigEndian.Uint32(v), binary.BigEndian.Uint32(v[4:])})
	}
	if len(run) > 1 {
		flush()
	}
	return it.Err()
}
