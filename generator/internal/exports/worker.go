package exports

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/rsgen/rsgen/generator/internal/spill"
	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/mediatype"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/inputs/records"
	"github.com/rsgen/rsgen/internal/storage/extsort"
	"github.com/rsgen/rsgen/internal/storage/regfile"
	"github.com/rsgen/rsgen/internal/text/display"
)

// Change values in the payload of a sorted record (see appendItem).
const (
	itemCreated byte = 'c'
	itemUpdated byte = 'u'
	itemDeleted byte = 'd'
)

// A worker turns batches of raw records into sorted-record keys and
// payloads. Each worker has its own Hasher; several run at once.
type worker struct {
	s      *Source // read only: options, window and names
	hasher *hashing.Hasher
	sum    []byte
	res    *result
	line   int
}

func (w *worker) batch(j *job) {
	r := &j.res
	r.buf, r.adds, r.bad = r.buf[:0], r.adds[:0], r.bad[:0]
	r.records, r.tombstones, r.noTime, r.future, r.noPath = 0, 0, lineCount{}, lineCount{}, lineCount{}
	clear(r.withheld)
	clear(r.hosts)
	w.res = r
	for i := 0; i < j.batch.Len(); i++ {
		rec, err := w.s.rd.Parse(&j.batch, i)
		w.line = rec.Line
		w.res.records++
		if err == nil {
			err = w.record(&rec)
		}
		if err != nil {
			w.res.bad = append(w.res.bad, report.Problem{Path: w.s.rep.Name, Line: rec.Line, Err: err})
		}
	}
}

// resolve returns the URL of a loc or href: as given if it is one, else
// the path joined to the base URL.
func (w *worker) resolve(s string, isURL bool) (string, error) {
	if isURL {
		return s, nil
	}
	if w.s.opt.Base.IsZero() {
		return "", fmt.Errorf("%q is a relative path and no base URL is given", s)
	}
	return w.s.opt.Base.Resolve(s)
}

func (w *worker) record(rec *records.Record) error {
	if !rec.Published() {
		if w.res.withheld == nil {
			w.res.withheld = map[string]int{}
		}
		w.res.withheld[rec.Status]++
		return nil
	}
	loc, err := w.resolve(rec.Loc, rec.LocIsURL)
	if err != nil {
		return fmt.Errorf("loc: %w", err)
	}
	links := rec.Links
	for i := range links {
		if links[i].Href, err = w.resolve(links[i].Href, rec.LinkURL[i]); err != nil {
			return fmt.Errorf("link %s: %w", links[i].Rel, err)
		}
	}
	if rec.Deleted {
		w.res.tombstones++
		t := rec.DeletedAt
		if t.IsZero() {
			t = rec.Lastmod
		}
		if t.IsZero() {
			w.noTime()
			return nil
		}
		w.host(loc)
		w.event(&spill.Resource{Loc: loc, Length: -1}, t, itemDeleted)
		return nil
	}
	r := spill.Resource{Loc: loc, Length: rec.Length, Modified: rec.Lastmod, Hash: rec.Hash, Type: rec.Type, Path: rec.Path, Links: links}
	dump := w.s.dump != nil
	if dump && rec.Path == "" {
		w.res.noPath.add(w.line)
		w.s.noFiles.Store(true)
	}
	if rec.Path != "" && !(dump && w.s.noFiles.Load()) { // no dump: no need to read
		if err := w.readFile(&r, rec); err != nil {
			return err
		}
	}
	w.host(loc)
	w.add(w.s.rl, appendKey(w.res.buf, loc, w.line), &r, 0)
	if dump && rec.Path != "" {
		w.add(w.s.dump, appendKey(w.res.buf, rec.Path, w.line), &r, 0)
	}
	if rec.Lastmod.IsZero() {
		w.noTime()
		return nil
	}
	change := itemUpdated
	if !rec.Created.IsZero() && rec.Created.Truncate(time.Second).Equal(rec.Lastmod.Truncate(time.Second)) {
		change = itemCreated
	}
	w.event(&r, rec.Lastmod, change)
	return nil
}

func (w *worker) noTime() {
	if w.s.window {
		w.res.noTime.add(w.line)
	}
}

func (w *worker) host(loc string) {
	if w.res.hosts == nil {
		w.res.hosts = map[string]int{}
	}
	w.res.hosts[uri.Origin(loc)]++
}

// event adds the change of r at t to the Change List, if t is in its window.
func (w *worker) event(r *spill.Resource, t time.Time, change byte) {
	if !w.s.window {
		return
	}
	t = t.Truncate(time.Second)
	if t.Before(w.s.rep.From) {
		return
	}
	if t.After(w.s.opt.At) {
		w.res.future.add(w.line)
		return
	}
	w.add(w.s.ch, appendChangeKey(w.res.buf, t, r.Loc, w.line), r, change)
}

// add adds r to the sorter to: buf is res.buf with its key appended; the
// payload follows.
func (w *worker) add(to *extsort.Sorter, buf []byte, r *spill.Resource, c byte) {
	keyEnd := len(buf)
	w.res.buf = appendItem(buf, r, c, to == w.s.dump)
	w.res.adds = append(w.res.adds, sortAdd{to: to, keyEnd: keyEnd, end: len(w.res.buf)})
}

// readFile reads the local file of a record, inside the export's
// directory, and publishes its digests, length and (if the record gives
// none) its media type. Digests and a length the record gives must match.
func (w *worker) readFile(r *spill.Resource, rec *records.Record) error {
	f, st, err := regfile.OpenIn(w.s.root, filepath.FromSlash(rec.Path))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("path %s: no such file in the directory of the export", rec.Path)
	case errors.Is(err, regfile.ErrNotRegular):
		return fmt.Errorf("path %s: %w", rec.Path, regfile.ErrNotRegular)
	case err != nil:
		return fmt.Errorf("path %s: %w", rec.Path, display.ReadError(err))
	}
	defer f.Close()
	w.sum, err = w.hasher.SumFile(w.sum[:0], f, st.Size())
	if err != nil {
		return fmt.Errorf("path %s: %w", rec.Path, display.ReadError(err))
	}
	w.s.opt.Stats.Bytes.Add(st.Size())
	set := w.s.opt.Hashes
	if g, d, bad := set.Differ(rec.Hash, w.sum); bad {
		return fmt.Errorf("hash: the export gives %s:%x, the file %s has %s:%x", g.Alg, g.Digest, rec.Path, g.Alg, d)
	}
	if rec.Length >= 0 && rec.Length != st.Size() {
		return fmt.Errorf("length: the export gives %d bytes, the file %s has %d", rec.Length, rec.Path, st.Size())
	}
	r.Hash, r.Length = set.Tokens(nil, w.sum), st.Size() // encoded before w.sum is reused
	if r.Type == "" {
		if r.Type = mediatype.ByName(rec.Path); r.Type == "" {
			r.Type = mediatype.Sniff(w.hasher.Head())
		}
	}
	return nil
}
