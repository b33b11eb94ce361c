package docs

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/text/units"
)

// ArchiveDir is the directory of the archived documents, in the documents'
// directory of a set.
const ArchiveDir = "archive"

// An Archived is a document of the previous build's archive that a build
// keeps, and the name it is published under again.
type Archived struct {
	Name string // in the documents' directory
	List *previous.ArchivedList
}

// ErrPrevious wraps every failure to read the previous build, and to
// publish again a document of it.
var ErrPrevious = errors.New("the previous build cannot be used")

// PreviousErr marks err of Writer.Copy as an ErrPrevious when reading failed.
func PreviousErr(err error) error {
	var pe *previous.Error
	if errors.As(err, &pe) {
		return fmt.Errorf("%w: %w", ErrPrevious, err)
	}
	return err
}

// An ArchiveError is a document of an archive of the previous build that
// cannot be published again: a build that drops that archive (Drop) can go
// on with the rest of the history.
type ArchiveError struct {
	Capability string // of the archive
	Drop       string // the field of the configuration that drops it
	Err        error
}

func (e *ArchiveError) Error() string { return e.Err.Error() }

func (e *ArchiveError) Unwrap() error { return e.Err }

// DropField names the entry of Changes.Drop that drops capability; the
// Change Dump Archive goes with the Change List Archive.
func DropField(capability string) string {
	if capability == rsxml.CapChangeDumpArchive {
		capability = rsxml.CapChangeListArchive
	}
	return "Changes.Drop[" + capability + "]"
}

// Naming is err of reading the document at url, naming url unless a
// *previous.Error names it already.
func Naming(url string, err error) error {
	if pe := (*previous.Error)(nil); errors.As(err, &pe) {
		return err
	}
	return fmt.Errorf("%s: %w", url, err)
}

// Stamp renders t for a file name: 20240601T000000Z.
func Stamp(t time.Time) string { return t.UTC().Format("20060102T150405Z") }

// Retained returns the lists of the previous build's archive whose time
// (when) is not before cutoff, with a notice of how many it drops. Each
// must be under archive/ with a name that named accepts: one elsewhere was
// not archived by rsgen, and fails the build.
func Retained(d *Writer, prev *previous.Archive, when func(*previous.ArchivedList) time.Time, cutoff time.Time, what string,
	notice func(string), named func(l *previous.ArchivedList, base string) bool) ([]Archived, error) {
	if prev == nil {
		return nil, nil
	}
	var kept []Archived
	for i := range prev.Lists {
		l := &prev.Lists[i]
		if when(l).Before(cutoff) {
			continue
		}
		dir, base := path.Split(l.Rel)
		if dir != d.Dir+"/"+ArchiveDir+"/" || !named(l, base) {
			return nil, fmt.Errorf("%w: the %s Archive lists %s, which is not where rsgen archives a %s (under %s)",
				ErrPrevious, what, l.URL, what, d.URL(ArchiveDir+"/"))
		}
		kept = append(kept, Archived{Name: ArchiveDir + "/" + base, List: l})
	}
	if dropped := len(prev.Lists) - len(kept); dropped > 0 {
		notice(fmt.Sprintf("the %s Archive: %s older than %s no longer published", what, units.Count(dropped, what), rsxml.FormatTime(cutoff)))
	}
	return kept, nil
}

// WriteArchiveDoc publishes the archive (name, capability) of entries, the
// first carried of which are documents of the previous build: past the
// limits of one document it leaves out the oldest of those, with a notice,
// publishes again those it keeps (publish), then writes and advertises the
// archive. It returns how many entries it lists; a document that cannot
// be published again fails it with an *ArchiveError.
func WriteArchiveDoc(d *Writer, name, capability, what string, entries []rsxml.Entry, carried int, notice func(string), publish func(i int) error) (int, error) {
	doc := rsxml.Doc{MD: rsxml.MD{Capability: capability}, Links: []rsxml.Link{{Rel: "up", Href: d.CapabilityListURL()}}}
	drop, fits := listwriter.FitOldest(&doc, entries, carried, d.Limits)
	if !fits {
		return 0, &LimitError{Err: fmt.Errorf("the %s Archive cannot list the %s of this build in one document (%d entries, %d bytes at most)",
			what, units.Count(len(entries)-carried, what), d.Limits.MaxEntries, d.Limits.MaxBytes), Raise: []string{"Limits.MaxEntries", "Limits.MaxBytes"}}
	}
	if drop > 0 {
		notice(fmt.Sprintf("the %s Archive can list no more: its %s no longer published", what, units.Count(drop, "oldest "+what)))
	}
	for i := drop; i < carried; i++ {
		if err := publish(i); err != nil {
			if errors.Is(err, ErrPrevious) {
				err = &ArchiveError{Capability: capability, Drop: DropField(capability), Err: err}
			}
			return 0, err
		}
	}
	entries = entries[drop:]
	if err := d.Write(name, doc, 0, len(entries), func(i int, e *rsxml.Entry) { *e = entries[i] }); err != nil {
		return 0, err
	}
	d.Advertise(d.URL(name), capability)
	return len(entries), nil
}

// OfStem reports whether name is the list stem.xml or one of its parts,
// stem-00001.xml, …
func OfStem(name, stem string) bool {
	return name == stem+".xml" || strings.HasPrefix(name, stem+"-")
}

// A SnapshotPlan is what an archive of snapshots lists in a build: the
// previous build's that are kept, and this build's if it is due (Fresh).
type SnapshotPlan struct {
	Carried []Archived
	Fresh   bool
}

// PlanSnapshots plans the archive of snapshots of what ("Resource List"),
// each named stem-<its at>.xml under ArchiveDir: those of prev taken at
// at-keep or later, and this build's if the newest is at least every old
// (or there is none). It returns nil for no archive: every 0 (with a
// notice if prev had one) or no previous build.
func PlanSnapshots(d *Writer, prev *previous.Archive, havePrev bool, every, keep time.Duration, at time.Time, what, stem string, notice func(string)) (*SnapshotPlan, error) {
	if every == 0 || !havePrev {
		if prev != nil && len(prev.Lists) > 0 { // allowed by a drop (the guards)
			notice(fmt.Sprintf("the %s Archive of the previous build (%s) is no longer published", what, units.Count(len(prev.Lists), what)))
		}
		return nil, nil
	}
	p := &SnapshotPlan{Fresh: true}
	if prev != nil {
		if n := len(prev.Lists); n > 0 && at.Sub(prev.Lists[n-1].At) < every {
			p.Fresh = false
		}
		var err error
		p.Carried, err = Retained(d, prev, func(l *previous.ArchivedList) time.Time { return l.At }, at.Add(-keep), what, notice,
			func(l *previous.ArchivedList, base string) bool { return base == stem+"-"+Stamp(l.At)+".xml" }) // named by its at
		if err != nil {
			return nil, err
		}
	}
	if len(p.Carried) == 0 && !p.Fresh {
		return nil, nil
	}
	return p, nil
}
