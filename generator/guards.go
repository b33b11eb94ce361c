package generator

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/internal/rsxml"
	"github.com/rsgen/rsgen/internal/units"
)

// Guards: a build refuses, publishing nothing, what looks like a mistake
// that would make every Destination delete its copies: an empty source, a
// build that deletes most of what was published, a previous build of
// another site, a dump that disappears. Each can be allowed on purpose in
// the Config; the CLI names the flag.

// errEmptySource is what an EmptySourceError unwraps to.
var errEmptySource = errors.New("nothing to publish")

// An EmptySourceError fails a build whose source holds nothing to publish
// (a failed site build, a wrong path, an export that failed upstream),
// unless Config.AllowEmpty is set, with the files (or records) it could
// not publish: a source that is empty because every file of it was
// refused says why.
type EmptySourceError struct {
	What     string           // the source, and why it is empty
	Problems []report.Problem // the files or records refused, if any
}

func (e *EmptySourceError) Error() string {
	return fmt.Sprintf("%v: %s; nothing was published", errEmptySource, e.What)
}

func (e *EmptySourceError) Unwrap() error { return errEmptySource }

// emptySource is the error of an empty source, named as messages name it,
// with the problems of b.
func (b *build) emptySource(what string) error {
	return &EmptySourceError{What: what, Problems: b.problems.Sorted()}
}

// A DeleteLimit bounds the deletions of one build, counted against the
// previous build's Resource List: N resources, or N percent of them if
// Percent is set; N < 0 is no bound.
type DeleteLimit struct {
	N       int
	Percent bool
}

// DefaultDeleteLimit is the bound of a Config without one: more than half
// of the previous resources.
var DefaultDeleteLimit = DeleteLimit{N: 50, Percent: true}

// minPercentDeletes is the number of deletions a percentage never
// refuses: on a small site ordinary edits are a large share (deleting 3
// of 4 pages is 75%), and deleting everything is refused as an empty
// source anyway.
const minPercentDeletes = 5

// ParseDeleteLimit reads a DeleteLimit: a count ("100"), a percentage
// ("50%"), or "all" (or "-1") for no bound.
func ParseDeleteLimit(s string) (DeleteLimit, error) {
	s = strings.TrimSpace(s)
	if s == "all" || s == "-1" {
		return DeleteLimit{N: -1}, nil
	}
	num, pct := strings.CutSuffix(s, "%")
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || pct && n > 100 || strings.HasPrefix(num, "+") {
		return DeleteLimit{}, fmt.Errorf("%q is not a count, a percentage from 0%% to 100%%, or all", s)
	}
	return DeleteLimit{N: n, Percent: pct}, nil
}

func (l DeleteLimit) String() string {
	switch {
	case l.N < 0:
		return "all"
	case l.Percent:
		return strconv.Itoa(l.N) + "%"
	}
	return strconv.Itoa(l.N)
}

// allows reports whether deleting deleted of total resources is within l.
func (l DeleteLimit) allows(deleted, total int) bool {
	switch {
	case l.N < 0 || deleted == 0:
		return true
	case !l.Percent:
		return deleted <= l.N
	}
	return deleted <= minPercentDeletes || int64(deleted)*100 <= int64(l.N)*int64(total)
}

// MassDeleteError fails a build that would delete more of the previous
// build's resources than Config.MaxDelete allows. Nothing is published.
type MassDeleteError struct {
	Deleted  int         // resources this build would delete
	Previous int         // resources the previous build published
	Limit    DeleteLimit // the bound they pass
}

func (e *MassDeleteError) Error() string {
	return fmt.Sprintf("this build would delete %d of the %s published before (%d%%), more than the limit of %s; nothing was published",
		e.Deleted, units.Count(e.Previous, "resource"), percentOf(e.Deleted, e.Previous), e.Limit)
}

func percentOf(n, total int) int {
	if total == 0 {
		return 0
	}
	return int(int64(n) * 100 / int64(total))
}

// checkDeletes fails with a *MassDeleteError if the changes found delete
// more than the limit allows. An empty build allowed on purpose deletes
// everything on purpose.
func (b *build) checkDeletes(published int) error {
	prev := b.history.prev
	if prev == nil || published == 0 && b.cfg.AllowEmpty {
		return nil
	}
	limit := DefaultDeleteLimit
	if b.cfg.MaxDelete != nil {
		limit = *b.cfg.MaxDelete
	}
	deleted := 0
	if b.history.changes != nil {
		deleted = b.history.changes.Deleted
	}
	before := 0 // the previous build's resources
	if b.history.join != nil {
		before = b.history.join.Previous.Len()
	}
	if limit.allows(deleted, before) {
		return nil
	}
	return &MassDeleteError{Deleted: deleted, Previous: before, Limit: limit}
}

// OtherSiteError fails a build whose previous build was published for
// other URLs (a staging site for production, say): its change history is
// not this site's. Changes.NewHistory allows it.
type OtherSiteError struct {
	Previous string // where the previous build's documents are served
	This     string // where this build's are
}

func (e *OtherSiteError) Error() string {
	return fmt.Sprintf("the previous build was published at %s, this build at %s: its change history is not this site's", e.Previous, e.This)
}

// DumpDroppedError fails a build that would no longer publish a dump the
// previous build published: its packages, and for a Change Dump the
// changes they carry, would be gone for Destinations.
// Changes.Drop allows it.
type DumpDroppedError struct {
	Capability string // rsxml.CapResourceDump or rsxml.CapChangeDump
}

