package generator

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/text/units"
)

// Guards: a build refuses, publishing nothing, what looks like a mistake
// that would make every Destination delete its copies. Each can be
// allowed on purpose in the Config.

// A DeleteLimit bounds the deletions of one build: N resources, or N
// percent of the previous build's if Percent is set; N < 0 is no bound.
type DeleteLimit struct {
	N       int
	Percent bool
}

// DefaultDeleteLimit is the bound of a Config without one.
var DefaultDeleteLimit = DeleteLimit{N: 50, Percent: true}

// minPercentDeletes is the number of deletions a percentage never
// refuses: on a small site ordinary edits are a large share (3 of 4 pages
// is 75%), and deleting everything is refused as an empty source anyway.
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

func (l *DeleteLimit) UnmarshalText(b []byte) (err error) {
	*l, err = ParseDeleteLimit(string(b))
	return err
}

// UnmarshalTOML reads a string, or a bare count (max-delete = 200).
func (l *DeleteLimit) UnmarshalTOML(value []byte) error {
	s := string(value)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') {
		s = s[1 : len(s)-1]
	}
	return l.UnmarshalText([]byte(s))
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

func (l DeleteLimit) allows(deleted, total int) bool {
	switch {
	case l.N < 0 || deleted == 0:
		return true
	case !l.Percent:
		return deleted <= l.N
	}
	return deleted <= minPercentDeletes || int64(deleted)*100 <= int64(l.N)*int64(total)
}

// checkDeletes fails with a KindMassDelete if the changes delete more than
// the limit allows; an empty build allowed on purpose deletes on purpose.
func (b *build) checkDeletes(published int) error {
	if b.history.prev == nil || published == 0 && b.cfg.AllowEmpty {
		return nil
	}
	limit := DefaultDeleteLimit
	if b.cfg.MaxDelete != nil {
		limit = *b.cfg.MaxDelete
	}
	deleted, before := b.history.changes.Deleted, b.history.join.Previous.Len() // a previous build has both
	if limit.allows(deleted, before) {
		return nil
	}
	percent := 0
	if before > 0 {
		percent = int(int64(deleted) * 100 / int64(before))
	}
	e := failed(KindMassDelete, "this build would delete %d of the %s published before (%d%%), more than the limit of %s; nothing was published",
		deleted, units.Count(before, "resource"), percent, limit)
	e.N = deleted
	return e
}

// checkDumps fails with a KindDropped if the previous build published a
// dump or an archive this one would not: Destinations away longer than
// the Change Lists reach would lose what it keeps.
func (b *build) checkDumps() error {
	prev, ch := b.history.prev, &b.cfg.Changes
	all := ch.drops(rsxml.CapChangeListArchive)
	for _, c := range prev.Capabilities {
		var ar *previous.Archive
		of, kept := "", true
		switch c.Name {
		case rsxml.CapResourceDump:
			kept = b.cfg.Dump.Enabled || ch.drops(c.Name)
		case rsxml.CapChangeDump:
			kept = ch.Dump || ch.drops(c.Name)
		case rsxml.CapChangeListArchive:
			ar, of, kept = prev.ChangeListArchive, "Change List", ch.Archive.Keep > 0 || all
		case rsxml.CapChangeDumpArchive:
			ar, of, kept = prev.ChangeDumpArchive, "Change Dump", ch.Archive.Keep > 0 || all
		case rsxml.CapResourceListArchive:
			ar, of, kept = prev.ResourceListArchive, "Resource List", ch.Archive.ResourceLists > 0 || all || ch.drops(c.Name)
		case rsxml.CapResourceDumpArchive:
			ar, of, kept = prev.ResourceDumpArchive, "Resource Dump", ch.Archive.ResourceDumps > 0 || all || ch.drops(c.Name)
		}
		dump := c.Name
		switch {
		case !kept && of != "":
			n := 0
			if ar != nil {
				n = len(ar.Lists)
			}
			e := failed(KindDropped, "the previous build published a %s Archive of %s, which this build would delete", of, units.Count(n, of))
			e.Capability, e.N = c.Name, n
			return e
		case c.Name == rsxml.CapChangeDumpArchive && !ch.Dump && !ch.drops(rsxml.CapChangeDump):
			// its packages all expired: the dump is not listed any more
			dump = rsxml.CapChangeDump
		case kept:
			continue
		}
		what := "Resource Dump"
		if dump == rsxml.CapChangeDump {
			what = "Change Dump, and with it the changes its packages carry"
		}
		e := failed(KindDropped, "the previous build published a %s, which this build would delete", what)
		e.Capability = dump
		return e
	}
	return nil
}

// maxClockBehind is how far the clock may be behind the previous build's
// snapshot time for a build to take the second after it instead (two
// builds in one second, a runner's clock a little behind); farther,
// something else is wrong, and the build fails.
const maxClockBehind = 5 * time.Minute

// afterPrevious moves the snapshot time of a build without a fixed time
// to one second after the previous build's if the clock has not passed
// it: the Change List then covers a non-empty interval after the previous
// one, under a name of its own.
func (b *build) afterPrevious(prevAt time.Time) error {
	if b.at.After(prevAt) {
		return nil
	}
	if prevAt.Sub(b.at) > maxClockBehind {
		return failed(KindClockBehind, "%w: its snapshot time %s is later than the clock, %s", errPrevious, rsxml.FormatTime(prevAt), rsxml.FormatTime(b.at))
	}
	next := prevAt.Add(time.Second)
	b.notice(fmt.Sprintf("the clock (%s) is not past the previous build's snapshot time: this build's is %s, a second after it",
		rsxml.FormatTime(b.at), rsxml.FormatTime(next)))
	b.at = next
	return nil
}
