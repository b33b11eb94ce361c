package previous

import (
	"errors"
	"fmt"
	"strconv"
)

// The kinds of failure, wrapped by every *Error.
var (
	// ErrUnreachable: a document could not be fetched or opened.
	ErrUnreachable = errors.New("cannot be read")
	// ErrNotResourceSync: not a ResourceSync document at all (an HTML
	// page, no root <rs:md capability>).
	ErrNotResourceSync = errors.New("not a ResourceSync document")
	// ErrCapability: not the capability its parent says.
	ErrCapability = errors.New("wrong capability")
	// ErrMalformed: not well-formed XML, or not shaped like a Sitemap.
	ErrMalformed = errors.New("malformed XML")
	// ErrLimit: a document, or the whole previous build, is over a limit.
	ErrLimit = errors.New("over the limits")
	// ErrInvalid: a document breaks a rule of the spec that rsgen relies on.
	ErrInvalid = errors.New("invalid")
	// ErrLater: the previous snapshot was taken after this build's.
	ErrLater = errors.New("previous snapshot is later than this build's")
	// ErrNothingPublished: there is no Source Description at all (no such
	// directory or file, HTTP 404 or 410), as before a site's first build;
	// never a network or server failure, or a broken document. Its Errors
	// are of kind ErrUnreachable.
	ErrNothingPublished = errors.New("nothing is published there yet")
	// ErrChanged: a Change List read again (Site.OpenList) is no longer
	// what Read checked.
	ErrChanged = errors.New("changed since it was read")
	// ErrDeadline: a document took longer than HTTPOptions.Deadline; its
	// Errors are of kind ErrUnreachable.
	ErrDeadline = errors.New("took too long")
)

// An Error is a failure to read the previous build, in one document.
type Error struct {
	Doc  string // the document's URL, or its path when read from a directory
	Line int    // 0 if the failure has no line
	Kind error  // one of the Err… sentinels
	Err  error  // what is wrong, in words

	missing bool // the document does not exist (no such file, HTTP 404 or 410)
	nothing bool // it is the Source Description: nothing is published at all
}

// Is reports whether target is ErrNothingPublished and e says so.
func (e *Error) Is(target error) bool { return target == ErrNothingPublished && e.nothing }

// nothingPublished marks err, reading the Source Description, as
// ErrNothingPublished if it does not exist.
func nothingPublished(err error) error {
	var pe *Error
	if errors.As(err, &pe) && pe.missing {
		pe.nothing = true
	}
	return err
}

func (e *Error) Error() string {
	s := e.Doc
	if e.Line > 0 {
		s += " line " + strconv.Itoa(e.Line)
	}
	if e.Err == nil {
		return s + ": " + e.Kind.Error()
	}
	return s + ": " + e.Err.Error()
}

func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

func newError(doc string, line int, kind error, format string, args ...any) *Error {
	return &Error{Doc: doc, Line: line, Kind: kind, Err: fmt.Errorf(format, args...)}
}
