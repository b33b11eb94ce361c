package bucket_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/rsgen/rsgen/internal/inputs/bucket"
	"github.com/rsgen/rsgen/internal/testenv"
)

// open opens s3://b/PREFIX on the test server s, through its proxy.
func open(t *testing.T, s *testenv.S3, url string) *bucket.Bucket {
	t.Helper()
	b, err := bucket.Open(context.Background(), url, Options(s)...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Options are the configuration of a client of the test server s, none
// of it from the user's.
func Options(s *testenv.S3) []func(*config.LoadOptions) error {
	return []func(*config.LoadOptions) error{
		config.WithBaseEndpoint(s.URL),
		config.WithRegion(testenv.S3Region),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(testenv.S3Key, testenv.S3Secret, "")),
		config.WithSharedConfigFiles([]string{}),
		config.WithSharedCredentialsFiles([]string{}),
	}
}

// client is a client of the server of s, not through its proxy, to set
// up the tests with.
func client(s *testenv.S3) *s3.Client {
	return s3.New(s3.Options{
		BaseEndpoint: aws.String(s.Direct),
		Region:       testenv.S3Region,
		Credentials:  credentials.NewStaticCredentialsProvider(testenv.S3Key, testenv.S3Secret, ""),
		UsePathStyle: true,
	})
}

// put uploads content as key of bkt with the SDK: the AWS CLI takes
// seconds of CPU to start, and is used for what it alone proves (putCLI).
func put(t *testing.T, s *testenv.S3, key, content string) {
	t.Helper()
	_, err := client(s).PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("bkt"), Key: aws.String(key), Body: strings.NewReader(content)})
	if err != nil {
		t.Fatal(err)
	}
}

// putCLI uploads content as key with the AWS CLI and a stored checksum
// of algorithm alg, as a user does.
func putCLI(t *testing.T, s *testenv.S3, key, content, alg string) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "body")
	if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	s.AWS(t, "s3api", "put-object", "--bucket", "bkt", "--key", key, "--body", f, "--checksum-algorithm", alg)
}

// putMultipart uploads content in parts of 5 MiB as key, with SHA-256
// checksums of the parts: the store keeps a composite checksum.
func putMultipart(t *testing.T, s *testenv.S3, key string, content []byte) {
	t.Helper()
	c, ctx := client(s), t.Context()
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("bkt"), Key: aws.String(key), ChecksumAlgorithm: types.ChecksumAlgorithmSha256})
	if err != nil {
		t.Fatal(err)
	}
	var parts []types.CompletedPart
	const size = 5 << 20
	for i, n := 0, int32(1); i < len(content); i, n = i+size, n+1 {
		p, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("bkt"), Key: aws.String(key), UploadId: up.UploadId,
			PartNumber: aws.Int32(n), Body: bytes.NewReader(content[i:min(i+size, len(content))]), ChecksumAlgorithm: types.ChecksumAlgorithmSha256})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, types.CompletedPart{ETag: p.ETag, ChecksumSHA256: p.ChecksumSHA256, PartNumber: aws.Int32(n)})
	}
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("bkt"), Key: aws.String(key), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
	if err != nil {
		t.Fatal(err)
	}
}

