package bucket

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"golang.org/x/sync/errgroup"
)

// An Object is what the listing says of one object.
type Object struct {
	Key      string // the whole key
	Rel      string // the key under the prefix
	Size     int64
	ETag     string // without its quotes; "W/…" if weak (etagOf)
	Modified time.Time
	// SHA256 and SHA1 report that the store keeps a checksum of that
	// algorithm (which may be a composite one: see Bucket.Stored).
	SHA256, SHA1 bool
}

// Version is what identifies the bytes of o beside its key, from one
// listing to the next: its ETag, size and time. An object written again
// has a new time, whatever its ETag (a multipart ETag is not a digest);
// ListObjectsV2 gives no version id.
func (o *Object) Version() string {
	return fmt.Sprintf("%s %d %d", o.ETag, o.Size, o.Modified.UnixNano())
}

// listers is the most folders listed at once: a page of a listing takes
// a round trip of tens of milliseconds, so that a bucket of many folders
// lists several times faster with eight in flight.
const listers = 8

// List calls fn with each object under the prefix, in the order of their
// keys (bytes of UTF-8, as S3 lists them), until fn returns an error.
// Folder markers (a key ending in "/" of no bytes, which consoles make)
// are skipped. A listing that fails, or that gives a key twice or out of
// order (a misbehaving store), is an error: a Resource List made of it
// would miss objects.
//
// The listing fans out over the folders under the prefix: the prefix is
// listed with the delimiter "/", and each folder it holds (a common
// prefix) is listed whole by one of the listers, ahead of the one fn is
// given, each a few pages ahead at most.
func (b *Bucket) List(ctx context.Context, fn func(*Object) error) error {
	g, ctx := errgroup.WithContext(ctx)
	runs := make(chan chan []Object, listers) // the runs of objects, in order, each a channel of pages
	slots := make(chan struct{}, listers)
	g.Go(func() error {
		defer close(runs)
		return b.pages(ctx, b.Prefix, "/", func(objs []Object, folder string) error {
			if folder != "" && b.Prune != nil && b.Prune(strings.TrimPrefix(folder, b.Prefix)) {
				return nil
			}
			run := make(chan []Object, 2)
			if folder == "" {
				run <- objs
				close(run)
			} else {
				select {
				case slots <- struct{}{}:
				case <-ctx.Done():
					return ctx.Err()
				}
				g.Go(func() error {
					defer func() { <-slots }()
					defer close(run)
					return b.pages(ctx, folder, "", func(objs []Object, _ string) error {
						select {
						case run <- objs:
							return nil
						case <-ctx.Done():
							return ctx.Err()
						}
					})
				})
			}
			select {
			case runs <- run:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	})
	g.Go(func() error {
		last := ""
		for run := range runs {
			for objs := range run {
				for i := range objs {
					if err := b.check(&objs[i], last); err != nil {
						return err
					}
					last = objs[i].Key
					if objs[i].Rel == "" || strings.HasSuffix(objs[i].Rel, "/") && objs[i].Size == 0 {
						continue // a folder marker
					}
					if err := fn(&objs[i]); err != nil {
						return err
					}
				}
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	return g.Wait()
}

// check sets the Rel of o, listed after the key last, and says what is
// wrong with the listing if it is not in order or not under the prefix.
func (b *Bucket) check(o *Object, last string) error {
	if last != "" && o.Key <= last {
		return fmt.Errorf("listing %s: the store listed %q after %q: it repeats or misorders keys; nothing is published", b.URL(), o.Key, last)
	}
	rel, ok := strings.CutPrefix(o.Key, b.Prefix)
	if !ok {
		return fmt.Errorf("listing %s: the store listed %q, which is not under the prefix", b.URL(), o.Key)
	}
	o.Rel = rel
	return nil
}

// pages lists the keys under prefix, with delimiter if it is not "", and
// calls fn in the order of the keys with each run of objects and each
// common prefix (folder) between them.
func (b *Bucket) pages(ctx context.Context, prefix, delimiter string, fn func(objs []Object, folder string) error) error {
	// Keys come URL-encoded: XML 1.0 cannot carry some characters a key
	// may have (U+0001, a lone byte that is not UTF-8), and a listing
	// with one would not parse.
	in := &s3.ListObjectsV2Input{Bucket: aws.String(b.Name), Prefix: aws.String(prefix), EncodingType: types.EncodingTypeUrl}
	if delimiter != "" {
		in.Delimiter = aws.String(delimiter)
	}
	p := s3.NewListObjectsV2Paginator(b.client, in)
	token, empty := "", 0
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("listing %s: %w", Scheme+b.Name+"/"+prefix, err)
		}
		if err := looping(page, &token, &empty); err != nil {
			return fmt.Errorf("listing %s: %w; nothing is published", Scheme+b.Name+"/"+prefix, err)
		}
		objs := make([]Object, 0, len(page.Contents))
		for i := range page.Contents {
			o, err := objectOf(&page.Contents[i], page.EncodingType)
			if err != nil {
				return fmt.Errorf("listing %s: %w", Scheme+b.Name+"/"+prefix, err)
			}
			objs = append(objs, o)
		}
		for _, cp := range page.CommonPrefixes {
			folder, err := decodeKey(aws.ToString(cp.Prefix), page.EncodingType)
			if err != nil {
				return fmt.Errorf("listing %s: %w", Scheme+b.Name+"/"+prefix, err)
			}
			n := 0
			for n < len(objs) && objs[n].Key < folder {
				n++
			}
			if n > 0 {
				if err := fn(objs[:n:n], ""); err != nil {
					return err
				}
				objs = objs[n:]
			}
			if err := fn(nil, folder); err != nil {
				return err
			}
		}
		if len(objs) > 0 {
			if err := fn(objs, ""); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxEmptyPages is the most pages in a row a listing may give without a
// key or folder before it is taken for a loop: S3 may give a few (keys
// deleted under the listing), never thousands.
const maxEmptyPages = 1000

// looping says what is wrong with page, the one after the continuation
// token *token and *empty pages in a row without a key, if it would make
// the listing stop early (a truncated page without a token: the SDK's
// paginator would end there, silently) or never end (the token it was
// given back, or empty pages without end).
func looping(page *s3.ListObjectsV2Output, token *string, empty *int) error {
	if !aws.ToBool(page.IsTruncated) {
		return nil
	}
	next := aws.ToString(page.NextContinuationToken)
	switch {
	case next == "":
		return errors.New("the store says the listing goes on, but gives no continuation token")
	case next == *token:
		return errors.New("the store gives back the continuation token it was given: the listing loops")
	}
	*token = next
	if len(page.Contents) > 0 || len(page.CommonPrefixes) > 0 {
		*empty = 0
	} else if *empty++; *empty > maxEmptyPages {
		return fmt.Errorf("the store gives page after page without a key (%d): the listing loops", *empty)
	}
	return nil
}

// decodeKey returns the key k of a listing made with encoding, which is
// "url" if the store encoded its keys (one that ignores the request for
// it lists them as they are).
func decodeKey(k string, encoding types.EncodingType) (string, error) {
	if encoding != types.EncodingTypeUrl {
		return k, nil
	}
	key, err := url.QueryUnescape(k)
	if err != nil {
		return "", fmt.Errorf("the store listed the key %q, which is not URL-encoded as asked", k)
	}
	return key, nil
}

// objectOf returns the Object of an entry of a listing made with
// encoding.
func objectOf(c *types.Object, encoding types.EncodingType) (Object, error) {
	key, err := decodeKey(aws.ToString(c.Key), encoding)
	o := Object{
		Key:      key,
		Size:     aws.ToInt64(c.Size),
		ETag:     etagOf(aws.ToString(c.ETag)),
		Modified: aws.ToTime(c.LastModified).UTC(),
	}
	for _, a := range c.ChecksumAlgorithm {
		switch a {
		case types.ChecksumAlgorithmSha256:
			o.SHA256 = true
		case types.ChecksumAlgorithmSha1:
			o.SHA1 = true
		}
	}
	return o, err
}
