package spill

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/storage/binrec"
	"github.com/rsgen/rsgen/internal/storage/stage"
)

// A Resource is one published resource: an entry of the Resource List.
type Resource struct {
	Path     string          // slash-separated path under the source root; "" for a record without a local file
	Loc      string          // absolute URL
	Length   int64           // bytes; -1 if unknown
	Modified time.Time       // the lastmod; zero if unknown
	Hash     []hashing.Token // the digests: the build's (by its hashing.Set, in order), or those a record or the previous build gave
	Type     string          // media type, bare
	Links    []rsxml.Link

	Kept bool // the previous build's entry, kept as it was: the file could not be read (detect.Join.KeepUnread)
}

// Clone returns a copy of r that shares no memory with it.
func (r *Resource) Clone() Resource {
	c := *r
	c.Links = slices.Clone(r.Links)
	c.Hash = slices.Clone(r.Hash)
	return c
}

// Entry fills e with r as an entry of a Resource List.
func (r *Resource) Entry(e *rsxml.Entry) {
	*e = rsxml.Entry{Loc: r.Loc, Links: r.Links}
	if !r.Modified.IsZero() {
		e.Lastmod = rsxml.FormatTime(r.Modified.Truncate(time.Second))
	}
	e.MD.Hash = hashing.FormatTokens(r.Hash)
	if r.Length >= 0 {
		e.MD.Length = strconv.FormatInt(r.Length, 10)
	}
	e.MD.Type = r.Type
}

// ResourceSpool holds the resources of a build in the order of their
// paths, on disk: the scan writes them, and each step after it reads them
// once, one at a time, and may write the next step's.
type ResourceSpool struct {
	file   *binrec.File
	closed bool
	Bytes  int64 // the sum of the known lengths
	buf    []byte
	last   Resource // the one added last, for the prefixes of the next
	any    bool

	afterAdd func() error // Area.AfterAdd

	// patches change the lastmod of resources as they are read, by
	// ascending index: those the join spooled before their verdict.
	patches []lastmodPatch
}

type lastmodPatch struct {
	i        int
	modified time.Time
}

// Resources creates an empty spool of resources.
func (a *Area) Resources() (*ResourceSpool, error) {
	dir, err := a.Path()
	if err != nil {
		return nil, err
	}
	f, err := binrec.Create(dir, "resources-*")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSpool, err)
	}
	s := &ResourceSpool{file: f, afterAdd: a.AfterAdd}
	a.Track(s)
	return s, nil
}

const spoolKept = 1 // the flag of Resource.Kept

// ErrSpool marks the errors of writing or reading the spool: a full disk.
var ErrSpool = errors.New("spooling the resources")

var errResourceOrder = errors.New("resources out of order")

// Add appends r, which must come after the one added before it in the
// order of paths.
func (s *ResourceSpool) Add(r *Resource) error {
	if s.any && r.Path <= s.last.Path {
		return fmt.Errorf("%w: %q after %q", errResourceOrder, r.Path, s.last.Path)
	}
	b := AppendResource(s.buf[:0], &s.last, r)
	s.buf = b
	err := s.file.Append(b)
	if s.afterAdd != nil && err == nil {
		err = s.afterAdd()
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSpool, err)
	}
	s.last.Path, s.last.Loc, s.any = r.Path, r.Loc, true
	s.Bytes += max(r.Length, 0)
	return nil
}

// AppendResource appends the record of r, its path and URL stored as the
// prefix they share with those of last (the resource before, or an empty
// one) and the rest.
func AppendResource(b []byte, last, r *Resource) []byte {
	b = binrec.AppendShared(b, last.Path, r.Path)
	b = binrec.AppendShared(b, last.Loc, r.Loc)
	b = binary.AppendVarint(b, r.Length)
	flags := byte(0)
	if r.Kept {
		flags |= spoolKept
	}
	b = append(b, flags)
	b = binrec.AppendTime(b, r.Modified)
	b = binrec.AppendTokens(b, r.Hash)
	b = binrec.AppendBytes(b, r.Type)
	b = binary.AppendUvarint(b, uint64(len(r.Links)))
	for _, l := range r.Links {
		for _, f := range linkFields(&l) {
			b = binrec.AppendBytes(b, *f)
		}
	}
	return b
}

