package bucket

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// Stored is what the store keeps of an object's digests: each is nil
// where it has none that is usable.
type Stored struct {
	SHA256, SHA1, MD5 []byte
	Type              string // the object's Content-Type, "" if it is a generic one
}

// MayBeMD5 reports whether the ETag of o looks like an MD5; whether it is
// one depends on the encryption, which only Stored tells.
func (o *Object) MayBeMD5() bool { return etagMD5(o.ETag) != nil }

// Stored returns the digests the store keeps of o (one HeadObject with
// ChecksumMode ENABLED), or ErrReplaced if o is no longer the listed
// object.
func (b *Bucket) Stored(ctx context.Context, o *Object) (Stored, error) {
	h, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{
		Bucket:       aws.String(b.Name),
		Key:          aws.String(o.Key),
		IfMatch:      ifMatch(o.ETag),
		ChecksumMode: types.ChecksumModeEnabled,
	})
	if err != nil {
		return Stored{}, replaced(err)
	}
	if aws.ToInt64(h.ContentLength) != o.Size || !sameETag(h.ETag, o.ETag) {
		return Stored{}, ErrReplaced
	}
	var s Stored
	if h.ChecksumType != types.ChecksumTypeComposite {
		s.SHA256 = checksum(h.ChecksumSHA256, 32)
		s.SHA1 = checksum(h.ChecksumSHA1, 20)
	}
	encrypted := h.SSECustomerAlgorithm != nil || strings.HasPrefix(string(h.ServerSideEncryption), "aws:kms")
	if !encrypted {
		s.MD5 = etagMD5(o.ETag)
	}
	switch t := aws.ToString(h.ContentType); t {
	case "binary/octet-stream", "application/octet-stream":
	default:
		s.Type = t
	}
	return s, nil
}

// sameETag reports whether the ETag of an answer is the listed one (a
// store that ignores If-Match is caught here); an answer without one, or
// a read without a listed one (a dump's), passes.
func sameETag(got *string, listed string) bool {
	return got == nil || listed == "" || etagOf(*got) == listed
}

// checksum decodes a stored checksum of size bytes; a composite one
// ("base64-N", the checksum of the parts' checksums) is not the digest of
// the bytes, and gives nil.
func checksum(v *string, size int) []byte {
	sum, err := base64.StdEncoding.DecodeString(aws.ToString(v))
	if err != nil || len(sum) != size {
		return nil
	}
	return sum
}

// etagMD5 returns the MD5 an ETag may be: 32 hex digits. A multipart
// upload's ETag ("hex-N") is not one.
func etagMD5(etag string) []byte {
	sum, err := hex.DecodeString(etag)
	if err != nil || len(sum) != 16 {
		return nil
	}
	return sum
}

// maxResumes is how often a read of an object that breaks off (a reset
// connection) is taken up again where it stopped, beyond the retries of
// each request.
const maxResumes = 5

// Open returns the bytes of o, streamed: a GET conditional on the listed
// ETag, taken up again from where it stopped (a ranged GET) if the
// connection breaks. A read fails with ErrReplaced if o is no longer the
// listed object, or its length is not the listing's.
func (b *Bucket) Open(ctx context.Context, o *Object) (io.ReadCloser, error) {
	r := &reader{ctx: ctx, b: b, o: o}
	if err := r.get(); err != nil {
		return nil, err
	}
	return r, nil
}

// A reader reads an object, resuming a GET that breaks off.
type reader struct {
	ctx     context.Context
	b       *Bucket
	o       *Object
	body    io.ReadCloser
	off     int64
	resumes int
	err     error // sticky: a read that could not be taken up again
}

// get starts a GET of the object from r.off.
func (r *reader) get() error {
	in := &s3.GetObjectInput{Bucket: aws.String(r.b.Name), Key: aws.String(r.o.Key), IfMatch: ifMatch(r.o.ETag)}
	if r.off > 0 {
		in.Range = aws.String(fmt.Sprintf("bytes=%d-", r.off))
	}
	out, err := r.b.client.GetObject(r.ctx, in)
	if err != nil {
		return replaced(err)
	}
	if aws.ToInt64(out.ContentLength) != r.o.Size-r.off || !sameETag(out.ETag, r.o.ETag) {
		out.Body.Close()
		return ErrReplaced
	}
	r.body = out.Body
	return nil
}

func (r *reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.body.Read(p)
	r.off += int64(n)
	switch {
	case err == nil:
		if r.off > r.o.Size {
			return n, ErrReplaced
		}
		return n, nil
	case errors.Is(err, io.EOF):
		if r.off != r.o.Size {
			return n, ErrReplaced
		}
		return n, io.EOF
	case r.ctx.Err() != nil || r.resumes >= maxResumes || errors.Is(err, ErrReplaced):
		return n, err
	}
	r.resumes++
	r.body.Close()
	if gerr := r.get(); gerr != nil {
		r.body = io.NopCloser(strings.NewReader(""))
		r.err = fmt.Errorf("%w (reading again from byte %d: %w)", err, r.off, gerr)
		return n, r.err
	}
	return n, nil
}

func (r *reader) Close() error { return r.body.Close() }

// ErrNoSuchKey reports that Get found no object of the key (the bucket
// is there).
var ErrNoSuchKey = errors.New("no such object")

// Get streams the object of key, whatever it is (not a listed object:
// a document rsgen published into the bucket), with its length. It fails
// with ErrNoSuchKey if the bucket has no such object.
func (b *Bucket) Get(ctx context.Context, key string) (io.ReadCloser, int64, error) {
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(b.Name), Key: aws.String(key)})
	if err != nil {
		var nk *types.NoSuchKey
		if errors.As(err, &nk) {
			return nil, 0, ErrNoSuchKey
		}
		return nil, 0, err
	}
	return out.Body, aws.ToInt64(out.ContentLength), nil
}
