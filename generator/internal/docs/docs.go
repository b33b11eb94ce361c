package docs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"time"

	"github.com/rsgen/rsgen/internal/documents/listwriter"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/stage"
)

// A Writer writes the documents of one set into its stage.
type Writer struct {
	Stage  *stage.Stage
	Base   string // the URL the output is served at, ending in "/"
	Dir    string // the directory of the documents in the stage: resourcesync, or resourcesync/<set>
	Limits listwriter.Limits

	N      int               // documents written
	Caps   []rsxml.Entry     // the Capability List's entries, in the order advertised
	Copied map[string]string // documents of the previous build published again: name under Dir → URL read from
}

func (d *Writer) URL(name string) string { return d.Base + d.Dir + "/" + name }

// Mine reports whether rel, a URL relative to the output's, is a document
// of the set's directory (not below it), and returns its name there.
func (d *Writer) Mine(rel string) (string, bool) {
	dir, base := path.Split(rel)
	return base, dir == d.Dir+"/"
}

func (d *Writer) CapabilityListURL() string { return d.URL("capabilitylist.xml") }

func (d *Writer) SourceDescriptionURL() string { return d.Base + stage.WellKnownFile }

// Advertise adds the document at loc to the Capability List.
func (d *Writer) Advertise(loc, capability string) {
	d.Caps = append(d.Caps, rsxml.Entry{Loc: loc, MD: rsxml.MD{Capability: capability}})
}

// ResourceListOptions are those of the Resource List of a build.
func (d *Writer) ResourceListOptions(at, completed time.Time) listwriter.Options {
	md := rsxml.MD{Capability: rsxml.CapResourceList, At: rsxml.FormatTime(at), Completed: rsxml.FormatTime(completed)}
	return listwriter.Options{
		Name:   "resourcelist",
		Doc:    rsxml.Doc{MD: md, Links: []rsxml.Link{{Rel: "up", Href: d.CapabilityListURL()}}},
		PartMD: func(_, _ *rsxml.MD) rsxml.MD { return rsxml.MD{At: md.At, Completed: md.Completed} },
	}
}

// WriteResourceList writes the Resource List (List) and advertises it.
func (d *Writer) WriteResourceList(opt listwriter.Options, n int, fill func(i int, e *rsxml.Entry)) error {
	wl, err := d.List(opt, n, fill)
	if err != nil {
		return err
	}
	d.Advertise(d.URL(wl.Name), rsxml.CapResourceList)
	return nil
}

// List writes the n entries that fill gives, in order, through a
// listwriter: <name>.xml or, past the limits, parts under an index of that
// name. A list the limits cannot hold fails with a *LimitError.
func (d *Writer) List(opt listwriter.Options, n int, fill func(i int, e *rsxml.Entry)) (listwriter.Written, error) {
	opt.URL, opt.Limits = d.URL, d.Limits
	w := listwriter.New(listFiles{d.Stage, d.Dir}, opt)
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
	d.N += wl.Docs
	return wl, nil
}

// Write stages the document name with entries [from, to) of fill, as one
// document whatever the limits.
func (d *Writer) Write(name string, doc rsxml.Doc, from, to int, fill func(i int, e *rsxml.Entry)) error {
	f, err := d.Stage.Create(d.Dir + "/" + name)
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
	if err = confined.CloseAfter(f, err); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	d.N++
	return nil
}

// Copy stages the document name with the bytes of rc, a document of the
// previous build read from the URL from, closes rc and records the copy
// in Copied. An error of reading rc is wrapped, for the caller to classify.
func (d *Writer) Copy(name, from string, rc io.ReadCloser) error {
	defer rc.Close()
	f, err := d.Stage.Create(d.Dir + "/" + name)
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	var rerr error
	_, err = io.Copy(f, readErr{rc, &rerr})
	err = confined.CloseAfter(f, err)
	switch {
	case rerr != nil:
		return fmt.Errorf("reading again: %w", Naming(from, rerr))
	case err != nil:
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if d.Copied == nil {
		d.Copied = map[string]string{}
	}
	d.Copied[name] = from
	d.N++
	return nil
}

// readErr keeps the error of r (not io.EOF) in *err: io.Copy's is then
// told apart as one of reading or of writing.
type readErr struct {
	r   io.Reader
	err *error
}

func (r readErr) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		*r.err = err
	}
	return n, err
}

// A LimitError is a document the limits do not let a build write: Raise
// names the fields of the configuration to raise.
type LimitError struct {
	Err   error
	Raise []string
}

func (e *LimitError) Error() string { return e.Err.Error() }

func (e *LimitError) Unwrap() error { return e.Err }

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

// listFiles creates the documents of a listwriter under dir in the stage,
// and its body files in the stage's root, which go with it on a failure.
type listFiles struct {
	s   *stage.Stage
	dir string
}

func (f listFiles) Create(name string) (io.WriteCloser, error) {
	return f.s.Create(f.dir + "/" + name)
}

func (f listFiles) Temp() (*os.File, error) {
	t, _, err := f.s.CreateTemp(bodyPattern)
	return t, err
}

const bodyPattern = ".list-body-*"
