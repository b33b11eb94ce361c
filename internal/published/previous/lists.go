package previous

import (
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"strings"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/published/rules"
)

// readResourceList reads the root of the Resource List, and the list of
// its documents if it is an index; the iterator reads the entries.
func (r *reader) readResourceList(ctx context.Context) error {
	u := r.site.capability(rsxml.CapResourceList)
	name := r.src.name(u)
	if err := r.visit(ctx, u); err != nil {
		return err
	}
	body, err := r.src.part(ctx, u, r.opts.maxBytes, "")
	if err != nil {
		return err
	}
	defer body.Close()
	rd, err := rsxml.NewReader(body, rsxml.ReadOptions{MaxBytes: r.opts.maxBytes})
	if err != nil {
		return classify(name, err, true)
	}
	if err := checkRoot(name, rd, rsxml.CapResourceList); err != nil {
		return err
	}
	doc := rd.Doc()
	if msg := rules.RootTimes(rsxml.CapResourceList, doc.Index, &doc.MD); msg != "" {
		return newError(name, 0, ErrInvalid, "%s", msg)
	}
	at, err := parseTime(name, 0, "at", doc.MD.At)
	if err != nil {
		return err
	}
	if !r.opts.At.IsZero() && at.After(r.opts.At) {
		return newError(name, 0, ErrLater, "the previous Resource List was taken at %s, later than this build's snapshot time %s",
			rsxml.FormatTime(at), rsxml.FormatTime(r.opts.At))
	}
	r.site.resourceList = u
	r.site.At = at
	if !doc.Index {
		r.site.parts = []string{u}
		return nil
	}
	entries, err := readEntries(name, rd, r.opts.maxEntries, rsxml.CapResourceList)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := r.visit(ctx, e.Loc); err != nil {
			return err
		}
		r.site.parts = append(r.site.parts, e.Loc)
	}
	return nil
}

// readChangeLists reads the Change List Index and its Change Lists, or the
// one Change List the Capability List points at.
func (r *reader) readChangeLists(ctx context.Context) error {
	u := r.site.capability(rsxml.CapChangeList)
	if u == "" {
		return nil
	}
	doc, entries, data, err := r.fetch(ctx, u, rsxml.CapChangeList)
	if err != nil {
		return err
	}
	name := r.src.name(u)
	if !doc.Index {
		return r.addChangeList(u, doc, entries, data, nil)
	}
	if msg := rules.RootTimes(rsxml.CapChangeList, true, &doc.MD); msg != "" {
		return newError(name, 0, ErrInvalid, "%s", msg)
	}
	for _, e := range entries {
		if err := r.checkChangeListBytes(name); err != nil {
			return err
		}
		ldoc, lentries, ldata, err := r.fetchPart(ctx, e.Loc, u, rsxml.CapChangeList)
		if err != nil {
			return err
		}
		if err := r.addChangeList(e.Loc, ldoc, lentries, ldata, e); err != nil {
			return err
		}
	}
	return nil
}

