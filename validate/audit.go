package validate

import (
	"archive/zip"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/published/rules"
	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/regfile"
)

// The audit (sections 10.1 and 7): every resource a Resource List lists,
// and every package a dump lists, is read once, through each digest its
// entry gives; its length and digests must be those of the entry. A
// package must hold its manifest, whose bitstreams are audited in turn.

// auditor finds resources in Options.Resources (served at resKey), among
// a directory's documents (packages), or over HTTP.
type auditor struct {
	st      *set
	opts    Options
	resDir  string
	resKey  string
	docsDir string
	docsKey string
	origin  string

	mu      sync.Mutex
	pending map[int]*auditJob // done, waiting for the jobs before them
	next    int               // the first job not yet committed
	skipped map[*docInfo]*unreached
	audited int
}

// unreached counts the resources of a document out of the audit's reach,
// and keeps the first three listed to name them.
type unreached struct {
	n     int
	first []resource
}

func newAuditor(st *set, base string, opts Options) *auditor {
	a := &auditor{st: st, opts: opts, resDir: opts.Resources, pending: map[int]*auditJob{}, skipped: map[*docInfo]*unreached{}}
	if u := cmp.Or(opts.ResourcesURL, base); u != "" {
		a.resKey = urlKey(u)
	}
	switch l := st.loader.(type) {
	case *dirLoader:
		a.docsDir, a.docsKey = l.root, l.baseKey
	case *httpLoader:
		a.origin = l.origin
	}
	return a
}

// An auditJob audits one entry into a sink of its own: its findings are
// committed to the set's in the order of the entries, whatever order the
// downloads finish in, since the set's keeps the first MaxPerRule of a rule.
type auditJob struct {
	i         int
	d         *docInfo
	r         resource
	s         sink
	unreached bool
}

func (st *set) audit(ctx context.Context, a *auditor) {
	if !st.opts.auditing() {
		return
	}
	jobs := make(chan *auditJob)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(jobs)
		i := 0
		for _, d := range st.order {
			for _, r := range d.resources {
				if d.archived && !d.live && !r.pkg {
					continue // a snapshot of the past; its packages still hold it
				}
				select {
				case jobs <- &auditJob{i: i, d: d, r: r}:
				case <-gctx.Done():
					return nil
				}
				i++
			}
		}
		return nil
	})
	for range st.opts.Jobs {
		g.Go(func() error {
			for j := range jobs {
				a.check(gctx, j)
				a.commit(j)
			}
			return nil
		})
	}
	g.Wait()
	for _, d := range st.order {
		u := a.skipped[d]
		if u == nil {
			continue
		}
		where := "on the site validated, and other sites are not fetched"
		if a.resDir != "" {
			where = fmt.Sprintf("under %s, where the resources directory is served", cmp.Or(a.resKey, "an unknown URL"))
		}
		var locs []string
		for _, r := range u.first {
			locs = append(locs, rules.Clip(r.loc))
		}
		names := strings.Join(locs, ", ")
		if u.n > len(u.first) {
			names += fmt.Sprintf(" and %d more", u.n-len(u.first))
		}
		st.s.add(d.name, 0, RuleAuditUnreached, "%d of the listed resources could not be audited, being out of reach (not %s): %s", u.n, where, names)
	}
	st.audited += a.audited
}

func (a *auditor) check(ctx context.Context, j *auditJob) {
	loc := urlKey(j.r.loc)
	// A dump's packages are published beside its documents.
	rel, inDocs := keyPath(loc, a.docsKey)
	inDocs = inDocs && a.resDir != "" && j.r.pkg && regularFile(filepath.Join(a.docsDir, filepath.FromSlash(rel)))
	switch {
	case inDocs:
		a.checkFile(j, a.docsDir, rel, true)
	case a.resDir != "" && a.resKey != "" && strings.HasPrefix(loc, a.resKey):
		rel, ok := keyPath(loc, a.resKey)
		a.checkFile(j, a.resDir, rel, ok)
	case a.opts.Fetch && isURL(j.r.loc) && (a.opts.CrossSite || a.origin != "" && sameOrigin(j.r.loc, a.origin)):
		a.checkURL(ctx, j)
	default:
		j.unreached = true
	}
}