// list returns the objects of b.
func list(t *testing.T, b *bucket.Bucket) []bucket.Object {
	t.Helper()
	var got []bucket.Object
	err := b.List(context.Background(), func(o *bucket.Object) error { got = append(got, *o); return nil })
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestBucket: a listing in the order of the keys under the prefix, without
// folder markers; digests from the store where it keeps usable ones (a
// SHA-256 or SHA-1 checksum, a single part's ETag), none from a multipart
// upload's; every object read whole.
func TestBucket(t *testing.T) {
	t.Parallel()
	s := testenv.StartS3(t, false)
	if _, err := client(s).CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("bkt")}); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 7<<16) // 7 MiB: two parts
	putCLI(t, s, "p/sum.txt", "hello\n", "SHA256")
	putCLI(t, s, "p/sha1.txt", "hello\n", "SHA1")
	put(t, s, "p/plain.txt", "plain\n")
	put(t, s, "p/dir/", "")
	put(t, s, "p/a b+c%20&=?#ü.txt", "awkward\n")
	put(t, s, "outside.txt", "not under the prefix\n")
	putMultipart(t, s, "p/multi.bin", big)

	b := open(t, s, "s3://bkt/p/")
	var keys []string
	objs := map[string]bucket.Object{}
	for _, o := range list(t, b) {
		keys = append(keys, o.Rel)
		objs[o.Rel] = o
	}
	want := []string{"a b+c%20&=?#ü.txt", "multi.bin", "plain.txt", "sha1.txt", "sum.txt"}
	if fmt.Sprint(keys) != fmt.Sprint(want) {
		t.Fatalf("listed %q, want %q", keys, want)
	}
	if o := objs["sum.txt"]; !o.SHA256 || o.Size != 6 || o.Modified.IsZero() || o.Key != "p/sum.txt" {
		t.Errorf("sum.txt listed as %+v", o)
	}

	digests := func(rel string) bucket.Stored {
		t.Helper()
		o := objs[rel]
		st, err := b.Stored(context.Background(), &o)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		return st
	}
	hello := []byte("hello\n")
	s256, s1, m5 := sha256.Sum256(hello), sha1.Sum(hello), md5.Sum(hello)
	if st := digests("sum.txt"); !bytes.Equal(st.SHA256, s256[:]) || !bytes.Equal(st.MD5, m5[:]) {
		t.Errorf("sum.txt: stored %x", st)
	}
	if st := digests("sha1.txt"); !bytes.Equal(st.SHA1, s1[:]) || st.SHA256 != nil {
		t.Errorf("sha1.txt: stored %x", st)
	}
	if st := digests("multi.bin"); st.SHA256 != nil || st.MD5 != nil {
		t.Errorf("multi.bin: a multipart upload's checksum and ETag taken as digests: %x", st)
	}
	if o := objs["multi.bin"]; o.MayBeMD5() {
		t.Errorf("multi.bin: a multipart ETag taken for an MD5")
	}

	for rel, o := range objs {
		r, err := b.Open(context.Background(), &o)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil || int64(len(data)) != o.Size {
			t.Errorf("%s: read %d bytes, %v; want %d", rel, len(data), err, o.Size)
		}
		if rel == "multi.bin" && !bytes.Equal(data, big) {
			t.Errorf("multi.bin: wrong bytes")
		}
	}
}