// addChangeList checks one Change List and keeps it; ie is its entry in
// the index, nil if the Capability List points at it. An open list (no
// until) listed by an index is still growing and not carried forward;
// pointed at by the Capability List it is the OpenChangeList, whose
// changes run to the snapshot of the Resource List.
func (r *reader) addChangeList(u string, doc *rsxml.Doc, entries []*rsxml.Entry, data []byte, ie *rsxml.Entry) error {
	name := r.src.name(u)
	if msg := rules.RootTimes(rsxml.CapChangeList, false, &doc.MD); msg != "" {
		return newError(name, 0, ErrInvalid, "%s", msg)
	}
	from, err := parseTime(name, 0, "from", doc.MD.From)
	if err != nil {
		return err
	}
	cl := ChangeList{URL: u, Rel: r.site.rel(u), From: from, Entries: len(entries), Bytes: int64(len(data)), sum: sha256.Sum256(data), Index: doc.Link("index"),
		bad: badEntries(name, entries)}
	switch {
	case doc.MD.Until == "" && ie != nil:
		r.opts.Notice(name + ": an open Change List (no until) is still growing; it is not carried forward")
		return nil
	case doc.MD.Until == "" && from.After(r.site.At):
		return newError(name, 0, ErrInvalid, "from %s is after the snapshot time of the Resource List (%s)",
			doc.MD.From, rsxml.FormatTime(r.site.At))
	case doc.MD.Until == "":
		if err := checkChanges(name, entries, from, r.site.At, true); err != nil {
			return err
		}
		r.site.OpenChangeList = &cl
		return nil
	}
	if cl.Until, err = parseTime(name, 0, "until", doc.MD.Until); err != nil {
		return err
	}
	if msg := rules.Interval(doc.MD.From, doc.MD.Until, from, cl.Until); msg != "" {
		return newError(name, 0, ErrInvalid, "%s", msg)
	}
	if ie != nil {
		index := r.src.name(r.site.capability(rsxml.CapChangeList))
		for _, a := range []struct {
			attr, v string
			want    time.Time
		}{{"from", ie.MD.From, from}, {"until", ie.MD.Until, cl.Until}} {
			if a.v == "" {
				continue
			}
			t, err := parseTime(index, ie.Line, a.attr, a.v)
			if err != nil {
				return err
			}
			if !t.Equal(a.want) {
				return newError(name, 0, ErrInvalid, "%s is %s, but its index says %s", a.attr, rsxml.FormatTime(a.want), rsxml.FormatTime(t))
			}
		}
	}
	if err := checkChanges(name, entries, from, cl.Until, false); err != nil {
		return err
	}
	if n := len(r.site.ChangeLists); n > 0 {
		if last := r.site.ChangeLists[n-1]; from.Before(last.Until) {
			return newError(name, 0, ErrInvalid, "covers from %s, before the end (%s) of the list before it: lists must be in chronological order and may not overlap",
				rsxml.FormatTime(from), rsxml.FormatTime(last.Until))
		}
	}
	if cl.Until.After(r.site.At) {
		return newError(name, 0, ErrInvalid, "covers until %s, after the snapshot time of the Resource List (%s)",
			rsxml.FormatTime(cl.Until), rsxml.FormatTime(r.site.At))
	}
	r.site.ChangeLists = append(r.site.ChangeLists, cl)
	return r.checkChangeListBytes(name)
}

// rel returns u relative to DocsBase, "" if it is not under it.
func (s *Site) rel(u string) string {
	if rel, ok := strings.CutPrefix(u, s.DocsBase); ok {
		return rel
	}
	return ""
}

// checkChangeListBytes fails with ErrLimit once the Change Lists kept are
// more than maxChangeListBytes together; checked before each is read too.
func (r *reader) checkChangeListBytes(name string) error {
	var n int64
	for _, cl := range r.site.ChangeLists {
		n += cl.Bytes
	}
	if n > r.opts.maxChangeListBytes {
		return newError(name, 0, ErrLimit, "the closed Change Lists to carry forward, %d so far, are more than %d bytes together",
			len(r.site.ChangeLists), r.opts.maxChangeListBytes)
	}
	return nil
}

// checkChanges checks the entries of a change document: a valid change,
// datetimes in order inside [from, until] (for an open list, until the
// snapshot time of the Resource List).
func checkChanges(name string, entries []*rsxml.Entry, from, until time.Time, open bool) error {
	end := "the document's until="
	if open {
		end = "the snapshot time of the Resource List, "
	}
	end += rsxml.FormatTime(until)
	var order rules.Order
	for _, e := range entries {
		if msg := rules.Change(e.Loc, e.MD.Change, "Change List"); msg != "" {
			return newError(name, e.Line, ErrInvalid, "%s", msg)
		}
		if e.MD.Datetime == "" {
			continue
		}
		t, err := rsxml.ParseTime(strings.TrimSpace(e.MD.Datetime))
		if err != nil {
			_, msg := rules.Datetime(e.MD.Datetime)
			return newError(name, e.Line, ErrInvalid, "<rs:md>: datetime=%s", cmp.Or(msg, err.Error()))
		}
		msg := cmp.Or(rules.NotBefore(e.MD.Datetime, t, from, rsxml.FormatTime(from)), rules.NotAfter(e.MD.Datetime, t, until, end))
		if msg == "" {
			msg = order.Next("datetime", e.MD.Datetime, t, e.Line)
		}
		if msg != "" {
			return newError(name, e.Line, ErrInvalid, "%s", msg)
		}
	}
	return nil
}

