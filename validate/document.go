package validate

import (
	"bufio"
	"compress/gzip"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/rules"
)

// docInfo is what reading one document tells the checks that span
// several, and the audit.
type docInfo struct {
	name       string // path or URL, as findings name it
	url        string // where the document is served; "" if unknown
	rel        string // slash-separated path in its directory, for a directory's documents
	readable   bool   // the root could be read
	capability string // the root's capability, if it is a known one
	index      bool
	md         rsxml.MD
	mdLine     int
	links      []rsxml.Link
	children   []child    // entries of a Source Description, Capability List, index; packages of a dump
	resources  []resource // entries to audit
	// archived: an archive lists it (or its index): a snapshot of the
	// past whose resources are not audited unless it is live too (a
	// Capability List lists it, or its index).
	archived, live bool
	entries        int
	span           *locSpan // a Resource List that is no index: its first and last <loc>
}

// locSpan is what a Resource List's check notes of its <loc>s: parts of an
// index each in order, each after the one before, cannot list a resource
// twice (checkPartsUnique), in the order of the <loc>s (an export's) or
// of the <loc>s decoded (uri.CompareDecoded: a tree's, by path).
type locSpan struct {
	first, last string
	ordered     bool // each <loc> sorts after the one before
	decoded     bool // likewise, decoded
}

type child struct {
	loc      string
	line     int
	md       rsxml.MD
	contents rsxml.Link // rel="contents" of a dump's package: its manifest
}

type resource struct {
	loc, length, hash, typ string
	path                   string // a manifest's bitstream: its path in the package
	line                   int
	pkg                    bool // a dump's package: its manifest is checked too
}

func (d *docInfo) link(rel string) (rsxml.Link, bool) {
	for _, l := range d.links {
		if slices.Contains(strings.Fields(l.Rel), rel) {
			return l, true
		}
	}
	return rsxml.Link{}, false
}

type docOptions struct {
	audit       bool // keep the entries whose resources an audit checks
	manifest    bool // keep the entries of a manifest (read from its package)
	lenientHash bool // a digest that is not hex is a warning
}

// checkDocument reads one document from r and checks what it alone shows.
func checkDocument(s *sink, name, docURL string, r io.Reader, opts docOptions) *docInfo {
	info := &docInfo{name: name, url: docURL}
	src, closeSrc, err := decompressed(r)
	if err != nil {
		s.add(name, 0, RuleXML, "cannot decompress: %v", err)
		return info
	}
	defer closeSrc()
	rd, err := rsxml.NewReader(src, rsxml.ReadOptions{MaxBytes: rsxml.MaxBytes, ReuseEntries: true})
	if err != nil {
		readError(s, name, err)
		return info
	}
	info.readable = true
	c := &docCheck{s: s, info: info, doc: rd.Doc(), opts: opts}
	c.root()
	for {
		e, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			readError(s, name, err)
			c.finish(rd, false)
			return info
		}
		c.entry(e)
	}
	c.finish(rd, true)
	return info
}

func decompressed(r io.Reader) (io.Reader, func(), error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b /* gzip */ {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, err
		}
		return zr, func() { zr.Close() }, nil
	}
	return br, func() {}, nil
}

// readEntries reads the <loc> and line of each entry of the document r
// holds again.
func readEntries(r io.Reader, yield func(loc string, line int) error) error {
	src, closeSrc, err := decompressed(r)
	if err != nil {
		return err
	}
	defer closeSrc()
	rd, err := rsxml.NewReader(src, rsxml.ReadOptions{MaxBytes: rsxml.MaxBytes, ReuseEntries: true})
	if err != nil {
		return err
	}
	for {
		e, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := yield(e.Loc, e.Line); err != nil {
			return err
		}
	}
}

func readError(s *sink, name string, err error) {
	var se *rsxml.SyntaxError
	switch {
	case errors.Is(err, rsxml.ErrTooLarge):
		s.add(name, 0, RuleLimitBytes, "the document is larger than 50 MB (52,428,800 bytes, uncompressed); reading stopped there")
	case errors.As(err, &se):
		rule := RuleXML
		switch se.Kind {
		case rsxml.SyntaxRoot:
			rule = RuleRoot
		case rsxml.SyntaxShape:
			rule = RuleSchema
		}
		s.add(name, se.Line, rule, "%s", se.Msg)
	default:
		s.add(name, 0, RuleXML, "cannot read: %v", err)
	}
}

type docCheck struct {
	s    *sink
	info *docInfo
	doc  *rsxml.Doc
	opts docOptions

	capability  string // the root's capability if known, else ""
	times       rules.Times
	hasTimes    bool
	from, until time.Time // the root's, if valid

	order    rules.Order
	caps     map[string]int // Capability List: capability → line of its entry
	locs     locSet         // Resource List, Resource Dump Manifest: the locs so far
	span     locSpan        // Resource List: the first and last locs so far
	locsSeen int
	over     int // line of the first entry past the limit

	// The last type checked and what checkType said of it: entries of
	// one type often follow each other.
	typ, typBad, typPattern string
}