// ReadResource reads a record of AppendResource into r, which holds the
// resource it was appended after; intern shares the media types. The
// slices of r are reused.
func ReadResource(d *binrec.Reader, r *Resource, intern func([]byte) string) error {
	r.Path = d.Shared(r.Path)
	r.Loc = d.Shared(r.Loc)
	r.Length = d.Varint()
	r.Kept = d.Byte()&spoolKept != 0
	r.Modified = d.Time()
	if r.Hash = d.Tokens(r.Hash[:0]); len(r.Hash) == 0 {
		r.Hash = nil
	}
	r.Type = intern(d.Bytes())
	r.Links = r.Links[:0]
	for n := d.Uvarint(); n > 0 && d.Err() == nil; n-- {
		var l rsxml.Link
		for _, f := range linkFields(&l) {
			*f = string(d.Bytes())
		}
		r.Links = append(r.Links, l)
	}
	if len(r.Links) == 0 {
		r.Links = nil
	}
	return d.Err()
}

func linkFields(l *rsxml.Link) []*string {
	return []*string{&l.Rel, &l.Href, &l.Type, &l.Hash, &l.Length, &l.Modified, &l.Encoding, &l.Path, &l.Pri, &l.Profile}
}

func (s *ResourceSpool) Len() int { return s.file.Len() }

// Close removes the file; Area.Remove closes those left open.
func (s *ResourceSpool) Close() {
	if s != nil && !s.closed {
		s.closed = true
		s.file.Close()
	}
}

// Patch sets the lastmod of the resource at index i when it is read; i
// must ascend across calls.
func (s *ResourceSpool) Patch(i int, modified time.Time) {
	s.patches = append(s.patches, lastmodPatch{i, modified})
}

// Iter returns an iterator over the resources, from the first.
func (s *ResourceSpool) Iter() (*Iter[Resource], error) {
	patches, i := s.patches, -1
	intern := binrec.Interner{}.String // media types, shared: a site has few
	return NewIter(s.file, func(d *binrec.Reader, r *Resource) error {
		if err := ReadResource(d, r, intern); err != nil {
			return err
		}
		for i++; len(patches) > 0 && patches[0].i <= i; patches = patches[1:] {
			if patches[0].i == i {
				r.Modified = patches[0].modified
			}
		}
		return nil
	}, (*Resource).Entry)
}

// Each calls fn with each resource in order, until it returns an error.
func (s *ResourceSpool) Each(fn func(r *Resource) error) error {
	it, err := s.Iter()
	if err != nil {
		return err
	}
	return it.Each(fn)
}

// An Area is the directory of a build's spill files in its stage.
type Area struct {
	Stage      *stage.Stage
	SortMemory int          // of the sort of the changes; DefaultSortMemory if 0
	AfterAdd   func() error // for tests: called after each resource is spooled, its error the spool's (a full disk)

	dir  string
	open []interface{ Close() } // the spools made, closed by remove
}

// Path returns the directory, made on first use.
func (a *Area) Path() (string, error) {
	if a.dir == "" {
		dir, err := a.Stage.MkdirTemp(".spill-*")
		if err != nil {
			return "", fmt.Errorf("making a directory for spill files: %w", err)
		}
		a.dir = dir
	}
	return a.dir, nil
}

// Track has Remove close c.
func (a *Area) Track(c interface{ Close() }) { a.open = append(a.open, c) }

func (a *Area) Remove() error {
	for _, s := range a.open {
		s.Close()
	}
	a.open = nil
	if a.dir == "" {
		return nil
	}
	err := a.Stage.RemoveAll(filepath.Base(a.dir))
	a.dir = ""
	return err
}