type badEntry struct {
	i   int
	err error
}

// badEntries judges each entry of the Change List name, which a build may
// write again (carriedProblem).
func badEntries(name string, entries []*rsxml.Entry) []badEntry {
	var bad []badEntry
	for i, e := range entries {
		if line, msg := carriedProblem(e); msg != "" {
			bad = append(bad, badEntry{i, newError(name, line, ErrInvalid, "the entry of %s: %s", e.Loc, msg)})
		}
	}
	return bad
}

// carriedProblem is the first value of a Change List entry that a build
// writing it again would refuse (an error of validate, in its words) or
// could not write as read: rsxml writes no <priority>, no element of
// another namespace, no attribute in a namespace, and no type the schema's
// pattern rejects. It gives the line of that value. Read judges the rest:
// the change, the datetime's place, one <rs:md>, an absolute <loc>.
func carriedProblem(e *rsxml.Entry) (int, string) {
	if len(e.Deviations) > 0 {
		return e.Deviations[0].Line, e.Deviations[0].Msg
	}
	if len(e.Foreign) > 0 {
		return e.Foreign[0].Line, e.Foreign[0].Msg + ", and rsgen does not write it again"
	}
	if e.Priority != "" {
		return e.Line, cmp.Or(rules.Priority(e.Priority), fmt.Sprintf("<priority> %q is not written again: rsgen writes none", e.Priority))
	}
	if bad, _ := rules.Loc(e.Loc); bad != "" {
		return e.Line, bad
	}
	if e.Lastmod != "" {
		if _, msg := rules.Lastmod(e.Lastmod); msg != "" {
			return e.Line, msg
		}
	}
	if msg := rules.Changefreq(e.Changefreq); msg != "" {
		return e.Line, msg
	}
	if _, _, msg := readHashLength(e); msg != "" {
		return e.Line, msg
	}
	md := &e.MD
	if msg := mdProblem(md); msg != "" {
		return cmp.Or(e.MDLine, e.Line), "<rs:md>: " + msg
	}
	for _, l := range e.Links {
		if msg := linkProblem(&l); msg != "" {
			return l.Line, msg
		}
	}
	return 0, ""
}

func mdProblem(md *rsxml.MD) string {
	var t [4]time.Time
	for i, a := range []struct{ attr, v string }{{"at", md.At}, {"completed", md.Completed}, {"from", md.From}, {"until", md.Until},
		{"datetime", md.Datetime}, {"modified", md.Modified}} {
		if a.v == "" {
			continue
		}
		v, msg := rules.Datetime(a.v)
		if msg != "" {
			return a.attr + "=" + msg
		}
		if i < len(t) {
			t[i] = v
		}
	}
	if md.At != "" && md.Completed != "" && t[1].Before(t[0]) {
		return fmt.Sprintf("completed=%s is before at=%s", md.Completed, md.At)
	}
	if md.From != "" && md.Until != "" {
		if msg := rules.Interval(md.From, md.Until, t[2], t[3]); msg != "" {
			return msg
		}
	}
	return attrsProblem(md.Type, md.Path, md.Extra)
}

