package bucket

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Scheme is the prefix of a source that is a bucket: s3://BUCKET/PREFIX/.
const Scheme = "s3://"

// IsURL reports whether source names a bucket.
func IsURL(source string) bool { return strings.HasPrefix(source, Scheme) }

// A Bucket is the objects of a bucket under a prefix.
type Bucket struct {
	Name   string // the bucket
	Prefix string // "" or ending in "/": the keys published are under it
	client *s3.Client
}

// maxAttempts is how often a request is tried before its error is
// returned: the SDK's standard retryer waits with a jittered exponential
// backoff of up to 20 s between attempts, so 10 ride out a minute of
// throttling (503 SlowDown) or a store restarting.
const maxAttempts = 10

// Open returns the bucket of url (s3://BUCKET/ or s3://BUCKET/PREFIX/),
// with a client configured by the SDK's standard chain; opts are added to
// it (a test's endpoint and credentials).
func Open(ctx context.Context, url string, opts ...func(*config.LoadOptions) error) (*Bucket, error) {
	name, prefix, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("the AWS configuration: %w", err)
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.RetryMaxAttempts = maxAttempts // whatever the retryer
		// The SDK would log a warning on stderr for each object of
		// several parts read, whose composite checksum it cannot check:
		// the build checks the bytes itself.
		o.DisableLogOutputChecksumValidationSkipped = true
		// Another store (AWS_ENDPOINT_URL_S3, endpoint_url) is addressed
		// as host/bucket/key: most have no DNS name per bucket.
		if o.BaseEndpoint != nil {
			o.UsePathStyle = true
		}
	})
	return &Bucket{Name: name, Prefix: prefix, client: client}, nil
}

// ParseURL splits s3://BUCKET/PREFIX into the bucket and the prefix,
// which is empty or ends in "/".
func ParseURL(url string) (name, prefix string, err error) {
	rest, ok := strings.CutPrefix(url, Scheme)
	if !ok {
		return "", "", fmt.Errorf("%s: not an s3:// URL", url)
	}
	name, prefix, _ = strings.Cut(rest, "/")
	if name == "" {
		return "", "", fmt.Errorf("%s: no bucket name", url)
	}
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		return "", "", fmt.Errorf("%s: the prefix must end in \"/\": its objects are published, not those of every key that begins with it", url)
	}
	return name, prefix, nil
}

// URL returns the bucket and prefix as s3://BUCKET/PREFIX.
func (b *Bucket) URL() string { return Scheme + b.Name + "/" + b.Prefix }

// ErrReplaced reports an object that changed between the listing and the
// read: its ETag or length is not the listing's.
var ErrReplaced = errors.New("the object was replaced while the build read the bucket; build again to publish it")

// replaced maps the answer to a conditional request on an object that
// is no longer the listed one (412) or no longer there (404) to
// ErrReplaced.
func replaced(err error) error {
	var re *awshttp.ResponseError
	if errors.As(err, &re) && (re.HTTPStatusCode() == 412 || re.HTTPStatusCode() == 404) {
		return ErrReplaced
	}
	return err
}

// etagOf returns an ETag as an Object keeps it: without its quotes (some
// stores send none), a weak one with its "W/" prefix, which keeps it
// from passing for an MD5.
func etagOf(v string) string {
	if w, ok := strings.CutPrefix(v, "W/"); ok {
		return "W/" + strings.Trim(w, `"`)
	}
	return strings.Trim(v, `"`)
}

// ifMatch is the If-Match header of the object with ETag etag; none if
// etag is "" or weak, which If-Match never matches (RFC 9110 13.1.1): the
// length and the ETag of the answer are checked still.
func ifMatch(etag string) *string {
	if etag == "" || strings.HasPrefix(etag, "W/") {
		return nil
	}
	return aws.String(`"` + etag + `"`)
}
