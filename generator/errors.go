package generator

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rsgen/rsgen/generator/internal/docs"
	"github.com/rsgen/rsgen/generator/internal/exports"
	"github.com/rsgen/rsgen/generator/report"
)

// An Error is a failure of Build or BuildSite: its Kind says which, and
// the fields after Err say more for some kinds. Nothing was published.
type Error struct {
	Kind Kind
	Set  string // the set of a Site whose build failed; "" for the site, or a build without sets
	Err  error  // what failed: its message is the Error's (after "set <Set>: ")

	Problems   []report.Problem // KindEmptySource: the files or records refused; KindBadRecords: the first bad records
	N          int              // KindBadRecords: the bad records; KindMassDelete: the deletions; KindDropped: the documents an archive lists
	Raise      []string         // KindLimit: the fields of the Config to raise
	Drop       string           // KindPrevious: the entry of Changes.Drop ("Changes.Drop[<capability>]") that goes on without the archive that failed, or ""
	Capability string           // KindDropped: the capability the previous build published
	URL        string           // KindOtherSite: where this build's documents are served
	Sets       []string         // KindSetRemoved: the sets, named as in Site.RemoveSets
}

func (e *Error) Error() string {
	if e.Set != "" {
		return "set " + e.Set + ": " + e.Err.Error()
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// A Kind is what an Error is about; 0 is none in particular. The guards
// (KindOtherSite to KindSetRemoved) refuse what looks like a mistake, and
// a field of the Config allows each on purpose.
type Kind int

const (
	KindSource         Kind = iota + 1 // the source cannot be read: it is missing, not a directory or archive, unreadable
	KindOutput                         // the output directory cannot be created, written or published into
	KindFailFast                       // a file could not be published, with Config.FailFast
	KindPrevious                       // the previous build cannot be used; Drop may name how to go on
	KindClockBehind                    // the previous build's snapshot time is later than the clock
	KindSnapshotTime                   // the snapshot time given is the previous build's, yet resources changed
	KindOtherSite                      // the previous build was published for other URLs (Changes.NewHistory)
	KindEmptySource                    // the source holds nothing to publish (AllowEmpty)
	KindMassDelete                     // the build deletes more than MaxDelete allows
	KindDropped                        // a dump or archive the previous build published would be gone (Changes.Drop)
	KindSetRemoved                     // a set the previous build published is missing (Site.RemoveSets)
	KindLimit                          // a document the Limits do not let be written; Raise names them
	KindBadRecords                     // a record export has bad records (SkipBadRecords)
	KindDumpNeedsFiles                 // a listed record of an export with a Resource Dump has no local file
	KindInvalidOutput                  // the documents fail validation: a bug of rsgen
)

var errPrevious = docs.ErrPrevious

func kindOf(err error) Kind {
	if e := (*Error)(nil); errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

func failed(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Err: fmt.Errorf(format, args...)}
}

func marked(err error, kind Kind) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: kind, Err: err}
}

// classify is err as an *Error if the components' errors in it give it a kind.
func classify(err error) error {
	var (
		e     *Error
		bre   *exports.BadRecordsError
		dnf   *exports.DumpNeedsFilesError
		limit *docs.LimitError
		pae   *docs.ArchiveError
	)
	switch {
	case err == nil || errors.As(err, &e):
		return err
	case errors.As(err, &bre):
		return &Error{Kind: KindBadRecords, Err: err, Problems: bre.Problems, N: bre.Total}
	case errors.As(err, &dnf):
		return &Error{Kind: KindDumpNeedsFiles, Err: err}
	case errors.As(err, &limit):
		return &Error{Kind: KindLimit, Err: err, Raise: limit.Raise}
	case errors.As(err, &pae):
		return &Error{Kind: KindPrevious, Err: err, Drop: pae.Drop}
	case errors.Is(err, errPrevious):
		return &Error{Kind: KindPrevious, Err: err}
	}
	return err
}

// setError is err as an *Error that names set; for Build's set ("") err.
func setError(set string, err error) error {
	if set == "" {
		return err
	}
	err = classify(err)
	e := &Error{}
	if inner := (*Error)(nil); errors.As(err, &inner) {
		*e = *inner
	}
	e.Set, e.Err = set, err
	return e
}

func (b *build) emptySource(what string) error {
	e := failed(KindEmptySource, "nothing to publish: %s; nothing was published", what)
	e.Problems = b.problems.Sorted()
	return e
}

// setsRemoved refuses a build that would stop publishing sets, named as
// in Site.RemoveSets.
func setsRemoved(sets []string) error {
	names := make([]string, len(sets))
	for i, s := range sets {
		names[i] = setLabel(s)
	}
	e := failed(KindSetRemoved, "the previous build published %s, which this build does not: publishing it would drop %s resources and change history",
		strings.Join(names, ", "), map[bool]string{true: "its", false: "their"}[len(sets) == 1])
	e.Sets = sets
	return e
}
