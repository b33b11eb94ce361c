package previous

import (
	"context"
	"io"
	"strings"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/documents/uri"
	"github.com/rsgen/rsgen/internal/published/rules"
)

// listReader reads the entries of the Resource List's documents in order
// and checks each: one document is open, one entry held.
type listReader struct {
	site     *Site
	ctx      context.Context
	spillDir string // where a part fetched over HTTP is kept while it is read; "" holds it in memory

	ahead   *prefetch // the next document, being fetched
	part    int       // index in site.parts of the document open, or about to be
	onlyOne bool      // stop at the end of the first document, keeping it open for rewind
	rd      *rsxml.Reader
	body    io.ReadCloser
	name    string // of the document open
	entries int    // of the document open
	count   int    // over all documents

	res  Resource // the entry just read
	line int      // its line
}

// next reads the next entry into l.res; false at the end, or with an error.
func (l *listReader) next() (bool, error) {
	for {
		if l.rd == nil {
			if l.part == len(l.site.parts) {
				return false, nil
			}
			if err := l.open(); err != nil {
				return false, err
			}
		}
		e, err := l.rd.Next()
		if err == io.EOF {
			if l.onlyOne {
				return false, checkRoot(l.name, l.rd, rsxml.CapResourceList)
			}
			if err := l.finishPart(); err != nil {
				return false, err
			}
			continue
		}
		if err != nil {
			return false, classify(l.name, err, false)
		}
		if l.count&4095 == 0 && l.ctx.Err() != nil {
			return false, context.Cause(l.ctx)
		}
		if err := l.entry(e); err != nil {
			return false, err
		}
		return true, nil
	}
}

func (l *listReader) open() error {
	u := l.site.parts[l.part]
	l.name = l.site.src.name(u)
	if err := l.ctx.Err(); err != nil {
		return context.Cause(l.ctx)
	}
	body, err := l.fetch(l.part)
	if err != nil {
		return err
	}
	l.fetchAhead(l.part + 1)
	return l.start(body)
}

func (l *listReader) start(body io.ReadCloser) error {
	rd, err := rsxml.NewReader(body, rsxml.ReadOptions{MaxBytes: l.site.opts.maxBytes, ReuseEntries: true})
	if err != nil {
		body.Close()
		return classify(l.name, err, true)
	}
	doc := rd.Doc()
	if err := checkRoot(l.name, rd, rsxml.CapResourceList); err != nil {
		body.Close()
		return err
	}
	if doc.Index {
		body.Close()
		return indexInIndex(l.name, l.site.resourceList)
	}
	l.rd, l.body, l.entries = rd, body, 0
	return nil
}

// rewind starts the first document again, from its bytes if they are
// still at hand, to read on to the last.
func (l *listReader) rewind() error {
	l.onlyOne = false
	if l.part == 0 && l.rd != nil {
		if s, ok := l.body.(io.Seeker); ok {
			if _, err := s.Seek(0, io.SeekStart); err == nil {
				body := l.body
				l.rd, l.body, l.count = nil, nil, 0
				return l.start(body)
			}
		}
	}
	l.close()
	l.part, l.count = 0, 0
	return nil
}

func (l *listReader) finishPart() error {
	rootErr := checkRoot(l.name, l.rd, rsxml.CapResourceList)
	err := l.closeBody()
	if rootErr != nil {
		return rootErr
	}
	if err != nil {
		return &Error{Doc: l.name, Kind: ErrUnreachable, Err: err}
	}
	l.part++
	return nil
}

func (l *listReader) close() error {
	err := l.stopAhead()
	if cerr := l.closeBody(); err == nil {
		err = cerr
	}
	return err
}

func (l *listReader) closeBody() error {
	var err error
	if l.body != nil {
		err = l.body.Close()
	}
	l.rd, l.body = nil, nil
	return err
}

