package validate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/storage/regfile"
)

// Document validates the one document r holds, named name, as Path
// checks a file, without following its links.
func Document(name string, r io.Reader) *Report {
	s := newSink()
	d := checkDocument(s, name, "", r, docOptions{})
	rep := s.report()
	if d.readable {
		rep.Documents = []string{name}
	}
	return rep
}

// Path validates a file, or every document of a directory and the links
// between them, resolved through Options.BaseURL or the URL the links
// show. A directory laid out as rsgen writes it (.well-known/resourcesync
// and resourcesync/) is a published site: the Source Description, the
// XML documents under resourcesync/ and the files they link to. Any other
// directory: every *.xml, *.xml.gz and file named resourcesync in it.
func Path(ctx context.Context, path string, opts Options) (*Report, error) {
	if err := opts.normalize(nil); err != nil {
		return nil, err
	}
	s := newSink()
	label := cmp.Or(opts.Label, path)
	info, err := os.Stat(path)
	if err != nil {
		s.add(label, 0, RuleXML, "cannot read: %v", unwrapPath(err))
		return s.report(), nil
	}
	l := &dirLoader{root: path, label: label, opts: docOptions{audit: opts.auditing(), lenientHash: opts.LenientHash}}
	st := newSet(s, &opts, l)
	if !info.IsDir() {
		l.root, l.label = filepath.Dir(path), filepath.Dir(label)
		d, why := l.loadRel(s, filepath.Base(path), "")
		if d == nil {
			s.add(label, 0, RuleXML, "cannot read: %s", why)
			return s.report(), nil
		}
		st.add(d)
		st.audit(ctx, newAuditor(st, "", opts))
		return st.report(), nil
	}
	rels, err := documentFiles(path)
	if err != nil {
		s.add(label, 0, RuleXML, "cannot read: %v", unwrapPath(err))
		return s.report(), nil
	}
	if len(rels) == 0 {
		s.add(label, 0, RuleXML, "the directory holds no *.xml, *.xml.gz or resourcesync file")
		return s.report(), nil
	}
	l.loadAll(ctx, st, rels)
	base := opts.BaseURL
	if base == "" {
		base = inferBase(st.order)
	}
	if base != "" {
		l.setBase(st, base)
		st.crawl(ctx)
		st.checkLinks(ctx)
	}
	st.audit(ctx, newAuditor(st, base, opts))
	return st.report(), nil
}

func (o *Options) auditing() bool { return o.Resources != "" || o.Fetch }

// documentFiles lists the documents of a directory (see Path), sorted.
func documentFiles(dir string) ([]string, error) {
	var rels []string
	wk, err1 := os.Stat(filepath.Join(dir, ".well-known", "resourcesync"))
	docs, err2 := os.Stat(filepath.Join(dir, "resourcesync"))
	walkRoot := dir
	if err1 == nil && wk.Mode().IsRegular() && err2 == nil && docs.IsDir() {
		rels = append(rels, ".well-known/resourcesync")
		walkRoot = filepath.Join(dir, "resourcesync")
	}
	err := filepath.WalkDir(walkRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != walkRoot && (name == ".git" || strings.HasPrefix(name, ".rsgen-stage-")) {
				return filepath.SkipDir
			}
			return nil
		}
		lower := strings.ToLower(name)
		if !d.Type().IsRegular() || !(strings.HasSuffix(lower, ".xml") || strings.HasSuffix(lower, ".xml.gz") || name == "resourcesync") {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rels = append(rels, filepath.ToSlash(rel))
		return nil
	})
	return rels, err
}

type dirLoader struct {
	root    string // the directory
	label   string // how findings name it
	base    string // URL where it is served; "" if unknown
	baseKey string
	opts    docOptions
}

func (l *dirLoader) inScope(u string) bool {
	return l.base != "" && strings.HasPrefix(urlKey(u), l.baseKey)
}

func (l *dirLoader) load(_ context.Context, st *set, u string) (*docInfo, string) {
	rel, ok := keyPath(urlKey(u), l.baseKey)
	if !ok {
		return nil, fmt.Sprintf("no document of %s is served there", l.label)
	}
	return l.loadRel(st.s, rel, u)
}