func (e *DumpDroppedError) Error() string {
	what := "Resource Dump"
	if e.Capability == rsxml.CapChangeDump {
		what = "Change Dump, and with it the changes its packages carry"
	}
	return fmt.Sprintf("the previous build published a %s, which this build would delete", what)
}

// ArchiveDroppedError fails a build that would no longer publish the
// Change List Archive the previous build published: Destinations that were
// away longer than the Change Lists reach would lose the history it keeps.
type ArchiveDroppedError struct {
	Capability string // rsxml.CapChangeListArchive or rsxml.CapChangeDumpArchive
	Lists      int    // the documents the archive lists
}

func (e *ArchiveDroppedError) Error() string {
	what, of := "Change List Archive", "Change List"
	switch e.Capability {
	case rsxml.CapChangeDumpArchive:
		what, of = "Change Dump Archive", "Change Dump"
	case rsxml.CapResourceListArchive:
		what, of = "Resource List Archive", "Resource List"
	case rsxml.CapResourceDumpArchive:
		what, of = "Resource Dump Archive", "Resource Dump"
	}
	return fmt.Sprintf("the previous build published a %s of %s, which this build would delete", what, units.Count(e.Lists, of))
}

// checkDumps fails with a *DumpDroppedError if the previous build
// published a dump that this one would not, and with an
// *ArchiveDroppedError for its Change List Archive.
func (b *build) checkDumps() error {
	prev, ch := b.history.prev, &b.cfg.Changes
	allArchives := ch.drops(rsxml.CapChangeListArchive)
	for _, c := range prev.Capabilities {
		switch {
		case c.Name == rsxml.CapResourceDump && !b.cfg.Dump.Enabled && !ch.drops(c.Name),
			c.Name == rsxml.CapChangeDump && !ch.Dump && !ch.drops(c.Name):
			return &DumpDroppedError{Capability: c.Name}
		case (c.Name == rsxml.CapChangeListArchive || c.Name == rsxml.CapChangeDumpArchive) && ch.Archive.Keep == 0 && !allArchives,
			c.Name == rsxml.CapResourceListArchive && ch.Archive.ResourceLists == 0 && !allArchives && !ch.drops(c.Name),
			c.Name == rsxml.CapResourceDumpArchive && ch.Archive.ResourceDumps == 0 && !allArchives && !ch.drops(c.Name):
			a := prev.ChangeListArchive
			switch c.Name {
			case rsxml.CapChangeDumpArchive:
				a = prev.ChangeDumpArchive
			case rsxml.CapResourceListArchive:
				a = prev.ResourceListArchive
			case rsxml.CapResourceDumpArchive:
				a = prev.ResourceDumpArchive
			}
			n := 0
			if a != nil {
				n = len(a.Lists)
			}
			return &ArchiveDroppedError{Capability: c.Name, Lists: n}
		case c.Name == rsxml.CapChangeDumpArchive && !ch.Dump && !ch.drops(rsxml.CapChangeDump):
			// The archive of a Change Dump whose packages have all
			// expired: the dump, gone, is not listed any more.
			return &DumpDroppedError{Capability: rsxml.CapChangeDump}
		}
	}
	return nil
}

// SnapshotTimeError fails a build whose given snapshot time (Config.At
// with FixedTime) is not after the previous build's, yet resources
// changed: the changes would have no interval to be listed in.
type SnapshotTimeError struct {
	Previous, At time.Time
	Changes      int
}

func (e *SnapshotTimeError) Error() string {
	return fmt.Sprintf("the previous build's snapshot time %s is this build's too, yet %s changed: a Change List needs a later snapshot time",
		rsxml.FormatTime(e.Previous), units.Count(e.Changes, "resource"))
}

// maxClockBehind is how far the clock may be behind the previous build's
// snapshot time for a build without a fixed time to take the second after
// it instead: two builds in the same second, or a runner whose clock is a
// little behind the one that built before. Farther behind, something else
// is wrong (a --previous of the future), and the build fails.
const maxClockBehind = 5 * time.Minute

// A ClockBehindError reports a previous build whose snapshot time is
// later than the clock by more than maxClockBehind: built with a --at in
// the future, or on a runner whose clock ran ahead. It is an ErrPrevious.
type ClockBehindError struct {
	Previous, Clock time.Time
}

func (e *ClockBehindError) Error() string {
	return fmt.Sprintf("%v: its snapshot time %s is later than the clock, %s", ErrPrevious,
		rsxml.FormatTime(e.Previous), rsxml.FormatTime(e.Clock))
}

func (e *ClockBehindError) Unwrap() error { return ErrPrevious }

// afterPrevious moves the snapshot time of a build without a fixed time
// to one second after the previous build's, if the clock has not passed
// it: the Change List of this build then covers an interval that starts
// where the previous one ended and is not empty, its name differs from
// the previous build's, and every change gets a datetime inside it.
func (b *build) afterPrevious(prevAt time.Time) error {
	if b.at.After(prevAt) {
		return nil
	}
	if prevAt.Sub(b.at) > maxClockBehind {
		return &ClockBehindError{Previous: prevAt, Clock: b.at}
	}
	next := prevAt.Add(time.Second)
	b.notice(fmt.Sprintf("the clock (%s) is not past the previous build's snapshot time: this build's is %s, a second after it",
		rsxml.FormatTime(b.at), rsxml.FormatTime(next)))
	b.at = next
	return nil
}