// TestBucketHostile: a read that breaks off is taken up where it stopped;
// an object replaced after the listing is ErrReplaced; throttling is
// retried; a listing that fails, repeats keys or goes backwards is an
// error.
func TestBucketHostile(t *testing.T) {
	t.Parallel()
	s := testenv.StartS3(t, false)
	if _, err := client(s).CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("bkt")}); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 1<<20)
	put(t, s, "big", big)
	put(t, s, "replaced", "before\n")
	b := open(t, s, "s3://bkt/")
	objs := map[string]bucket.Object{}
	for _, o := range list(t, b) {
		objs[o.Key] = o
	}
	s.Requests()

	t.Run("reset", func(t *testing.T) {
		var cut atomic.Bool
		s.Fault(func(w http.ResponseWriter, r *http.Request) bool {
			if r.Method != http.MethodGet || r.URL.Path != "/bkt/big" || cut.Swap(true) {
				return false
			}
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return false
			}
			fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(big), big[:1000])
			buf.Flush()
			conn.Close()
			return true
		})
		defer s.Fault(nil)
		o := objs["big"]
		r, err := b.Open(context.Background(), &o)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		data, err := io.ReadAll(r)
		if err != nil || string(data) != big {
			t.Fatalf("read %d bytes, %v; want %d", len(data), err, len(big))
		}
		if reqs := s.Requests(); strings.Count(fmt.Sprint(reqs), "GET /bkt/big") != 2 {
			t.Fatalf("requests %q, want two GETs of big: the one cut off, and the rest", reqs)
		}
	})

	t.Run("replaced", func(t *testing.T) {
		put(t, s, "replaced", "after, longer\n")
		o := objs["replaced"]
		if _, err := b.Open(context.Background(), &o); !errors.Is(err, bucket.ErrReplaced) {
			t.Errorf("Open: %v, want ErrReplaced", err)
		}
		if _, err := b.Stored(context.Background(), &o); !errors.Is(err, bucket.ErrReplaced) {
			t.Errorf("Stored: %v, want ErrReplaced", err)
		}
	})

	t.Run("If-Match ignored", func(t *testing.T) {
		// A store that serves the new bytes whatever If-Match says:
		// the answer's ETag tells.
		s.Fault(func(w http.ResponseWriter, r *http.Request) bool {
			w.Header().Set("ETag", `"0123456789abcdef0123456789abcdef"`)
			w.Header().Set("Content-Length", "7")
			fmt.Fprint(w, "before\n")
			return true
		})
		defer s.Fault(nil)
		o := objs["replaced"]
		if _, err := b.Open(context.Background(), &o); !errors.Is(err, bucket.ErrReplaced) {
			t.Errorf("Open: %v, want ErrReplaced", err)
		}
	})

	t.Run("throttled", func(t *testing.T) {
		var n atomic.Int32
		s.Fault(func(w http.ResponseWriter, r *http.Request) bool {
			if n.Add(1) > 2 {
				return false
			}
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
			return true
		})
		defer s.Fault(nil)
		if got := list(t, b); len(got) != 2 {
			t.Errorf("listed %d objects after throttling, want 2", len(got))
		}
	})

	t.Run("failing", func(t *testing.T) {
		s.Fault(func(w http.ResponseWriter, r *http.Request) bool {
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
			return true
		})
		defer s.Fault(nil)
		err := b.List(context.Background(), func(*bucket.Object) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "AccessDenied") || strings.Contains(err.Error(), testenv.S3Secret) {
			t.Errorf("List: %v, want AccessDenied", err)
		}
	})

	t.Run("repeated", func(t *testing.T) {
		s.Fault(func(w http.ResponseWriter, r *http.Request) bool {
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>bkt</Name><KeyCount>2</KeyCount><IsTruncated>false</IsTruncated>`+
				`<Contents><Key>b</Key><Size>1</Size><ETag>"x"</ETag></Contents><Contents><Key>a</Key><Size>1</Size><ETag>"x"</ETag></Contents></ListBucketResult>`)
			return true
		})
		defer s.Fault(nil)
		err := b.List(context.Background(), func(*bucket.Object) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "misorders") {
			t.Errorf("List: %v, want an error", err)
		}
	})
}

// page is a page of a listing of bkt: keys (each with an ETag of 32 hex
// digits, quoted as q quotes it), truncated with the continuation token
// next if next is not "-".
func page(keys []string, next string, q func(string) string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>bkt</Name>`)
	if next != "-" {
		fmt.Fprintf(&b, `<IsTruncated>true</IsTruncated><NextContinuationToken>%s</NextContinuationToken>`, next)
	} else {
		b.WriteString(`<IsTruncated>false</IsTruncated>`)
	}
	for _, k := range keys {
		fmt.Fprintf(&b, `<Contents><Key>%s</Key><Size>7</Size><ETag>%s</ETag><LastModified>2026-11-01T10:00:00.000Z</LastModified></Contents>`, k, q(etagHex))
	}
	b.WriteString(`</ListBucketResult>`)
	return b.String()
}

const etagHex = "0123456789abcdef0123456789abcdef"

func quoted(e string) string { return `"` + e + `"` }

// TestBucketMisbehaving: a store whose listing loops (the token it was
// given back, pages without end) or stops short (truncated without a
// token), or that fails with 500 on every attempt, fails the listing with
// a clear error after a bounded number of requests, the credentials in
// no message; composite checksums and weak or unquoted ETags are never
// taken for digests, and a weak ETag is no If-Match.
func TestBucketMisbehaving(t *testing.T) {
	t.Parallel()
	s := testenv.StartS3(t, false)
	noWait := config.WithRetryer(func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		})
	})
	b, err := bucket.Open(context.Background(), "s3://bkt/", append(Options(s), noWait)...)
	if err != nil {
		t.Fatal(err)
	}
	listing := func(t *testing.T, pages func(token string, n int) string) error {
		t.Helper()
		var n atomic.Int32
		s.Fault(func(w http.ResponseWriter, r *http.Request) bool {
			fmt.Fprint(w, pages(r.URL.Query().Get("continuation-token"), int(n.Add(1))))
			return true
		})
		defer s.Fault(nil)
		s.Requests()
		return b.List(context.Background(), func(*bucket.Object) error { return nil })
	}
	for _, tc := range []struct {
		name, want string
		pages      func(token string, n int) string
	}{
		{"token given back", "gives back the continuation token it was given: the listing loops", func(token string, n int) string {
			return page([]string{fmt.Sprintf("k%03d", n)}, "T", quoted)
		}},
		{"truncated without a token", "gives no continuation token", func(token string, n int) string {
			return page([]string{"a"}, "", quoted)
		}},
		{"empty pages", "page after page without a key (1001): the listing loops", func(token string, n int) string {
			return page(nil, fmt.Sprint("T", n%2), quoted) // T1, T0, T1, …
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := listing(t, tc.pages)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "nothing is published") {
				t.Errorf("List: %v, want %q", err, tc.want)
			}
		})
	}

	t.Run("500 forever", func(t *testing.T) {
		s.Fault(func(w http.ResponseWriter, r *http.Request) bool {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `<Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>`)
			return true
		})
		defer s.Fault(nil)
		s.Requests()
		err := b.List(context.Background(), func(*bucket.Object) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "listing s3://bkt/") || !strings.Contains(err.Error(), "StatusCode: 500") ||
			!strings.Contains(err.Error(), "exceeded maximum number of attempts, 10") {
			t.Errorf("List: %v, want InternalError after 10 attempts", err)
		}
		if strings.Contains(err.Error(), testenv.S3Secret) {
			t.Errorf("List: %v names the secret", err)
		}
		if n := len(s.Requests()); n != 10 {
			t.Errorf("%d requests, want 10", n)
		}
	})

	t.Run("ETags and checksums", func(t *testing.T) {
		weak := func(e string) string { return `W/"` + e + `"` }
		var objs []bucket.Object
		for _, q := range []func(string) string{weak, func(e string) string { return e }} {
			s.Fault(func(w http.ResponseWriter, r *http.Request) bool {
				fmt.Fprint(w, page([]string{"x"}, "-", q))
				return true
			})
			if err := b.List(context.Background(), func(o *bucket.Object) error { objs = append(objs, *o); return nil }); err != nil {
				t.Fatal(err)
			}
		}
		if objs[0].ETag != "W/"+etagHex || objs[0].MayBeMD5() || objs[1].ETag != etagHex || !objs[1].MayBeMD5() {
			t.Fatalf("listed %+v; want the weak ETag kept weak, no MD5, and the unquoted one an MD5", objs)
		}
		sum := sha256.Sum256([]byte("content"))
		b64 := base64.StdEncoding.EncodeToString(sum[:])
		for _, tc := range []struct {
			name     string
			o        bucket.Object
			checksum string
			typ      string
		}{
			{"weak ETag", objs[0], b64, "FULL_OBJECT"},
			{"composite, by its -N", objs[1], b64 + "-2", ""},
			{"composite, by its type", objs[1], b64, "COMPOSITE"},
		} {
			s.Fault(func(w http.ResponseWriter, r *http.Request) bool {
				if r.Header.Get("If-Match") != "" && strings.HasPrefix(tc.o.ETag, "W/") {
					w.WriteHeader(http.StatusPreconditionFailed)
					return true
				}
				w.Header().Set("ETag", quoted(tc.o.ETag))
				if strings.HasPrefix(tc.o.ETag, "W/") {
					w.Header().Set("ETag", weak(etagHex))
				}
				w.Header().Set("Content-Length", "7")
				w.Header().Set("x-amz-checksum-sha256", tc.checksum)
				if tc.typ != "" {
					w.Header().Set("x-amz-checksum-type", tc.typ)
				}
				return true
			})
			st, err := b.Stored(context.Background(), &tc.o)
			switch {
			case err != nil:
				t.Errorf("%s: Stored: %v", tc.name, err)
			case tc.typ == "FULL_OBJECT" && (!bytes.Equal(st.SHA256, sum[:]) || st.MD5 != nil):
				t.Errorf("%s: %+v, want the full-object SHA-256 and no MD5", tc.name, st)
			case tc.typ != "FULL_OBJECT" && (st.SHA256 != nil || st.MD5 == nil):
				t.Errorf("%s: %+v, want no SHA-256 and the ETag's MD5", tc.name, st)
			}
		}
		s.Fault(nil)
	})
}