func (c *docCheck) checkType(typ string) (bad, pattern string) {
	if typ != c.typ {
		c.typ = typ
		c.typBad, c.typPattern = rules.Type(typ)
	}
	return c.typBad, c.typPattern
}

func (c *docCheck) add(line int, rule string, format string, args ...any) {
	c.s.add(c.info.name, line, rule, format, args...)
}

func (c *docCheck) root() {
	d, info := c.doc, c.info
	info.index, info.md, info.mdLine, info.links = d.Index, d.MD, d.MDLine, d.Links
	line := d.MDLine
	c.checkMD(&d.MD, line, "root <rs:md>")
	for i := range d.Links {
		c.checkLink(&d.Links[i])
	}
	capability := d.MD.Capability
	switch {
	case line == 0:
		// Reported when the whole document is read: a late <rs:md> counts.
	case capability == "":
		c.add(line, RuleCapability, "the root <rs:md> has no capability attribute, which every ResourceSync document needs")
	case !rules.Known(capability):
		c.add(line, RuleCapability, "capability=%q is not one of %s, nor an archive of ResourceSync Archives", capability, strings.Join(slices.Concat(rsxml.Capabilities, rsxml.Notifications), ", "))
	default:
		c.capability = capability
		info.capability = capability
	}
	if c.capability == "" {
		return
	}
	if msg := rules.NotIndex(capability, d.Index); msg != "" {
		c.add(line, RuleNotIndex, "%s", msg)
	}
	c.times, c.hasTimes = rules.TimesOf(capability, d.Index)
	if c.hasTimes {
		c.rootTimes(&d.MD, line)
	}
	_, up := info.link("up")
	switch {
	case capability == rsxml.CapCapabilityList && !up:
		c.add(line, RuleCapListUp, "the Capability List has no <rs:ln rel=\"up\"> to the Source Description")
	case capability != rsxml.CapDescription && capability != rsxml.CapCapabilityList && !up:
		c.add(line, RuleUp, "the %s has no <rs:ln rel=\"up\"> to its Capability List", rules.Name(capability))
	}
}

func (c *docCheck) rootTimes(md *rsxml.MD, line int) {
	if msg := rules.RootTimes(c.capability, c.info.index, md); msg != "" {
		c.add(line, RuleTimeRequired, "%s", msg)
	}
	c.unusedTimes(md, line, c.times.RootAt, c.times.RootFrom, "its root <rs:md>", describe(c.info))
	if md.From != "" {
		c.from, _ = checkDatetimeQuiet(md.From)
	}
	if md.Until != "" {
		c.until, _ = checkDatetimeQuiet(md.Until)
	}
}

func checkDatetimeQuiet(v string) (time.Time, bool) {
	t, msg := rules.Datetime(v)
	return t, msg == ""
}

func (c *docCheck) unusedTimes(md *rsxml.MD, line int, at, from rules.Use, where, name string) {
	if at == rules.Unused {
		for _, a := range [][2]string{{"at", md.At}, {"completed", md.Completed}} {
			if a[1] != "" {
				c.add(line, RuleTimeUnused, "%s on %s: a %s does not use it (Appendix A)", a[0], where, name)
			}
		}
	}
	if from == rules.Unused {
		for _, a := range [][2]string{{"from", md.From}, {"until", md.Until}} {
			if a[1] != "" {
				c.add(line, RuleTimeUnused, "%s on %s: a %s does not use it (Appendix A)", a[0], where, name)
			}
		}
	}
}

// finish runs the checks of the whole document, complete if read to its end.
func (c *docCheck) finish(rd *rsxml.Reader, complete bool) {
	name := c.info.name
	if complete && c.capability == rsxml.CapResourceList && !c.info.index && c.locsSeen > 0 {
		sp := c.span
		sp.first, sp.last = strings.Clone(sp.first), strings.Clone(sp.last)
		c.info.span = &sp
	}
	for _, d := range rd.Deviations {
		c.add(d.Line, RuleSchema, "%s", d.Msg)
	}
	switch msg := rules.RootMD(rd.RootMDCount); {
	case rd.RootMDCount > 1:
		c.add(c.doc.MDLine, RuleRootMD, "%s", msg)
	case msg != "" && complete:
		c.add(0, RuleRootMD, "%s", msg)
	}
	if c.info.entries > rsxml.MaxEntries {
		c.s.add(name, c.over, RuleLimitEntries, "%d entries; a document may have at most 50,000 (split it under an index)", c.info.entries)
	}
	if complete && c.info.entries == 0 {
		c.s.add(name, 0, RuleEmpty, "the document has no entries: section 7 allows it, but the official schemas want at least one <%s>", map[bool]string{false: "url", true: "sitemap"}[c.info.index])
	}
}