// linkProblem judges an <rs:ln> as validate does (rules link, pri and
// those of <rs:md>'s attributes).
func linkProblem(l *rsxml.Link) string {
	if l.Rel == "" {
		return "<rs:ln> has no rel, which every link needs"
	}
	if bad, _ := rules.Rel(l.Rel); bad != "" {
		return bad
	}
	where := "<rs:ln rel=\"" + rules.Clip(l.Rel) + "\">"
	var msg string
	switch {
	case l.Href == "":
		return where + " has no href, which every link needs"
	case !rules.IsAnyURI(l.Href):
		msg = fmt.Sprintf("href=%q is not a URI", rules.Clip(l.Href))
	case l.Profile != "" && !rules.IsAnyURI(l.Profile):
		msg = fmt.Sprintf("profile=%q is not a URI", rules.Clip(l.Profile))
	case l.Pri != "":
		msg = rules.Pri(l.Pri)
	}
	if msg == "" && l.Modified != "" {
		if _, m := rules.Datetime(l.Modified); m != "" {
			msg = "modified=" + m
		}
	}
	if msg == "" && l.Hash != "" {
		if _, err := hashing.ParseAttr(l.Hash); err != nil {
			msg = err.Error()
		}
	}
	if msg == "" && l.Length != "" {
		_, msg = rules.Length(l.Length)
	}
	if msg = cmp.Or(msg, attrsProblem(l.Type, l.Path, l.Extra)); msg != "" {
		return where + ": " + msg
	}
	return ""
}

// attrsProblem judges the type, path and other attributes of an <rs:md>
// or <rs:ln>.
func attrsProblem(typ, path string, extra []rsxml.Attr) string {
	if typ != "" {
		if bad, pattern := rules.Type(typ); bad != "" || pattern != "" {
			return cmp.Or(bad, pattern)
		}
	}
	if path != "" {
		if msg := rules.Path(path); msg != "" {
			return msg
		}
	}
	for _, a := range extra {
		undeclared, prefix := rules.ExtraAttr(a)
		if msg := cmp.Or(undeclared, prefix); msg != "" {
			return msg
		}
		if a.Space != "" {
			return fmt.Sprintf("attribute %s of namespace %q is not written again: rsgen writes no namespace declarations", a.Name, a.Space)
		}
	}
	return ""
}

// Check returns the error (ErrInvalid) of the first entry of cl from the
// from-th on that a build would refuse or could not write again as it was
// read (carriedProblem), or nil. Read does not
// refuse the list for them: a build may drop them (--changes-keep).
func (cl *ChangeList) Check(from int) error {
	for _, b := range cl.bad {
		if b.i >= from {
			return b.err
		}
	}
	return nil
}

// OpenList streams the bytes of a Change List of s to publish them again:
// its file, or fetched again as Read fetched it. At their end the reader
// fails with ErrChanged if they are no longer those Read checked (the
// build was published again meanwhile): a copy is good only once the
// reader reached io.EOF. Close it. It may be called from several
// goroutines at once.
func (s *Site) OpenList(ctx context.Context, cl *ChangeList) (io.ReadCloser, error) {
	body, err := s.src.part(ctx, cl.URL, max(cl.Bytes, s.opts.maxBytes), "")
	if err != nil {
		return nil, err
	}
	return &checkedReader{body: body, name: s.src.name(cl.URL), want: cl.sum, size: cl.Bytes, h: sha256.New()}, nil
}

// checkedReader fails at the end of body unless it was size bytes of
// SHA-256 want.
type checkedReader struct {
	body io.ReadCloser
	name string
	want [sha256.Size]byte
	size int64
	n    int64
	h    hash.Hash
	err  error
}

func (c *checkedReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.body.Read(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	if c.n > c.size {
		c.err = newError(c.name, 0, ErrChanged, "has more than the %d bytes it had when it was read", c.size)
		return 0, c.err
	}
	if err == io.EOF {
		var sum [sha256.Size]byte
		if c.n != c.size || [sha256.Size]byte(c.h.Sum(sum[:0])) != c.want {
			c.err = newError(c.name, 0, ErrChanged, "is no longer what it was when it was read (%d bytes, now %d): the previous build was published again meanwhile", c.size, c.n)
			return n, c.err
		}
	}
	if err != nil {
		c.err = err
	}
	return n, err
}

func (c *checkedReader) Close() error { return c.body.Close() }
