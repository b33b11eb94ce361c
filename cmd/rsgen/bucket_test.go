package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/rsgen/rsgen/internal/testenv"
)

// useS3 points the AWS SDK of rsgen at s through the environment, as a
// user would (AWS_ENDPOINT_URL_S3), and returns a client of s (not
// through its counting proxy) with the bucket bkt created.
func useS3(t *testing.T, s *testenv.S3) *s3.Client {
	t.Helper()
	clearEnv(t)
	for _, kv := range s.Env {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "AWS_") {
			t.Setenv(k, v)
		}
	}
	t.Setenv("AWS_ENDPOINT_URL_S3", s.URL)
	c := s3.New(s3.Options{
		BaseEndpoint: aws.String(s.Direct),
		Region:       testenv.S3Region,
		Credentials:  credentials.NewStaticCredentialsProvider(testenv.S3Key, testenv.S3Secret, ""),
		UsePathStyle: true,
	})
	if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("bkt")}); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestResyncBucket: the reference client syncs a site whose source is a
// bucket (objects with a stored SHA-256 checksum and without, one
// uploaded in parts, awkward keys), served over HTTP as rsgen serve
// serves it, baseline then incrementally after objects are changed,
// added and deleted; after each sync the Destination holds exactly the
// bucket's objects, byte for byte.
func TestResyncBucket(t *testing.T) {
	testenv.LongTest(t, "an object of 6 MiB uploaded in parts, and resync run twice")
	s := testenv.StartS3(t, false)
	c := useS3(t, s)
	resync := resyncClient(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String() + "/"
	// content holds a copy of the bucket's objects, for the server to
	// serve the resources from.
	content, out, dst, state := t.TempDir(), filepath.Join(t.TempDir(), "public"), t.TempDir(), t.TempDir()
	files := map[string]string{}
	put := func(rel, body string, alg types.ChecksumAlgorithm) {
		t.Helper()
		_, err := c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("bkt"), Key: aws.String("data/" + rel), Body: strings.NewReader(body), ChecksumAlgorithm: alg})
		if err != nil {
			t.Fatal(err)
		}
		testenv.WriteFile(t, content, rel, body)
		files[rel] = body
	}
	remove := func(rel string) {
		t.Helper()
		if _, err := c.DeleteObject(t.Context(), &s3.DeleteObjectInput{Bucket: aws.String("bkt"), Key: aws.String("data/" + rel)}); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(content, filepath.FromSlash(rel)))
		delete(files, rel)
	}
	put("sum.txt", "a stored sha-256\n", types.ChecksumAlgorithmSha256)
	put("plain.txt", "no stored checksum\n", "")
	put("dir/a b+c&ü (1).txt", "an awkward key\n", types.ChecksumAlgorithmSha256)
	put("deep/er/x.csv", "x,y\n1,2\n", "")
	putParts(t, c, content, "multi.bin", 6<<20)
	files["multi.bin"] = string(multiPart(6 << 20))

	build := func(args ...string) {
		t.Helper()
		args = append([]string{"build", "s3://bkt/data/", "-q", "--base-url", base, "--out", out, "--hash", "sha-256,md5"}, args...)
		if code, _, stderr := runCLI(t, context.Background(), args...); code != exitOK {
			t.Fatalf("build: exit %d\n%s", code, stderr)
		}
	}
	build()
	serveOn(t, ln, out, content)
	sync := func(args ...string) {
		t.Helper()
		resyncSync(t, resync, state, base+"="+dst, args...)
		checkMirror(t, dst, files)
	}
	sync("--baseline", "--delete", "--capabilitylist", base+"resourcesync/capabilitylist.xml")

	time.Sleep(1100 * time.Millisecond) // LastModified has seconds: the changes come after the baseline
	put("sum.txt", "a stored sha-256, changed\n", types.ChecksumAlgorithmSha256)
	put("new one.txt", "new\n", "")
	remove("plain.txt")
	build("--previous", out)
	sync("--incremental", "--delete", "--changelist-uri", base+"resourcesync/changelist.xml")
}

// multiPart is the content of an object of size bytes uploaded in parts.
func multiPart(size int) []byte {
	return bytes.Repeat([]byte("0123456789abcdef"), size/16)
}

