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

	"github.com/rsgen/rsgen/internal/inputs/bucket"
	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/regfile"
)

// A source reads the files of a previous build: from a directory, over
// HTTP or from a bucket.
type source interface {
	// fetch calls fill with the body of the file at u, which fails with
	// ErrLimit past max bytes. Over HTTP fill is called again for each
	// attempt: it starts over.
	fetch(ctx context.Context, u string, max int64, fill func(io.Reader) error) error
	// open streams the file at u (a dump package), failing past max bytes.
	open(ctx context.Context, u string, max int64) (io.ReadCloser, error)
	// part returns the document at u to be read at the caller's pace, and
	// again from its start (io.Seeker): a directory's file itself, from
	// elsewhere a copy (readCopy).
	part(ctx context.Context, u string, max int64, spillDir string) (io.ReadCloser, error)
	// name is how errors and notices name the file at u.
	name(u string) string
}

// get reads the document at u whole.
func get(ctx context.Context, src source, u string, max int64) ([]byte, error) {
	var data []byte
	err := src.fetch(ctx, u, max, func(r io.Reader) (err error) {
		data, err = io.ReadAll(io.LimitReader(r, max+1))
		if err == nil && int64(len(data)) > max {
			err = newError(src.name(u), 0, ErrLimit, "more than the %d bytes a document may have", max)
		}
		return err
	})
	return data, err
}

// readCopy reads the document at u into memory, or into a file in
// spillDir (removed when it is closed), so that a build that hashes
// between two entries holds no connection open.
func readCopy(ctx context.Context, src source, u string, max int64, spillDir string) (io.ReadCloser, error) {
	if spillDir == "" {
		data, err := get(ctx, src, u, max)
		if err != nil {
			return nil, err
		}
		return nopSeekCloser{bytes.NewReader(data)}, nil
	}
	f, err := confined.CreateTemp(spillDir, "previous-part-*.xml")
	if err != nil {
		return nil, &Error{Doc: u, Kind: ErrUnreachable, Err: err}
	}
	sf := &spillFile{f}
	err = src.fetch(ctx, u, max, func(r io.Reader) error {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return &Error{Doc: u, Kind: ErrUnreachable, Err: err}
		}
		if err := f.Truncate(0); err != nil {
			return &Error{Doc: u, Kind: ErrUnreachable, Err: err}
		}
		n, err := io.Copy(f, io.LimitReader(r, max+1))
		var pe *os.PathError
		switch {
		case errors.As(err, &pe): // writing the copy failed (a full disk): not the server
			return &Error{Doc: u, Kind: ErrUnreachable, Err: err}
		case err != nil:
			return err
		case n > max:
			return newError(src.name(u), 0, ErrLimit, "more than the %d bytes a document may have", max)
		}
		return nil
	})
	if err == nil {
		if _, err = f.Seek(0, io.SeekStart); err != nil {
			err = &Error{Doc: u, Kind: ErrUnreachable, Err: err}
		}
	}
	if err != nil {
		sf.Close()
		return nil, err
	}
	return sf, nil
}

type nopSeekCloser struct{ *bytes.Reader }

func (nopSeekCloser) Close() error { return nil }

type spillFile struct{ *os.File }

func (f *spillFile) Close() error {
	err := f.File.Close()
	if rerr := confined.Remove(f.Name()); err == nil {
		err = rerr
	}
	return err
}

// dirSource reads the output directory of a previous build. Document URLs
// map to files by their part after base, the URL where dir is served.
type dirSource struct {
	dir  string // absolute
	base string // ends in "/"
}

// file maps u to a file inside the directory.
func (s *dirSource) file(u string) (string, error) {
	rel, err := s.rel(u)
	if err != nil {
		return "", err
	}
	return filepath.Join(s.dir, filepath.FromSlash(rel)), nil
}

