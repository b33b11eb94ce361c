package testenv

import (
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The credentials and region of the S3 servers the tests start.
const (
	S3Key, S3Secret, S3Region = "rsgen-test", "rsgen-test-secret", "us-east-1"
)

// An S3 is an S3 server (versitygw, posix backend) on the loopback
// interface, for one test, behind a proxy that counts the requests and
// may answer some itself (Fault).
type S3 struct {
	URL    string   // the proxy's URL: the endpoint for the code under test
	Direct string   // versitygw's URL, not through the proxy: for the AWS CLI and test setup
	Env    []string // the environment of the AWS CLI: the server's credentials, none of the user's
	aws    string

	mu       sync.Mutex
	requests []string // "METHOD path?query" of each request through the proxy
	fault    func(w http.ResponseWriter, r *http.Request) bool
}

// StartS3 starts versitygw for t (with versioning if versioned) and a
// proxy in front of it. It needs versitygw and the AWS CLI, whose absence
// skips t (fails it in CI).
func StartS3(t testing.TB, versioned bool) *S3 {
	t.Helper()
	// Debian's /usr/bin/aws first: a pyenv shim named aws may be on PATH.
	aws := Tool("RSGEN_AWS", "aws", "/usr/bin/aws")
	if aws == "" {
		Need(t, "the AWS CLI (aws)", "apt-get install awscli, or RSGEN_AWS=PATH")
	}
	gw := Tool("RSGEN_VERSITYGW", "versitygw")
	if gw == "" {
		Need(t, "versitygw", "go install github.com/versity/versitygw/cmd/versitygw@v1.8.0, or RSGEN_VERSITYGW=PATH")
	}
	s := &S3{aws: aws, Direct: StartVersityGW(t, gw, versioned)}
	target, _ := url.Parse(s.Direct)
	proxy := httputil.NewSingleHostReverseProxy(target) // keeps the Host header, which the signature covers
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Method+" "+r.URL.RequestURI())
		fault := s.fault
		s.mu.Unlock()
		if fault != nil && fault(w, r) {
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	cfg := t.TempDir()
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			s.Env = append(s.Env, kv)
		}
	}
	s.Env = append(s.Env, "AWS_ACCESS_KEY_ID="+S3Key, "AWS_SECRET_ACCESS_KEY="+S3Secret, "AWS_DEFAULT_REGION="+S3Region,
		"AWS_CONFIG_FILE="+filepath.Join(cfg, "config"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(cfg, "credentials"),
		"AWS_EC2_METADATA_DISABLED=true", "AWS_PAGER=")
	return s
}

// AWS runs the AWS CLI against the server (not through the proxy) and
// returns its output; a failure fails t.
func (s *S3) AWS(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command(s.aws, append([]string{"--endpoint-url", s.Direct}, args...)...)
	cmd.Env = s.Env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("aws %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Requests returns the requests made through the proxy since the last
// call, and forgets them.
func (s *S3) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.requests
	s.requests = nil
	return r
}

// Fault makes fn see each request first: if it returns true, it has
// answered the request itself. nil ends it.
func (s *S3) Fault(fn func(w http.ResponseWriter, r *http.Request) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault = fn
}

// StartVersityGW serves a fresh directory over S3 (versitygw, with the
// credentials S3Key and S3Secret) on a free loopback port until the test
// ends, and returns its URL.
func StartVersityGW(t testing.TB, gw string, versioned bool) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	args := []string{"--access", S3Key, "--secret", S3Secret, "--region", S3Region, "--port", addr, "--quiet", "posix"}
	if versioned {
		args = append(args, "--versioning-dir", t.TempDir())
	}
	cmd := exec.Command(gw, append(args, t.TempDir())...)
	log := filepath.Join(t.TempDir(), "versitygw.log")
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); f.Close(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	for deadline := time.Now().Add(30 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr
		}
		select {
		case <-exited:
			data, _ := os.ReadFile(log)
			t.Fatalf("versitygw exited:\n%s", data)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("versitygw does not accept connections")
		}
	}
}

// An InventoryRow is an object of an S3 Inventory: its key (not yet
// URL-encoded), size, ETag, whether it is the latest version and whether
// it is a delete marker.
type InventoryRow struct {
	Key, Size, ETag         string
	NotLatest, DeleteMarker bool
}

// S3Inventory returns the data file (gzip CSV: every field quoted, keys
// URL-encoded) and the manifest.json of an S3 Inventory of bucket src
// written into bucket dest at dataKey, in the format AWS documents; with
// corrupt, a byte is added to the data file after its MD5 is taken.
func S3Inventory(src, dest, dataKey string, rows []InventoryRow, corrupt bool) (data []byte, manifest string) {
	var text strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&text, "%q,%q,%q,\"2026-11-01T10:00:00.000Z\",%q,\"false\",\"%t\",\"%t\"\n",
			src, url.QueryEscape(r.Key), r.Size, r.ETag, !r.NotLatest, r.DeleteMarker)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text.String()))
	zw.Close()
	sum := md5.Sum(gz.Bytes())
	data = gz.Bytes()
	if corrupt {
		data = append(data, 0)
	}
	manifest = fmt.Sprintf(`{
  "sourceBucket": %q,
  "destinationBucket": "arn:aws:s3:::%s",
  "version": "2016-11-30",
  "creationTimestamp": "1761991200000",
  "fileFormat": "CSV",
  "fileSchema": "Bucket, Key, Size, LastModifiedDate, ETag, IsMultipartUploaded, IsLatest, IsDeleteMarker",
  "files": [{"key": %q, "size": %d, "MD5checksum": %q}]
}`, src, dest, dataKey, len(data), hex.EncodeToString(sum[:]))
	return data, manifest
}
