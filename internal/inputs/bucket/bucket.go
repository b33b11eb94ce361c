package bucket

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"
)

// Scheme is the prefix of a source that is a bucket: s3://BUCKET/PREFIX/.
const Scheme = "s3://"

// IsURL reports whether source names a bucket.
func IsURL(source string) bool { return strings.HasPrefix(source, Scheme) }

// A Bucket is the objects of a bucket under a prefix.
type Bucket struct {
	Name   string // the bucket
	Prefix string // "" or ending in "/": the keys published are under it
	// Prune, if not nil, says which folders directly under the prefix
	// (given without the prefix, ending in "/") List leaves unlisted:
	// those a filter excludes whole, as a walk of a tree does not enter
	// an excluded directory.
	Prune  func(folder string) bool
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
	cfg, err := config.LoadDefaultConfig(ctx, append([]func(*config.LoadOptions) error{
		config.WithRetryMaxAttempts(maxAttempts),
		config.WithHTTPClient(httpClient(ioTimeout)),
		// The SDK's notices (a checksum it skipped, IMDSv1) are not the
		// user's concern: rsgen checks the lengths and digests it takes.
		config.WithLogger(logging.Nop{}),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
	}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if cfg.Region == "" {
		return nil, fmt.Errorf("%w: no region: set AWS_REGION, or region in the profile", ErrConfig)
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

// ioTimeout bounds the wait for a connection, for the headers of an
// answer and for each read of its body: a store that accepts connections
// but never answers fails the request, which the retryer tries again,
// instead of hanging the build.
const ioTimeout = 20 * time.Second

// httpClient is the SDK's HTTP client with every wait bounded by timeout.
func httpClient(timeout time.Duration) *awshttp.BuildableClient {
	return awshttp.NewBuildableClient().
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = timeout }).
		WithTransportOptions(func(tr *http.Transport) {
			tr.TLSHandshakeTimeout = timeout
			tr.ResponseHeaderTimeout = timeout
			tr.IdleConnTimeout = timeout / 2 // closed before an idle read times out
			dial := tr.DialContext
			tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := dial(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return &idleConn{Conn: c, timeout: timeout}, nil
			}
		})
}

// An idleConn fails a read that waits longer than timeout for a byte
// since the last byte read or written: a body that stops coming (the
// transport has no timeout for it). A write moves the deadline of the
// read the transport keeps waiting on an idle connection, so that a
// request sent on one has the whole timeout for its answer.
type idleConn struct {
	net.Conn
	timeout time.Duration
}

func (c *idleConn) Read(p []byte) (int, error) {
	c.Conn.SetReadDeadline(time.Now().Add(c.timeout))
	return c.Conn.Read(p)
}

func (c *idleConn) Write(p []byte) (int, error) {
	c.Conn.SetReadDeadline(time.Now().Add(c.timeout))
	return c.Conn.Write(p)
}

// ErrConfig reports an AWS configuration that gives no client: a profile
// that is not there, no region.
var ErrConfig = errors.New("the AWS configuration")

// ParseURL splits s3://BUCKET/PREFIX into the bucket and the prefix,
// which is empty or ends in "/". It sends no request: what is wrong with
// url is said before the store is asked, and credentials written into it
// (user:secret@) are refused without being repeated.
func ParseURL(url string) (name, prefix string, err error) {
	rest, ok := strings.CutPrefix(url, Scheme)
	if !ok {
		return "", "", fmt.Errorf("%s: not an s3:// URL", url)
	}
	name, prefix, _ = strings.Cut(rest, "/")
	switch {
	case strings.ContainsAny(name, "@:"):
		// A secret may hold "/": nothing of the URL is repeated.
		return "", "", errors.New(Redact(url) + ": credentials or a port in the URL; rsgen takes credentials from the AWS configuration only (AWS_PROFILE, AWS_ACCESS_KEY_ID…) and an endpoint from AWS_ENDPOINT_URL_S3")
	case name == "":
		return "", "", fmt.Errorf("%s: no bucket name", url)
	case !validName(name):
		return "", "", fmt.Errorf("%s: %q is not a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens, beginning and ending with a letter or digit", url, name)
	case prefix != "" && !strings.HasSuffix(prefix, "/"):
		return "", "", fmt.Errorf("%s: the prefix must end in \"/\": its objects are published, not those of every key that begins with it", url)
	}
	for _, seg := range strings.Split(strings.TrimSuffix(prefix, "/"), "/") {
		if prefix != "" && (seg == "" || seg == "." || seg == "..") {
			return "", "", fmt.Errorf("%s: the prefix has an empty, \".\" or \"..\" segment, which no published key can have", url)
		}
	}
	return name, prefix, nil
}

// validName reports whether name follows the rules of S3's bucket names.
func validName(name string) bool {
	if len(name) < 3 || len(name) > 63 || strings.Contains(name, "..") {
		return false
	}
	for i, c := range []byte(name) {
		alnum := 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || i == len(name)-1 || c != '.' && c != '-') {
			return false
		}
	}
	return true
}

// Redact returns url, or only its scheme if its bucket name holds an "@"
// or ":" (credentials written into it, whose secret may hold "/"): to
// repeat url in a message.
func Redact(url string) string {
	scheme, rest, ok := strings.Cut(url, "://")
	if name, _, _ := strings.Cut(rest, "/"); ok && strings.ContainsAny(name, "@:") {
		return scheme + "://…"
	}
	return url
}

// URL returns the bucket and prefix as s3://BUCKET/PREFIX.
func (b *Bucket) URL() string { return Scheme + b.Name + "/" + b.Prefix }

// ErrReplaced reports an object that changed between the listing and the
// read: its ETag or length is not the listing's.
var ErrReplaced = errors.New("the object was replaced while the build read the bucket; build again to publish it")

// ErrDeleted reports an object deleted between the listing and the read.
var ErrDeleted = errors.New("the object was deleted while the build read the bucket; build again to leave it out")

// replaced maps the answer to a conditional request on an object that
// is no longer the listed one (412) to ErrReplaced, and on one no longer
// there (404) to ErrDeleted.
func replaced(err error) error {
	var re *awshttp.ResponseError
	switch {
	case !errors.As(err, &re):
	case re.HTTPStatusCode() == 412:
		return ErrReplaced
	case re.HTTPStatusCode() == 404:
		return ErrDeleted
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