func (l *listReader) entry(e *rsxml.Entry) error {
	name := l.name
	if l.entries == l.site.opts.maxEntries {
		return newError(name, e.Line, ErrLimit, "more than the %d entries a document may have", l.site.opts.maxEntries)
	}
	l.entries++
	if l.count >= l.site.opts.maxResources {
		return newError(name, e.Line, ErrLimit, "more than %d resources in the previous Resource List", l.site.opts.maxResources)
	}
	l.count++
	if err := checkEntry(name, e); err != nil {
		return err
	}
	l.line = e.Line
	return toResource(name, e, &l.res)
}

func checkEntry(name string, e *rsxml.Entry) error {
	if msg := rules.MDRepeat(e.MDCount); msg != "" {
		return newError(name, e.Line, ErrInvalid, "%s", msg)
	}
	if !isAbsoluteURL(e.Loc) {
		// Section 7: the URI of the resource. A relative one, as some
		// tools write, names nothing a build publishes: read, it
		// would come out of the next build as a deletion.
		return newError(name, e.Line, ErrInvalid, "%s", rules.NotAbsolute(e.Loc))
	}
	return nil
}

func toResource(name string, e *rsxml.Entry, res *Resource) error {
	*res = Resource{Loc: uri.Normalize(strings.TrimSpace(e.Loc)), Length: -1, Type: e.MD.Type}
	if res.Loc == "" {
		return newError(name, e.Line, ErrInvalid, "an entry with an empty <loc>")
	}
	if e.Lastmod != "" {
		t, err := parseTime(name, e.Line, "lastmod", e.Lastmod)
		if err != nil {
			return err
		}
		res.Lastmod = t
	}
	var err error
	res.Hash, res.Length, err = hashAndLength(name, e)
	return err
}

// hashAndLength reads the hash and length of the entry e of the document
// name: nil and -1 where it has none.
func hashAndLength(name string, e *rsxml.Entry) ([]hashing.Token, int64, error) {
	h, n, msg := readHashLength(e)
	if msg != "" {
		return nil, 0, newError(name, e.Line, ErrInvalid, "%s", msg)
	}
	return h, n, nil
}

// readHashLength is hashAndLength, saying what is wrong in words.
func readHashLength(e *rsxml.Entry) ([]hashing.Token, int64, string) {
	var h []hashing.Token
	if e.MD.Hash != "" {
		var err error
		if h, err = hashing.ParseAttr(e.MD.Hash); err != nil {
			return nil, 0, err.Error()
		}
	}
	if e.MD.Length == "" {
		return h, -1, ""
	}
	n, msg := rules.Length(e.MD.Length)
	return h, n, msg
}

// A prefetch is a document of the Resource List fetched while the one
// before it is read: a build then waits for no download but the first.
type prefetch struct {
	part   int
	done   chan struct{}
	cancel context.CancelFunc
	body   io.ReadCloser
	err    error
}

func (l *listReader) fetch(part int) (io.ReadCloser, error) {
	if p := l.ahead; p != nil && p.part == part {
		l.ahead = nil
		<-p.done
		p.cancel()
		return p.body, p.err
	}
	if err := l.stopAhead(); err != nil {
		return nil, err
	}
	return l.site.src.part(l.ctx, l.site.parts[part], l.site.opts.maxBytes, l.spillDir)
}

// fetchAhead starts fetching the document part into a file, if there is
// one and it is not a directory's.
func (l *listReader) fetchAhead(part int) {
	if l.spillDir == "" || part >= len(l.site.parts) || l.ahead != nil {
		return
	}
	if _, local := l.site.src.(*dirSource); local {
		return
	}
	u := l.site.parts[part]
	ctx, cancel := context.WithCancel(l.ctx)
	p := &prefetch{part: part, done: make(chan struct{}), cancel: cancel}
	l.ahead = p
	go func() {
		defer close(p.done)
		p.body, p.err = l.site.src.part(ctx, u, l.site.opts.maxBytes, l.spillDir)
	}()
}

// stopAhead cancels the fetch ahead, if any, and removes what it fetched.
func (l *listReader) stopAhead() error {
	p := l.ahead
	if p == nil {
		return nil
	}
	l.ahead = nil
	p.cancel()
	<-p.done
	if p.body != nil {
		return p.body.Close()
	}
	return nil
}
