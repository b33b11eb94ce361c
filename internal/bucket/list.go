package bucket

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// An Object is what the listing says of one object.
type Object struct {
	Key      string // the whole key
	Rel      string // the key under the prefix
	Size     int64
	ETag     string // without its quotes
	Modified time.Time
	// SHA256 and SHA1 report that the store keeps a checksum of that
	// algorithm (which may be a composite one: see Bucket.Stored).
	SHA256, SHA1 bool
}

// CacheKey is what identifies the bytes of o from one listing to the
// next: its key, ETag, size and time. An object written again has a new
// time, whatever its ETag (a multipart ETag is not a digest).
func (o *Object) CacheKey() string {
	return fmt.Sprintf("%s\x00%s\x00%d\x00%d", o.Key, o.ETag, o.Size, o.Modified.UnixNano())
}

// List calls fn with each object under the prefix, in the order of their
// keys (bytes of UTF-8, as S3 lists them), until fn returns an error.
// Folder markers (a key ending in "/" of no bytes, which consoles make)
// are skipped. A listing that fails, or that gives a key twice or out of
// order (a misbehaving store), is an error: a Resource List made of it
// would miss objects.
func (b *Bucket) List(ctx context.Context, fn func(*Object) error) error {
	p := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{
		Bucket: aws.String(b.Name),
		Prefix: aws.String(b.Prefix),
	})
	last := ""
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("listing %s: %w", b.URL(), err)
		}
		for i := range page.Contents {
			o := objectOf(&page.Contents[i])
			if last != "" && o.Key <= last {
				return fmt.Errorf("listing %s: the store listed %q after %q: it repeats or misorders keys; nothing is published", b.URL(), o.Key, last)
			}
			last = o.Key
			rel, ok := strings.CutPrefix(o.Key, b.Prefix)
			if !ok {
				return fmt.Errorf("listing %s: the store listed %q, which is not under the prefix", b.URL(), o.Key)
			}
			if rel == "" || strings.HasSuffix(rel, "/") && o.Size == 0 {
				continue // a folder marker
			}
			o.Rel = rel
			if err := fn(&o); err != nil {
				return err
			}
		}
	}
	return nil
}

// objectOf returns the Object of an entry of a listing.
func objectOf(c *types.Object) Object {
	o := Object{
		Key:      aws.ToString(c.Key),
		Size:     aws.ToInt64(c.Size),
		ETag:     strings.Trim(aws.ToString(c.ETag), `"`),
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
	return o
}