// putParts uploads multiPart(size) as data/rel in parts of 5 MiB with
// SHA-256 checksums (the store keeps a composite checksum and a
// multipart ETag: the digests come from the bytes), and writes it under
// content.
func putParts(t *testing.T, c *s3.Client, content, rel string, size int) {
	t.Helper()
	data := multiPart(size)
	key := aws.String("data/" + rel)
	up, err := c.CreateMultipartUpload(t.Context(), &s3.CreateMultipartUploadInput{Bucket: aws.String("bkt"), Key: key, ChecksumAlgorithm: types.ChecksumAlgorithmSha256})
	if err != nil {
		t.Fatal(err)
	}
	var parts []types.CompletedPart
	for i, off := int32(1), 0; off < len(data); i, off = i+1, off+5<<20 {
		end := min(off+5<<20, len(data))
		p, err := c.UploadPart(t.Context(), &s3.UploadPartInput{Bucket: aws.String("bkt"), Key: key, UploadId: up.UploadId, PartNumber: aws.Int32(i),
			Body: bytes.NewReader(data[off:end]), ChecksumAlgorithm: types.ChecksumAlgorithmSha256})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, types.CompletedPart{ETag: p.ETag, PartNumber: aws.Int32(i), ChecksumSHA256: p.ChecksumSHA256})
	}
	if _, err := c.CompleteMultipartUpload(t.Context(), &s3.CompleteMultipartUploadInput{Bucket: aws.String("bkt"), Key: key, UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}}); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, content, rel, string(data))
}

// TestBucketSecret: a build that the store refuses (a wrong secret, or
// access denied) fails with exit code 1, nothing published, and the
// secret of the environment in none of its output, verbose or not.
func TestBucketSecret(t *testing.T) {
	s := testenv.StartS3(t, false)
	c := useS3(t, s)
	if _, err := c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("bkt"), Key: aws.String("data/a.txt"), Body: strings.NewReader("a\n")}); err != nil {
		t.Fatal(err)
	}
	const wrong = "wrong-secret-5f3a9c"
	for _, tc := range []struct {
		name, secret string
		deny         bool
	}{
		{"wrong secret", wrong, false},
		{"access denied", testenv.S3Secret, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("AWS_SECRET_ACCESS_KEY", tc.secret)
			s.Fault(func(w http.ResponseWriter, r *http.Request) bool {
				if !tc.deny {
					return false
				}
				w.WriteHeader(http.StatusForbidden)
				fmt.Fprint(w, `<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
				return true
			})
			defer s.Fault(nil)
			// The listing fails, or the previous build's first document.
			for _, more := range [][]string{nil, {"--previous", "s3://bkt/site/", "--first-build-ok"}} {
				out := filepath.Join(t.TempDir(), "public")
				code, stdout, stderr := runCLI(t, context.Background(), append([]string{"build", "s3://bkt/data/", "-v", "--base-url", "https://example.org/", "--out", out}, more...)...)
				if code != exitFailure || !strings.Contains(stderr, "rsgen: error: ") || !strings.Contains(stderr, "StatusCode: 403") {
					t.Errorf("%q: exit %d, want %d and the 403\n%s", more, code, exitFailure, stderr)
				}
				for _, secret := range []string{tc.secret, testenv.S3Secret} {
					if strings.Contains(stdout+stderr, secret) {
						t.Errorf("the output names the secret:\n%s%s", stdout, stderr)
					}
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("a failed build wrote %s", out)
				}
			}
		})
	}
}

// TestBucket500: a store that answers 500 to every request is tried a
// bounded number of times, with backoff (10 s here, up to a minute), and the build
// fails with its error, nothing published.
func TestBucket500(t *testing.T) {
	testenv.LongTest(t, "the SDK's backoff between 10 attempts takes 10 s to a minute")
	s := testenv.StartS3(t, false)
	useS3(t, s)
	s.Fault(func(w http.ResponseWriter, r *http.Request) bool {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `<Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>`)
		return true
	})
	s.Requests()
	out := filepath.Join(t.TempDir(), "public")
	code, _, stderr := runCLI(t, context.Background(), "build", "s3://bkt/data/", "-q", "--base-url", "https://example.org/", "--out", out)
	if code != exitFailure || !strings.Contains(stderr, "rsgen: error: listing s3://bkt/data/: ") ||
		!strings.Contains(stderr, "exceeded maximum number of attempts, 10") || !strings.Contains(stderr, "InternalError") {
		t.Errorf("exit %d, want %d and the store's error after 10 attempts\n%s", code, exitFailure, stderr)
	}
	if n := len(s.Requests()); n != 10 {
		t.Errorf("%d requests, want 10", n)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a failed build wrote %s", out)
	}
}
