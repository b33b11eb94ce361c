package previous

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/rsgen/rsgen/internal/storage/regfile"
)

// A source fetches the documents of a previous build, from a directory or
// over HTTP.
type source interface {
	// get returns the whole document at u, refusing more than max bytes.
	get(ctx context.Context, u string, max int64) ([]byte, error)
	// open streams the file at u (a dump package), refusing more than max
	// bytes: the reader fails once it passes max. Close it.
	open(ctx context.Context, u string, max int64) (io.ReadCloser, error)
	// part returns a document to read at the caller's pace, refusing
	// more than max bytes; spillDir, if not "", is where a copy fetched
	// from elsewhere may be kept while it is read. Close it.
	part(ctx context.Context, u string, max int64, spillDir string) (io.ReadCloser, error)
	// name is how errors and notices name the document at u.
	name(u string) string
	// local returns the path of the file at u, if the source is a
	// directory, so that a caller can link to it rather than copy it.
	local(u string) (string, bool)
}

// dirSource reads the output directory of a previous build. Document URLs
// map to files by their part after base, the URL where dir is served.
type dirSource struct {
	dir  string // absolute
	base string // ends in "/"; "" until known
}

// file maps u to a file inside the directory.
func (s *dirSource) file(u string) (string, error) {
	rel, err := s.rel(u)
	if err != nil {
		return "", err
	}
	return filepath.Join(s.dir, filepath.FromSlash(rel)), nil
}

// rel maps u to its path under base (slash-separated), which stays
// inside it: the path of a file in the directory, or of a key in a bucket.
func (s *dirSource) rel(u string) (string, error) {
	if s.base == "" {
		return "", errors.New("the URL where the directory is served is not known")
	}
	rel, ok := strings.CutPrefix(u, s.base)
	if !ok {
		return "", fmt.Errorf("%s is not under %s, where the previous output is served", u, s.base)
	}
	if strings.ContainsAny(rel, "?#") {
		return "", fmt.Errorf("%s has a query or fragment; it is not a file of the previous output", u)
	}
	rel, err := url.PathUnescape(rel)
	if err != nil {
		return "", fmt.Errorf("%s is not a valid URL path: %w", u, err)
	}
	if rel == "" || !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", fmt.Errorf("%s leads outside the previous output directory", u)
	}
	return rel, nil
}

func (s *dirSource) name(u string) string {
	if p, err := s.file(u); err == nil {
		return p
	}
	return u
}

func (s *dirSource) local(u string) (string, bool) {
	p, err := s.file(u)
	return p, err == nil
}

func (s *dirSource) openFile(u string) (*os.File, fs.FileInfo, error) {
	p, err := s.file(u)
	if err != nil {
		return nil, nil, &Error{Doc: u, Kind: ErrUnreachable, Err: err}
	}
	// Inside the directory, as os.Root resolves names: a symbolic link
	// (or a directory replaced by one) that leads outside it is refused,
	// not followed. Not os.Open: a FIFO would block it until something
	// writes to it.
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		return nil, nil, &Error{Doc: s.dir, Kind: ErrUnreachable, Err: unwrapPath(err), missing: errors.Is(err, fs.ErrNotExist)}
	}
	defer root.Close()
	rel, _ := filepath.Rel(s.dir, p)
	f, st, err := regfile.OpenIn(root, rel)
	if err != nil {
		return nil, nil, &Error{Doc: p, Kind: ErrUnreachable, Err: unwrapPath(err), missing: errors.Is(err, fs.ErrNotExist)}
	}
	return f, st, nil
}

func (s *dirSource) get(ctx context.Context, u string, max int64) ([]byte, error) {
	f, err := s.part(ctx, u, max, "")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readDoc(s.name(u), f, max)
}

func (s *dirSource) open(ctx context.Context, u string, max int64) (io.ReadCloser, error) {
	f, err := s.part(ctx, u, max, "")
	if err != nil {
		return nil, err
	}
	return &cappedReader{r: f, c: f, left: max, doc: s.name(u)}, nil
}

// part opens the file at u, refusing one of more than max bytes.
func (s *dirSource) part(_ context.Context, u string, max int64, _ string) (io.ReadCloser, error) {
	f, st, err := s.openFile(u)
	if err != nil {
		return nil, err
	}
	if st.Size() > max {
		f.Close()
		return nil, newError(f.Name(), 0, ErrLimit, "%d bytes, more than the %d allowed", st.Size(), max)
	}
	return f, nil
}

// readDoc reads the document name from r, refusing more than max bytes.
func readDoc(name string, r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, readError(name, err)
	}
	if int64(len(data)) > max {
		return nil, newError(name, 0, ErrLimit, "more than the %d bytes a document may have", max)
	}
	return data, nil
}

// readError is the Error of a read of a document that broke off: err
// itself if it is one (over the limit).
func readError(name string, err error) error {
	var pe *Error
	if errors.As(err, &pe) {
		return err
	}
	return &Error{Doc: name, Kind: ErrUnreachable, Err: unwrapPath(err)}
}

// inMemory is a document read whole, as part returns it without a spill
// directory.
func inMemory(data []byte, err error) (io.ReadCloser, error) {
	if err != nil {
		return nil, err
	}
	return nopSeekCloser{bytes.NewReader(data)}, nil
}

type nopSeekCloser struct{ *bytes.Reader }

func (nopSeekCloser) Close() error { return nil }

// cappedReader fails with ErrLimit once more than left bytes were read.
type cappedReader struct {
	r    io.Reader
	c    io.Closer
	left int64
	doc  string
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, newError(c.doc, 0, ErrLimit, "larger than the size allowed")
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n - 1, newError(c.doc, 0, ErrLimit, "larger than the size allowed")
	}
	return n, err
}

func (c *cappedReader) Close() error { return c.c.Close() }

// unwrapPath drops the path an *fs.PathError carries: the Error names the
// document once.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, fs.ErrNotExist) {
			return errors.New("no such file")
		}
		if errors.Is(pe.Err, regfile.ErrNotRegular) {
			return pe.Err
		}
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