func TestParseURL(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"s3://", "s3:///p/", "s3://bkt/p", "s3://ab/", "s3://Bucket_Invalid/", "s3://-bkt/", "s3://bkt-/",
		"s3://bkt//", "s3://bkt/./", "s3://bkt/a/../", "s3://bkt/a//b/", "s3://AKIA:secret@bkt/", "s3://AKIA:se/cret@bkt/", "s3://bkt:9000/"} {
		_, err := bucket.Open(context.Background(), url)
		if err == nil {
			t.Errorf("Open(%q): no error", url)
		} else if strings.Contains(err.Error(), "AKIA") || strings.Contains(err.Error(), "se") && strings.Contains(url, "secret") {
			t.Errorf("Open(%q): %v: the credentials repeated", url, err)
		}
	}
	for _, url := range []string{"s3://bkt/", "s3://my.bkt-1/a/b c/", "s3://" + strings.Repeat("b", 63) + "/"} {
		if _, err := bucket.Open(context.Background(), url, config.WithRegion(testenv.S3Region)); err != nil {
			t.Errorf("Open(%q): %v", url, err)
		}
	}
}

// TestBucketVersioned: in a versioned bucket the current version of each
// key is listed and read; a key whose current version is a delete marker
// is not listed.
func TestBucketVersioned(t *testing.T) {
	t.Parallel()
	s := testenv.StartS3(t, true)
	c, ctx := client(s), t.Context()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("bkt")}); err != nil {
		t.Fatal(err)
	}
	_, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String("bkt"),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}})
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, "kept", "first version\n")
	put(t, s, "kept", "second version, current\n")
	put(t, s, "deleted", "gone\n")
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("bkt"), Key: aws.String("deleted")}); err != nil {
		t.Fatal(err)
	}
	b := open(t, s, "s3://bkt/")
	objs := list(t, b)
	if len(objs) != 1 || objs[0].Key != "kept" {
		t.Fatalf("listed %+v, want the current version of kept only", objs)
	}
	r, err := b.Open(ctx, &objs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if data, err := io.ReadAll(r); err != nil || string(data) != "second version, current\n" {
		t.Errorf("read %q, %v", data, err)
	}
}

// TestListFansOut: the objects of many folders, listed at once, come in
// the order of their keys, interleaved with the objects beside the
// folders ("f0.txt" < "f0/x" < "f0~").
func TestListFansOut(t *testing.T) {
	t.Parallel()
	s := testenv.StartS3(t, false)
	if _, err := client(s).CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("bkt")}); err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 12 {
		for _, k := range []string{"f%d-a", "f%d.txt", "f%d/x", "f%d/y/z", "f%d~"} {
			want = append(want, fmt.Sprintf(k, i))
		}
	}
	want = append(want, "top")
	for _, k := range want {
		put(t, s, "p/"+k, k)
	}
	slices.Sort(want)
	var got []string
	for _, o := range list(t, open(t, s, "s3://bkt/p/")) {
		got = append(got, o.Rel)
	}
	if !slices.Equal(got, want) {
		t.Errorf("listed\n%q\nwant\n%q", got, want)
	}
}
