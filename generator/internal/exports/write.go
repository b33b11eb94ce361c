package exports

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rsgen/rsgen/generator/internal/changelists"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/internal/binrec"
	"github.com/rsgen/rsgen/internal/extsort"
	"github.com/rsgen/rsgen/internal/rsxml"
	"github.com/rsgen/rsgen/internal/units"
	"github.com/rsgen/rsgen/internal/uri"
)

// Check checks the sorted records once they are read: duplicates, and
// bad records, which fail the build unless skipped; and it warns of locs
// on other hosts than the documents'. The build then writes, in order:
// the packages of the Resource Dump, if one is wanted (PackDump; they may
// leave records out), the Resource List (WriteResourceList), the Resource
// Dump of the packages (package dumps) and the Change List
// (WriteChangeList).
func (s *Source) Check() error {
	if err := s.dedupe(); err != nil {
		return err
	}
	if len(s.bad) > 0 {
		slices.SortFunc(s.bad, func(a, b report.Problem) int { return a.Line - b.Line })
		return &BadRecordsError{Name: s.rep.Name, Problems: s.bad, Total: s.rep.Bad}
	}
	s.warnHosts()
	return nil
}

// WriteResourceList writes the Resource List of the records published,
// completed at completed.
func (s *Source) WriteResourceList(completed time.Time) error {
	rl := &cursor{s: s.rl, skip: s.skip(splitLocKey), decode: func(key, val []byte, e *rsxml.Entry) error {
		var r spill.Resource
		if _, err := decodeItem(val, &r); err != nil {
			return err
		}
		loc, _ := splitLocKey(key)
		r.Loc = string(loc)
		r.Entry(e)
		return nil
	}}
	d := s.opt.Docs
	err := d.WriteResourceList(d.ResourceListOptions(s.opt.At, completed), s.rep.Listed, rl.entry)
	return errors.Join(err, rl.close())
}

// skip returns a test of whether a sorted record is a skipped duplicate,
// or nil if there is none.
func (s *Source) skip(split func([]byte) ([]byte, int)) func(key []byte) bool {
	if len(s.skipped) == 0 {
		return nil
	}
	return func(key []byte) bool {
		_, line := split(key)
		return s.skipped[line]
	}
}

// dedupe passes over the Resource List records in order of loc: each
// record whose loc an earlier line has is bad. It counts the rest.
func (s *Source) dedupe() error {
	it, err := s.rl.Iter()
	if err != nil {
		return err
	}
	defer it.Close()
	var prev []byte
	prevLine := 0
	for it.Next() {
		loc, line := splitLocKey(it.Key())
		if prevLine > 0 && bytes.Equal(loc, prev) {
			if s.skipped == nil {
				s.skipped = map[int]bool{}
			}
			s.skipped[line] = true
			p := report.Problem{Path: s.rep.Name, Line: line, Err: fmt.Errorf("duplicate loc %s (first at line %d)", loc, prevLine)}
			if err := s.badRecord(p); err != nil {
				return err
			}
			continue
		}
		prev, prevLine = append(prev[:0], loc...), line
		s.rep.Listed++
		if n := itemLength(it.Value()); n > 0 {
			s.rep.Bytes += n
		}
	}
	return it.Err()
}

// itemLength returns the length in a payload, or -1, decoding no more
// than it must.
func itemLength(payload []byte) int64 {
	if len(payload) < 2 || payload[0]&itemHasLength == 0 {
		return -1
	}
	d := binrec.NewReader(payload[2:], errCorruptItem)
	if payload[0]&itemHasModified != 0 {
		d.Varint()
		d.Uvarint()
	}
	n := d.Uvarint()
	if d.Err() != nil || n > 1<<62 {
		return -1
	}
	return int64(n)
}

