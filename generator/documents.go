package generator

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"github.com/rsgen/rsgen/internal/listwriter"
	"github.com/rsgen/rsgen/internal/previous"
	"github.com/rsgen/rsgen/internal/rsxml"
	"github.com/rsgen/rsgen/validate"
)

// Limits bound the size of one document (section 7). Both may be lowered
// from the spec's 50,000 entries and 50 MB, never raised.
type Limits = listwriter.Limits

// DefaultLimits are the limits of the spec.
var DefaultLimits = Limits{MaxEntries: rsxml.MaxEntries, MaxBytes: rsxml.MaxBytes}

func partName(name string, i int) string { return fmt.Sprintf("%s-%05d.xml", name, i) }

// listFiles creates the documents of a listwriter in the stage, under
// dir, and its body files beside them, in the stage's root: the
// listwriter removes those before it returns, and they go with the stage
// on a failure.
type listFiles struct {
	s   *Stage
	dir string
}

func (f listFiles) Create(name string) (io.WriteCloser, error) {
	return f.s.Create(f.dir + "/" + name)
}

func (f listFiles) Temp() (*os.File, error) { return os.CreateTemp(f.s.Dir(), bodyPattern) }

// bodyPattern names the body files of lists in the stage.
const bodyPattern = ".list-body-*"

// A docWriter writes the documents of a build into its stage: it knows
// their URLs and the limits of one document, and keeps count of what it
// wrote and of the Capability List's entries, in the order written.
type docWriter struct {
	stage  *Stage
	base   string // the URL the output is served at (Config.DocsURL), ending in "/"
	dir    string // the directory of the documents in the stage: DocsDir, or DocsDir/<set> (setDir)
	limits Limits
	n      int               // documents written
	caps   []rsxml.Entry     // the Capability List's entries
	copied map[string]string // documents of the previous build published again: name under dir → URL read from
}

// url is the URL of the document name.
func (d *docWriter) url(name string) string { return d.base + d.dir + "/" + name }

// mine reports whether rel, a URL relative to the output's (a previous
// build's document), is a document of this set's directory, not below it,
// and returns its name there.
func (d *docWriter) mine(rel string) (string, bool) {
	dir, base := path.Split(rel)
	return base, dir == d.dir+"/"
}

func (d *docWriter) capabilityListURL() string { return d.url("capabilitylist.xml") }

func (d *docWriter) sourceDescriptionURL() string { return d.base + WellKnownFile }

// advertise adds the document at loc to the Capability List, as the
// document of capability.
func (d *docWriter) advertise(loc, capability string) {
	d.caps = append(d.caps, rsxml.Entry{Loc: loc, MD: rsxml.MD{Capability: capability}})
}

// list writes the n entries that fill produces, in order, through a
// listwriter of opt: the document DocsDir/<name>.xml or, past the limits,
// parts under an index at that same name, so that the URL a Destination
// knows never changes. fill is called once for each i, in order.
func (d *docWriter) list(opt listwriter.Options, n int, fill func(i int, e *rsxml.Entry)) (listwriter.Written, error) {
	opt.URL, opt.Limits = d.url, d.limits
	w := listwriter.New(listFiles{d.stage, d.dir}, opt)
	defer w.Abort()
	var e rsxml.Entry
	for i := range n {
		fill(i, &e)
		if err := w.Add(&e); err != nil {
			return listwriter.Written{}, listError(err)
		}
	}
	wl, err := w.Close()
	if err != nil {
		return wl, listError(err)
	}
	d.n += wl.Docs
	return wl, nil
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

// write stages the document name with entries [from, to) of fill.
func (d *docWriter) write(name string, doc rsxml.Doc, from, to int, fill func(i int, e *rsxml.Entry)) error {
	f, err := d.stage.Create(d.dir + "/" + name)
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
	d.n++
	return nil
}

// copy stages the document name with the bytes of rc, a
// document of the previous build read again from the URL from, and
// closes rc. The check of the stage, before it is published, says a
// document copied so that fails is the previous build's fault
// (previousFault), not one rsgen wrote wrong.
func (d *docWriter) copy(name, from string, rc io.ReadCloser) error {
	defer rc.Close()
	f, err := d.stage.Create(d.dir + "/" + name)
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	_, err = io.Copy(f, rc)
	err = closeAfter(f, err)
	var pe *previous.Error
	switch {
	case errors.As(err, &pe):
		return fmt.Errorf("%w: %w", ErrPrevious, err)
	case err != nil:
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if d.copied == nil {
		d.copied = map[string]string{}
	}
	d.copied[name] = from
	d.n++
	return nil
}

// previousFault returns the error of findings (of the stage's check, whose
// documents are named under out) that are all in documents copied from the
// previous build (copied: their paths under out, slash-separated → the URL
// each was read from), named by that URL; or nil if one is a document this
// build wrote.
func previousFault(copied map[string]string, findings []validate.Finding, out string) *InvalidPreviousError {
	if len(copied) == 0 {
		return nil
	}
	from := make(map[string]string, len(copied))
	for name, u := range copied {
		from[filepath.Join(out, filepath.FromSlash(name))] = u
	}
	e := &InvalidPreviousError{}
	for _, f := range findings {
		u, ok := from[f.Document]
		if !ok {
			return nil
		}
		f.Document = u
		e.Findings = append(e.Findings, f)
	}
	return e
}
