package generator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/rsgen/rsgen/internal/binrec"
	"github.com/rsgen/rsgen/internal/extsort"
	"github.com/rsgen/rsgen/internal/rsxml"
	"github.com/rsgen/rsgen/internal/units"
)

// writeExportLists checks the sorted records for duplicates, then writes
// the packages of the Resource Dump, if one is wanted (they may leave
// records out), then the Resource List, the Resource Dump and the Change
// List.
func (b *build) writeExportLists(ctx context.Context, x *exportState, root *os.Root, completed time.Time) error {
	if err := b.dedupe(x); err != nil {
		return err
	}
	if len(x.bad) > 0 {
		slices.SortFunc(x.bad, func(a, b Problem) int { return a.Line - b.Line })
		return &BadRecordsError{Name: x.rep.Name, Problems: x.bad, Total: x.rep.Bad}
	}
	b.warnHosts(x)
	dump, err := b.packExportDump(ctx, x, root)
	if err != nil {
		return err
	}
	rl := &cursor{s: x.rl, skip: x.skip(splitLocKey), decode: func(key, val []byte, e *rsxml.Entry) error {
		var r Resource
		if _, err := decodeItem(val, &r); err != nil {
			return err
		}
		loc, _ := splitLocKey(key)
		r.Loc = string(loc)
		r.Entry(e)
		return nil
	}}
	err = b.writeResources(b.resourceListOptions(completed), x.rep.Listed, rl.entry)
	if err = errors.Join(err, rl.close()); err != nil {
		return err
	}
	if err := b.dump().Write(ctx, dump); err != nil {
		return err
	}
	return b.writeExportChangeList(x)
}

// skip returns a test of whether a sorted record is a skipped duplicate,
// or nil if there is none.
func (x *exportState) skip(split func([]byte) ([]byte, int)) func(key []byte) bool {
	if len(x.skipped) == 0 {
		return nil
	}
	return func(key []byte) bool {
		_, line := split(key)
		return x.skipped[line]
	}
}

// dedupe passes over the Resource List records in order of loc: each
// record whose loc an earlier line has is bad. It counts the rest.
func (b *build) dedupe(x *exportState) error {
	it, err := x.rl.Iter()
	if err != nil {
		return err
	}
	defer it.Close()
	var prev []byte
	prevLine := 0
	for it.Next() {
		loc, line := splitLocKey(it.Key())
		if prevLine > 0 && bytes.Equal(loc, prev) {
			if x.skipped == nil {
				x.skipped = map[int]bool{}
			}
			x.skipped[line] = true
			p := Problem{Path: x.rep.Name, Line: line, Err: fmt.Errorf("duplicate loc %s (first at line %d)", loc, prevLine)}
			if err := b.badRecord(x, p); err != nil {
				return err
			}
			continue
		}
		prev, prevLine = append(prev[:0], loc...), line
		x.rep.Listed++
		if n := itemLength(it.Value()); n > 0 {
			x.rep.Bytes += n
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

// writeExportChangeList writes the Change List of the window, unless it
// is not wanted, some record has no time to place it by, or nothing
// happened in it.
func (b *build) writeExportChangeList(x *exportState) error {
	rep := x.rep
	if !x.window {
		return nil
	}
	if x.future.n > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s changed after the snapshot time %s (first at line %d): they are listed, but their changes are not in the Change List until a build at or after them",
			units.Count(x.future.n, "record"), rsxml.FormatTime(b.at), x.future.first))
	}
	if x.noTime.n > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("no Change List: %s no lastmod (or, for a deletion, no time) to place %s in the window by (first at line %d); a Change List would have to invent it",
			units.Count(x.noTime.n, "record")+units.Plural(x.noTime.n, " has", " have"), units.Plural(x.noTime.n, "it", "them"), x.noTime.first))
		return nil
	}
	// Count the events: a tombstone exported twice gives one event.
	events := 0
	var prev []byte
	it, err := x.ch.Iter()
	if err != nil {
		return err
	}
	skip := x.skip(func(key []byte) ([]byte, int) { _, loc, line := splitChangeKey(key); return loc, line })
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
	cur := &cursor{s: x.ch, skip: func(key []byte) bool {
		return skip != nil && skip(key)
	}, decode: func(key, val []byte, e *rsxml.Entry) error {
		var c Change
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
	wl, err := b.writeChanges("changelist", events, cur.entry, x.from, time.Time{})
	if err = errors.Join(err, cur.close()); err != nil {
		return err
	}
	rep.ChangeList, rep.Changes = true, events
	b.docs.Advertise(b.docs.URL(wl.Name), rsxml.CapChangeList)
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
func (b *build) warnHosts(x *exportState) {
	docs := hostOf(b.cfg.DocsURL.String())
	others, n := []string{}, 0
	for h, c := range x.hosts {
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
	x.rep.Warnings = append(x.rep.Warnings, fmt.Sprintf("%s not on %s, where the documents are served: %s; Destinations such as the reference client refuse resources on other hosts unless told otherwise",
		units.Count(n, "record")+units.Plural(n, " is", " are"), docs, strings.Join(others, ", ")))
}

// A cursor serves the fill function of writeList from passes over a
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
