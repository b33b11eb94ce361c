package generator

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rsgen/rsgen/internal/listwriter"
	"github.com/rsgen/rsgen/internal/rsxml"
)

// Limits bound the size of one document (section 7). Both may be lowered
// from the spec's 50,000 entries and 50 MB, never raised.
type Limits = listwriter.Limits

// DefaultLimits are the limits of the spec.
var DefaultLimits = Limits{MaxEntries: rsxml.MaxEntries, MaxBytes: rsxml.MaxBytes}

func partName(name string, i int) string { return fmt.Sprintf("%s-%05d.xml", name, i) }

// listFiles creates the documents of a listwriter in the stage, under
// DocsDir, and its body files beside them, in the stage's root: the
// listwriter removes those before it returns, and they go with the stage
// on a failure.
type listFiles struct{ s *Stage }

func (f listFiles) Create(name string) (io.WriteCloser, error) {
	return f.s.Create(DocsDir + "/" + name)
}

func (f listFiles) Temp() (*os.File, error) { return os.CreateTemp(f.s.Dir(), bodyPattern) }

// bodyPattern names the body files of lists in the stage.
const bodyPattern = ".list-body-*"

// newList returns a listwriter of opt into the stage, with the URLs and
// limits of the build.
func (b *build) newList(opt listwriter.Options) *listwriter.Writer {
	opt.URL, opt.Limits = b.docURL, b.cfg.Limits
	return listwriter.New(listFiles{b.stage}, opt)
}

// closeList closes w and counts the documents it wrote.
func (b *build) closeList(w *listwriter.Writer) (listwriter.Written, error) {
	wl, err := w.Close()
	if err != nil {
		return wl, listError(err)
	}
	b.docs += wl.Docs
	return wl, nil
}

// writeList writes the n entries that fill produces, in order, through a
// listwriter of opt: the document DocsDir/<name>.xml or, past the limits,
// parts under an index at that same name, so that the URL a Destination
// knows never changes. fill is called once for each i, in order.
func (b *build) writeList(opt listwriter.Options, n int, fill func(i int, e *rsxml.Entry)) (listwriter.Written, error) {
	w := b.newList(opt)
	defer w.Abort()
	var e rsxml.Entry
	for i := range n {
		fill(i, &e)
		if err := w.Add(&e); err != nil {
			return listwriter.Written{}, listError(err)
		}
	}
	return b.closeList(w)
}

// A LimitError is a document that the limits of a Config do not let a
// build write (an entry larger than Limits.MaxBytes, an index that would
// pass them): Raise names the fields of the Config to raise.
type LimitError struct {
	Err   error
	Raise []string
}

func (e *LimitError) Error() string { return e.Err.Error() }

func (e *LimitError) Unwrap() error { return e.Err }

// listError says which limit to raise when a list does not fit.
func listError(err error) error {
	var ee *listwriter.EntryError
	var ie *listwriter.IndexError
	switch {
	case errors.As(err, &ee):
		return &LimitError{Err: err, Raise: []string{"Limits.MaxBytes"}}
	case errors.As(err, &ie) && ie.Bytes == 0:
		return &LimitError{Err: err, Raise: []string{"Limits.MaxEntries", "Limits.MaxBytes"}}
	case errors.As(err, &ie):
		return &LimitError{Err: err, Raise: []string{"Limits.MaxBytes"}}
	}
	return err
}

// writeDoc stages DocsDir/name with entries [from, to) of fill.
func (b *build) writeDoc(name string, doc rsxml.Doc, from, to int, fill func(i int, e *rsxml.Entry)) error {
	f, err := b.stage.Create(DocsDir + "/" + name)
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	w := rsxml.NewWriter(f, doc)
	var e rsxml.Entry
	for i := from; i < to; i++ {
		fill(i, &e)
		if err := w.Add(&e); err != nil {
			break
		}
	}
	err = w.Close()
	if err = closeAfter(f, err); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	b.docs++
	return nil
}