// commit adds the findings of j, and of every job after it that is done,
// once every job before it is committed.
func (a *auditor) commit(j *auditJob) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pending[j.i] = j
	for j := a.pending[a.next]; j != nil; j = a.pending[a.next] {
		delete(a.pending, a.next)
		a.next++
		if !j.unreached {
			a.audited++
			a.st.s.merge(&j.s)
			continue
		}
		u := a.skipped[j.d]
		if u == nil {
			u = &unreached{}
			a.skipped[j.d] = u
		}
		u.n++
		if len(u.first) < 3 {
			u.first = append(u.first, j.r)
		}
	}
}

func regularFile(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}

func (a *auditor) missing(j *auditJob, format string, args ...any) {
	j.s.add(j.d.name, j.r.line, RuleAuditMissing, "%s: "+format, append([]any{rules.Clip(j.r.loc)}, args...)...)
}

// checkFile audits the file rel of dir, if the URL names one (ok).
func (a *auditor) checkFile(j *auditJob, dir, rel string, ok bool) {
	if !ok {
		a.missing(j, "no file of %s has this URL", dir)
		return
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	// Opened, then checked: a file swapped for a FIFO after a stat would
	// hold the audit forever.
	f, _, err := regfile.Open(p)
	if errors.Is(err, regfile.ErrNotRegular) {
		a.missing(j, "%s is not a regular file", p)
		return
	}
	if err != nil {
		a.missing(j, "%s: %v", p, unwrapPath(err))
		return
	}
	defer f.Close()
	a.compare(&j.s, j.d.name, j.r, f)
	if j.r.pkg {
		a.checkPackage(j, p)
	}
}

// checkURL downloads the resource of j, within Options.Timeout and to one
// byte past its length, and audits it.
func (a *auditor) checkURL(ctx context.Context, j *auditJob) {
	ctx, cancel := context.WithTimeout(ctx, a.opts.Timeout)
	defer cancel()
	// identity: length and digests are those of the bytes served.
	served, ct, err := a.opts.fetcher.Get(ctx, j.r.loc, true)
	var pe *previous.Error
	if errors.As(err, &pe) && pe.Kind == previous.ErrInvalid {
		a.missing(j, "cannot be requested: %v", pe.Err)
		return
	}
	if err != nil {
		a.missing(j, "%v", a.late(ctx, fetchError(err)))
		return
	}
	defer served.Close()
	if j.r.typ != "" {
		if mt, _, err := mime.ParseMediaType(ct); err == nil && !strings.EqualFold(mt, j.r.typ) {
			j.s.add(j.d.name, j.r.line, RuleAuditType, "%s is served as %s; its entry says type=%q", rules.Clip(j.r.loc), mt, j.r.typ)
		}
	}
	body := io.Reader(&lateReader{r: served, ctx: ctx, a: a})
	if want, ok := rules.ParseInteger(j.r.length); ok && want >= 0 {
		body = io.LimitReader(body, want+1) // one byte more tells a longer body
	}
	if !j.r.pkg {
		a.compare(&j.s, j.d.name, j.r, body)
		return
	}
	tmp, err := confined.CreateTemp("", "rsgen-validate-*.zip")
	if err != nil {
		a.missing(j, "cannot keep the package to check its manifest: %v", err)
		return
	}
	defer confined.Remove(tmp.Name())
	defer tmp.Close()
	if a.compare(&j.s, j.d.name, j.r, io.TeeReader(body, tmp)) {
		a.checkPackage(j, tmp.Name())
	}
}

// late says that the request of ctx ran out of time, if it did, else err.
func (a *auditor) late(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no complete answer within %s", a.opts.Timeout)
	}
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

type lateReader struct {
	r   io.Reader
	ctx context.Context
	a   *auditor
}

func (lr *lateReader) Read(p []byte) (int, error) {
	n, err := lr.r.Read(p)
	if err != nil && err != io.EOF {
		err = lr.a.late(lr.ctx, err)
	}
	return n, err
}

// compare reads r once through every digest the entry gives and reports a
// length or digest other than the entry's; r may stop one byte past its
// length. It reports whether r had that length.
func (a *auditor) compare(s *sink, doc string, res resource, r io.Reader) bool {
	type digest struct {
		alg  string
		want []byte
		h    hash.Hash
	}
	var ds []digest
	var ws []io.Writer
	for _, tok := range hashing.ScanAttr(res.hash, nil, func(hashing.AttrProblem) {}) { // problems are reported with the document
		algo, known := hashing.Lookup(tok.Alg)
		if !known {
			s.add(doc, res.line, RuleAuditUnchecked, "%s: the %s digest cannot be checked (known: %s)", rules.Clip(res.loc), tok.Alg, hashing.Known())
			continue
		}
		h := algo.New()
		ds = append(ds, digest{tok.Alg, tok.Digest, h})
		ws = append(ws, h)
	}
	n, err := io.Copy(io.MultiWriter(append(ws, io.Discard)...), r)
	if err != nil {
		s.add(doc, res.line, RuleAuditMissing, "%s: reading it failed after %d bytes: %v", rules.Clip(res.loc), n, unwrapPath(err))
		return false
	}
	if want, ok := rules.ParseInteger(res.length); ok && want != n {
		if n > want {
			s.add(doc, res.line, RuleAuditLength, "%s has more than the %s bytes its entry gives as length (reading stopped there; so its digests differ too)", rules.Clip(res.loc), res.length)
		} else {
			s.add(doc, res.line, RuleAuditLength, "%s has %d bytes; its entry says length=%s (so its digests differ too)", rules.Clip(res.loc), n, res.length)
		}
		return false
	}
	for _, d := range ds {
		if got := d.h.Sum(nil); !bytes.Equal(got, d.want) {
			s.add(doc, res.line, RuleAuditHash, "%s has %s:%x; its entry says %s:%x", rules.Clip(res.loc), d.alg, got, d.alg, d.want)
		}
	}
	return true
}

// checkPackage checks the manifest.xml of the ZIP package of a dump's
// entry, and each bitstream it lists.
func (a *auditor) checkPackage(j *auditJob, path string) {
	s := &j.s
	zr, err := zip.OpenReader(path)
	if err != nil {
		s.add(j.d.name, j.r.line, RuleDumpManifest, "%s is not a ZIP package: %v", rules.Clip(j.r.loc), err)
		return
	}
	defer zr.Close()
	files := make(map[string]*zip.File, len(zr.File))
	for _, f := range zr.File {
		files[f.Name] = f
	}
	mf := files["manifest.xml"]
	if mf == nil {
		s.add(j.d.name, j.r.line, RuleDumpManifest, "the package %s has no manifest.xml at its top level", rules.Clip(j.r.loc))
		return
	}
	rc, err := mf.Open()
	if err != nil {
		s.add(j.d.name, j.r.line, RuleDumpManifest, "the manifest.xml of %s cannot be read: %v", rules.Clip(j.r.loc), err)
		return
	}
	name := j.r.loc + "!/manifest.xml"
	m := checkDocument(s, name, "", rc, docOptions{manifest: true, lenientHash: a.opts.LenientHash})
	rc.Close()
	want := rsxml.CapResourceDumpManifest
	if j.d.capability == rsxml.CapChangeDump {
		want = rsxml.CapChangeDumpManifest
	}
	if m.readable && m.capability != want {
		s.add(j.d.name, j.r.line, RuleDumpManifest, "the manifest.xml of %s is a %s, not a %s", rules.Clip(j.r.loc), describe(m), rules.Name(want))
		return
	}
	for _, mr := range m.resources {
		f := files[strings.TrimPrefix(mr.path, "/")]
		if f == nil {
			s.add(name, mr.line, RuleDumpManifest, "path=%q is not in the package", mr.path)
			continue
		}
		if want, ok := rules.ParseInteger(mr.length); ok && uint64(want) != f.UncompressedSize64 {
			s.add(name, mr.line, RuleAuditLength, "%s has %d bytes in the package; its entry says length=%s (so its digests differ too)", mr.path, f.UncompressedSize64, mr.length)
			continue
		}
		if mr.hash == "" {
			continue
		}
		fr, err := f.Open()
		if err != nil {
			s.add(name, mr.line, RuleDumpManifest, "%s cannot be read from the package: %v", mr.path, err)
			continue
		}
		a.compare(s, name, resource{loc: mr.path, line: mr.line, length: mr.length, hash: mr.hash}, fr)
		fr.Close()
	}
}
