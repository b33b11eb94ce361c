package previous

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/rsgen/rsgen/internal/inputs/bucket"
)

// bucketSource reads the previous build from the bucket its output was
// deployed to (s3://BUCKET/PREFIX/, as the S3 deploy script of --host s3
// uploads it), through the AWS SDK: a private bucket needs no public URL.
// Document URLs map to keys as a directory's map to files (paths), by
// their part after the URL the output is served at, learnt from the
// Source Description.
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

// startBucket opens the bucket at location (s3://BUCKET/PREFIX/, checked
// by ParseLocation) and returns the stand-in URL of its Source
// Description, as startDir does for a directory.
func (r *reader) startBucket(location string) (string, error) {
	// Loading the AWS configuration reads the environment and files only;
	// every request is made with the context of the read.
	b, err := bucket.Open(context.Background(), location)
	if err != nil {
		return "", &Error{Doc: location, Kind: ErrUnreachable, Err: err}
	}
	r.dir = &dirSource{base: "file:///previous/"}
	r.src = &bucketSource{b: b, paths: r.dir}
	return r.dir.base + WellKnown, nil
}

// key returns the key of the object at u.
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

func (s *bucketSource) local(string) (string, bool) { return "", false }

// body starts the GET of the object at u, of at most max bytes.
func (s *bucketSource) body(ctx context.Context, u string, max int64) (io.ReadCloser, error) {
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

func (s *bucketSource) get(ctx context.Context, u string, max int64) ([]byte, error) {
	body, err := s.body(ctx, u, max)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	return readDoc(s.name(u), body, max)
}

func (s *bucketSource) open(ctx context.Context, u string, max int64) (io.ReadCloser, error) {
	return s.body(ctx, u, max)
}

// part reads the document whole, into memory or into a file in spillDir,
// as over HTTP: the caller reads it at its pace, which a store may not
// wait for.
func (s *bucketSource) part(ctx context.Context, u string, max int64, spillDir string) (io.ReadCloser, error) {
	if spillDir == "" {
		return inMemory(s.get(ctx, u, max))
	}
	body, err := s.body(ctx, u, max)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	return spill(spillDir, u, func(f *os.File) error {
		if _, err := io.Copy(f, body); err != nil {
			return readError(s.name(u), err)
		}
		return nil
	})
}
