package exports

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/rsgen/rsgen/generator/internal/changelists"
	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/storage/extsort"
	"github.com/rsgen/rsgen/internal/text/units"
)

// Check checks the sorted records once they are read: duplicates, and
// bad records, which fail the build unless skipped; and it warns of locs
// on other hosts than the documents'.
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

// WriteResourceList writes the Resource List of the records published.
func (s *Source) WriteResourceList(completed time.Time) error {
	s.opt.Stats.Enter(report.PhaseWriting)
	var passErr error
	fill := entries(s.rl, s.listed, func(key, val []byte, e *rsxml.Entry) error {
		loc, _ := splitKey(key)
		r := spill.Resource{Loc: string(loc)}
		if _, err := decodeItem(val, &r); err != nil {
			return err
		}
		r.Entry(e)
		return nil
	}, &passErr)
	d := s.opt.Docs
	err := d.WriteResourceList(d.ResourceListOptions(s.opt.At, completed), s.rep.Listed, fill)
	return errors.Join(err, passErr)
}

// listed reports whether a sorted record is listed: not a skipped
// duplicate, nor left out of the Resource Dump.
func (s *Source) listed(key, _ []byte) bool { return !s.skipped[lineOf(key)] }

// dedupe passes over the Resource List records in order of loc: each
// record whose loc an earlier line has is bad. It counts the rest.
func (s *Source) dedupe() error {
	var prev []byte
	prevLine := 0
	return scan(s.rl, func(key, val []byte) error {
		loc, line := splitKey(key)
		if prevLine > 0 && bytes.Equal(loc, prev) {
			s.skipped[line] = true
			return s.badRecord(report.Problem{Path: s.rep.Name, Line: line, Err: fmt.Errorf("duplicate loc %s (first at line %d)", loc, prevLine)})
		}
		prev, prevLine = append(prev[:0], loc...), line
		s.rep.Listed++
		if n := itemLength(val); n > 0 {
			s.rep.Bytes = min(s.rep.Bytes, math.MaxInt64-n) + n // the lengths given may sum past int64: it saturates
		}
		return nil
	})
}

// scan calls fn with each record of x, in order, until it returns an
// error: that error, but errStop, which ends the scan early.
func scan(x *extsort.Sorter, fn func(key, val []byte) error) error {
	it, err := x.Iter()
	if err != nil {
		return err
	}
	for it.Next() {
		if err := fn(it.Key(), it.Value()); err == errStop {
			return nil
		} else if err != nil {
			return err
		}
	}
	return it.Err()
}

var errStop = errors.New("stop")

// WriteChangeList writes the Change List of the window, unless it
// is not wanted, some record has no time to place it by, or nothing
// happened in it.
func (s *Source) WriteChangeList() error {
	if !s.window || !s.placeChanges() {
		return nil
	}
	events := 0
	isEvent := s.events()
	err := scan(s.ch, func(key, val []byte) error {
		if isEvent(key, val) {
			events++
		}
		return nil
	})
	if err != nil {
		return err
	}
	if events == 0 {
		// Nothing happened in the window: no list, as a build from a tree
		// that found nothing changed publishes none (an empty <urlset> is
		// invalid against the Sitemap schema).
		s.rep.NoChanges = true
		return nil
	}
	var passErr error
	fill := entries(s.ch, s.events(), func(key, val []byte, e *rsxml.Entry) error {
		var c spill.Change
		var loc []byte
		c.Datetime, loc = splitChangeKey(key)
		c.Loc = string(loc)
		ch, err := decodeItem(val, &c.Resource)
		if err != nil {
			return err
		}
		switch ch {
		case itemCreated:
			c.Change = rsxml.ChangeCreated
		case itemUpdated:
			c.Change = rsxml.ChangeUpdated
		default:
			c.Change = rsxml.ChangeDeleted
		}
		c.Entry(e)
		return nil
	}, &passErr)
	d := s.opt.Docs
	wl, err := d.List(changelists.Options(d, "changelist", s.rep.From, time.Time{}, "", changelists.ChangeTime), events, fill)
	if err = errors.Join(err, passErr); err != nil {
		return err
	}
	for _, t := range wl.Inside {
		s.rep.Warnings = append(s.rep.Warnings, changelists.InsideNotice(t, d.Limits))
	}
	s.rep.ChangeList, s.rep.Changes = true, events
	d.Advertise(d.URL(wl.Name), rsxml.CapChangeList)
	return nil
}

// placeChanges warns of the records the Change List cannot place in its
// window, and reports whether it can be written: every record has a time.
func (s *Source) placeChanges() bool {
	rep := s.rep
	if s.future.n > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s changed after the snapshot time %s (first at line %d): they are listed, but their changes are not in the Change List until a build at or after them",
			units.Count(s.future.n, "record"), rsxml.FormatTime(s.opt.At), s.future.first))
	}
	if s.noTime.n > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("no Change List: %s no lastmod (or, for a deletion, no time) to place %s in the window by (first at line %d); a Change List would have to invent it",
			units.Count(s.noTime.n, "record")+units.Plural(s.noTime.n, " has", " have"), units.Plural(s.noTime.n, "it", "them"), s.noTime.first))
		return false
	}
	return true
}

// events returns a test of which records of one pass over the Change
// List's sorter are its events: those listed, but for a repeat of the
// event before (its datetime, loc and change, not its line): a tombstone
// exported twice gives one event.
func (s *Source) events() func(key, val []byte) bool {
	var prev []byte
	var prevChange byte
	return func(key, val []byte) bool {
		if !s.listed(key, val) {
			return false
		}
		id, change := key[:len(key)-8], byte(0) // datetime, loc, 0x00
		if len(val) > 0 {
			change = val[0]
		}
		if prev != nil && change == prevChange && bytes.Equal(id, prev) {
			return false
		}
		prev, prevChange = append(prev[:0], id...), change
		return true
	}
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

// entries returns what a docs.Writer calls for each entry of a list, in
// order: it decodes the next record of x that keep accepts. The first
// error is kept in *err.
func entries(x *extsort.Sorter, keep func(key, val []byte) bool, decode func(key, val []byte, e *rsxml.Entry) error, err *error) func(int, *rsxml.Entry) {
	it, ierr := x.Iter()
	*err = ierr
	return func(i int, e *rsxml.Entry) {
		for *err == nil {
			if !it.Next() {
				if *err = it.Err(); *err == nil {
					*err = fmt.Errorf("entry %d of a list is missing from the sorted records", i)
				}
				break
			}
			if key, val := it.Key(), it.Value(); keep(key, val) {
				if *err = decode(key, val, e); *err == nil {
					return
				}
			}
		}
		*e = rsxml.Entry{}
	}
}