func (l *dirLoader) entries(_ context.Context, d *docInfo, yield func(loc string, line int) error) error {
	if d.rel == "" {
		return fmt.Errorf("%s is not a document of %s", d.name, l.label)
	}
	f, _, err := regfile.Open(filepath.Join(l.root, filepath.FromSlash(d.rel)))
	if err != nil {
		return err
	}
	defer f.Close()
	return readEntries(f, yield)
}

// loadAll reads and checks the documents rels, GOMAXPROCS at once, each
// into a sink of its own, and adds them to the set in the order of rels,
// up to Options.MaxDocuments: the report does not depend on which
// finished first.
func (l *dirLoader) loadAll(ctx context.Context, st *set, rels []string) {
	type loaded struct {
		d   *docInfo
		why string
		s   *sink
	}
	for len(rels) > 0 {
		if len(st.order) >= st.opts.MaxDocuments {
			st.limited = true
			return
		}
		// As many as may still be added; one that cannot be read leaves
		// room for the next round.
		batch := rels[:min(len(rels), st.opts.MaxDocuments-len(st.order))]
		rels = rels[len(batch):]
		done := make([]loaded, len(batch))
		var next atomic.Int64
		var wg sync.WaitGroup
		for range min(runtime.GOMAXPROCS(0), len(batch)) {
			wg.Go(func() {
				for i := int(next.Add(1) - 1); i < len(batch) && ctx.Err() == nil; i = int(next.Add(1) - 1) {
					s := newSink()
					d, why := l.loadRel(s, batch[i], "")
					done[i] = loaded{d, why, s}
				}
			})
		}
		wg.Wait()
		for i, r := range done {
			switch {
			case r.s == nil: // cancelled
			case r.d == nil:
				st.s.add(filepath.Join(l.label, filepath.FromSlash(batch[i])), 0, RuleXML, "cannot read: %s", r.why)
			default:
				st.s.merge(r.s)
				st.add(r.d)
			}
		}
	}
}

func (l *dirLoader) loadRel(s *sink, rel, u string) (*docInfo, string) {
	p := filepath.Join(l.root, filepath.FromSlash(rel))
	name := filepath.Join(l.label, filepath.FromSlash(rel))
	f, _, err := regfile.Open(p)
	if errors.Is(err, regfile.ErrNotRegular) {
		return nil, fmt.Sprintf("%s is not a regular file", name)
	}
	if err != nil {
		return nil, fmt.Sprintf("%s: %v", name, unwrapPath(err))
	}
	defer f.Close()
	d := checkDocument(s, name, u, f, l.opts)
	d.rel = rel
	return d, ""
}

func (l *dirLoader) setBase(st *set, base string) {
	l.base, l.baseKey = base, urlKey(base)
	for _, d := range st.order {
		if d.rel != "" {
			d.url = docURL(base, d.rel)
			st.byKey[urlKey(d.url)] = d
			d.resolveRefs()
		}
	}
}

// inferBase finds where the documents are served from their links: the
// prefix that, followed by the path of a document, gives the most targets.
func inferBase(docs []*docInfo) string {
	rels := make(map[string]bool, len(docs)) // as they are in URL keys
	for _, d := range docs {
		rels[uri.EscapePath(d.rel)] = true
	}
	votes := map[string]int{}
	for _, d := range docs {
		for _, ref := range refs(d) {
			k := urlKey(ref)
			if strings.Contains(k, "?") || !strings.Contains(k, "://") {
				continue
			}
			start := strings.Index(k, "://") + 3
			for i := start; i < len(k); i++ {
				if k[i] == '/' && rels[k[i+1:]] {
					votes[k[:i+1]]++
				}
			}
		}
	}
	best, n := "", 0
	for b, v := range votes {
		if v > n || v == n && b < best {
			best, n = b, v
		}
	}
	return best
}

func docURL(base, rel string) string { return base + uri.EscapePath(rel) }

// unwrapPath drops the operation and path of a *fs.PathError.
func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}