// WriteChangeList writes the Change List of the window, unless it
// is not wanted, some record has no time to place it by, or nothing
// happened in it.
func (s *Source) WriteChangeList() error {
	rep := s.rep
	if !s.window {
		return nil
	}
	if s.future.n > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s changed after the snapshot time %s (first at line %d): they are listed, but their changes are not in the Change List until a build at or after them",
			units.Count(s.future.n, "record"), rsxml.FormatTime(s.opt.At), s.future.first))
	}
	if s.noTime.n > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("no Change List: %s no lastmod (or, for a deletion, no time) to place %s in the window by (first at line %d); a Change List would have to invent it",
			units.Count(s.noTime.n, "record")+units.Plural(s.noTime.n, " has", " have"), units.Plural(s.noTime.n, "it", "them"), s.noTime.first))
		return nil
	}
	// Count the events: a tombstone exported twice gives one event.
	events := 0
	var prev []byte
	it, err := s.ch.Iter()
	if err != nil {
		return err
	}
	skip := s.skip(func(key []byte) ([]byte, int) { _, loc, line := splitChangeKey(key); return loc, line })
	same := func(key, val []byte) bool {
		return prev != nil && bytes.Equal(eventID(key, val), prev)
	}
	for it.Next() {
		if skip != nil && skip(it.Key()) || same(it.Key(), it.Value()) {
			continue
		}
		prev = append(prev[:0], eventID(it.Key(), it.Value())...)
		events++
	}
	it.Close()
	if err := it.Err(); err != nil {
		return err
	}
	if events == 0 {
		// Nothing happened in the window: no list, as a build from a tree
		// that found nothing changed publishes none (an empty <urlset> is
		// invalid against the Sitemap schema).
		rep.NoChanges = true
		return nil
	}
	prev = nil
	cur := &cursor{s: s.ch, skip: func(key []byte) bool {
		return skip != nil && skip(key)
	}, decode: func(key, val []byte, e *rsxml.Entry) error {
		var c spill.Change
		ch, err := decodeItem(val, &c.Resource)
		if err != nil {
			return err
		}
		var loc []byte
		c.Datetime, loc, _ = splitChangeKey(key)
		c.Loc, c.Change = string(loc), changeName(ch)
		c.Entry(e)
		return nil
	}}
	cur.dup = func(key, val []byte) bool {
		if same(key, val) {
			return true
		}
		prev = append(prev[:0], eventID(key, val)...)
		return false
	}
	cur.restart = func() { prev = nil }
	d := s.opt.Docs
	wl, err := d.List(changelists.Options(d, "changelist", s.from, time.Time{}, "", changelists.ChangeTime), events, cur.entry)
	if err = errors.Join(err, cur.close()); err != nil {
		return err
	}
	for _, t := range wl.Inside {
		rep.Warnings = append(rep.Warnings, changelists.InsideNotice(t, d.Limits))
	}
	rep.ChangeList, rep.Changes = true, events
	d.Advertise(d.URL(wl.Name), rsxml.CapChangeList)
	return nil
}

// eventID is what makes an event the same as another: its datetime, loc
// and change, not the line it came from.
func eventID(key, val []byte) []byte {
	id := key[:len(key)-8] // datetime, loc, 0x00
	if len(val) > 1 {
		return append(id[:len(id):len(id)], val[1])
	}
	return id
}

// warnHosts warns when the locs are not all on the host of the documents:
// Destinations such as the reference client (resync) refuse resources on
// other hosts by default.
func (s *Source) warnHosts() {
	docs := uri.Origin(s.opt.Docs.Base)
	others, n := []string{}, 0
	for h, c := range s.hosts {
		if h != docs {
			n += c
			if h == "" {
				h = "more hosts"
			}
			others = append(others, fmt.Sprintf("%s (%d)", h, c))
		}
	}
	if n == 0 {
		return
	}
	slices.Sort(others)
	if len(others) > 5 {
		others = append(others[:5], fmt.Sprintf("and %d more hosts", len(others)-5))
	}
	s.rep.Warnings = append(s.rep.Warnings, fmt.Sprintf("%s not on %s, where the documents are served: %s; Destinations such as the reference client refuse resources on other hosts unless told otherwise",
		units.Count(n, "record")+units.Plural(n, " is", " are"), docs, strings.Join(others, ", ")))
}

// A cursor serves the fill function of a list (docs.Writer.List) from passes over a
// sorter: calls in order of index are one pass; a call for an earlier
// entry starts a new one. An error is kept for close.
type cursor struct {
	s       *extsort.Sorter
	skip    func(key []byte) bool      // records that are not entries; may be nil
	dup     func(key, val []byte) bool // like skip, for a record that repeats the previous; may be nil
	restart func()                     // called when a pass starts; may be nil
	decode  func(key, val []byte, e *rsxml.Entry) error
	it      *extsort.Iter
	next    int // index of the entry the pass gives next
	last    rsxml.Entry
	lastI   int
	err     error
}

func (c *cursor) entry(i int, e *rsxml.Entry) {
	if c.err == nil && c.it != nil && i == c.lastI && c.next == i+1 {
		*e = c.last
		return
	}
	if c.err == nil && (c.it == nil || i < c.next) {
		c.start()
	}
	for c.err == nil && c.next <= i {
		if !c.it.Next() {
			c.err = c.it.Err()
			if c.err == nil {
				c.err = fmt.Errorf("entry %d of a list is missing from the sorted records", i)
			}
			break
		}
		key, val := c.it.Key(), c.it.Value()
		if c.skip != nil && c.skip(key) || c.dup != nil && c.dup(key, val) {
			continue
		}
		if c.next == i {
			c.err = c.decode(key, val, e)
			c.last, c.lastI = *e, i
		}
		c.next++
	}
	if c.err != nil {
		*e = rsxml.Entry{}
	}
}

func (c *cursor) start() {
	if c.it != nil {
		c.it.Close()
	}
	c.next = 0
	if c.restart != nil {
		c.restart()
	}
	c.it, c.err = c.s.Iter()
}

// close ends the pass and returns the first error of any.
func (c *cursor) close() error {
	if c.it != nil {
		if err := c.it.Close(); c.err == nil {
			c.err = err
		}
	}
	return c.err
}