// rel maps u to its slash-separated path under base, which stays inside
// it: the path of a file in the directory, or of a key in a bucket.
func (s *dirSource) rel(u string) (string, error) {
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

// openFile opens the regular file at u, refusing one of more than max
// bytes. Names resolve inside the directory as os.Root resolves them: a
// symbolic link that leads outside it is refused, not followed. Not
// os.Open: a FIFO would block it until something writes to it.
func (s *dirSource) openFile(u string, max int64) (*os.File, error) {
	p, err := s.file(u)
	if err != nil {
		return nil, &Error{Doc: u, Kind: ErrUnreachable, Err: err}
	}
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		return nil, &Error{Doc: s.dir, Kind: ErrUnreachable, Err: unwrapPath(err), missing: errors.Is(err, fs.ErrNotExist)}
	}
	defer root.Close()
	rel, _ := filepath.Rel(s.dir, p)
	f, st, err := regfile.OpenIn(root, rel)
	if err != nil {
		return nil, &Error{Doc: p, Kind: ErrUnreachable, Err: unwrapPath(err), missing: errors.Is(err, fs.ErrNotExist)}
	}
	if st.Size() > max {
		f.Close()
		return nil, newError(p, 0, ErrLimit, "%d bytes, more than the %d allowed", st.Size(), max)
	}
	return f, nil
}

func (s *dirSource) fetch(_ context.Context, u string, max int64, fill func(io.Reader) error) error {
	f, err := s.openFile(u, max)
	if err != nil {
		return err
	}
	defer f.Close()
	return readError(s.name(u), fill(f))
}

func (s *dirSource) part(_ context.Context, u string, max int64, _ string) (io.ReadCloser, error) {
	f, err := s.openFile(u, max)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (s *dirSource) open(_ context.Context, u string, max int64) (io.ReadCloser, error) {
	f, err := s.openFile(u, max)
	if err != nil {
		return nil, err
	}
	return &cappedReader{r: f, c: f, left: max, doc: s.name(u)}, nil
}

// bucketSource reads the previous build from the bucket its output was
// deployed to (s3://BUCKET/PREFIX/, as the deploy script of --host s3
// uploads it) through the AWS SDK: a private bucket needs no public URL.
// URLs map to keys as a directory's map to files.
type bucketSource struct {
	b     *bucket.Bucket
	paths *dirSource // maps URLs to paths under the prefix; its dir is unused
}

// parseBucketURL checks an s3:// location.
func parseBucketURL(location string) error {
	if _, _, err := bucket.ParseURL(location); err != nil {
		shown := bucket.Redact(location) // credentials written into it are not repeated
		return newError(shown, 0, ErrInvalid, "%s", strings.TrimPrefix(err.Error(), shown+": "))
	}
	return nil
}

func (s *bucketSource) key(u string) (string, error) {
	rel, err := s.paths.rel(u)
	return s.b.Prefix + rel, err
}

func (s *bucketSource) name(u string) string {
	if k, err := s.key(u); err == nil {
		return bucket.Scheme + s.b.Name + "/" + k
	}
	return u
}

func (s *bucketSource) open(ctx context.Context, u string, max int64) (io.ReadCloser, error) {
	k, err := s.key(u)
	if err != nil {
		return nil, &Error{Doc: u, Kind: ErrUnreachable, Err: err}
	}
	name := s.name(u)
	body, size, err := s.b.Get(ctx, k)
	if err != nil {
		return nil, &Error{Doc: name, Kind: ErrUnreachable, Err: err, missing: errors.Is(err, bucket.ErrNoSuchKey)}
	}
	if size > max {
		body.Close()
		return nil, newError(name, 0, ErrLimit, "%d bytes, more than the %d allowed", size, max)
	}
	return &cappedReader{r: body, c: body, left: max, doc: name}, nil
}

func (s *bucketSource) part(ctx context.Context, u string, max int64, spillDir string) (io.ReadCloser, error) {
	return readCopy(ctx, s, u, max, spillDir)
}

func (s *bucketSource) fetch(ctx context.Context, u string, max int64, fill func(io.Reader) error) error {
	body, err := s.open(ctx, u, max)
	if err != nil {
		return err
	}
	defer body.Close()
	return readError(s.name(u), fill(body))
}

// readError is the Error of a read of a document that broke off: err
// itself if it is one (over the limit).
func readError(name string, err error) error {
	var pe *Error
	if err == nil || errors.As(err, &pe) {
		return err
	}
	return &Error{Doc: name, Kind: ErrUnreachable, Err: unwrapPath(err)}
}

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
