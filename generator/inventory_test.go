package generator

import (
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/testenv"
)

// writeInventory writes a CSV inventory of the objects of bkt, as S3
// delivers one (manifest.json, manifest.checksum, a gzip data file), and
// returns its manifest. Its rows are those of a listing, in reverse.
func writeInventory(t *testing.T, s *testenv.S3) string {
	t.Helper()
	out, err := client(s).ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: aws.String("bkt")})
	if err != nil {
		t.Fatal(err)
	}
	var raw bytes.Buffer
	w := csv.NewWriter(&raw)
	for i := len(out.Contents) - 1; i >= 0; i-- {
		o := out.Contents[i]
		key := strings.ReplaceAll(url.QueryEscape(aws.ToString(o.Key)), "+", "%20")
		w.Write([]string{"bkt", key, strconv.FormatInt(aws.ToInt64(o.Size), 10),
			aws.ToTime(o.LastModified).UTC().Format("2006-01-02T15:04:05.000Z"), strings.Trim(aws.ToString(o.ETag), `"`), "false", "NOT-SSE"})
	}
	w.Flush()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw.Bytes())
	zw.Close()
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "inv/bkt/cfg/data/0.csv.gz"), gz.Bytes())
	sum := md5.Sum(gz.Bytes())
	manifest, _ := json.Marshal(map[string]any{"sourceBucket": "bkt", "destinationBucket": "arn:aws:s3:::inv", "version": "2016-11-30",
		"creationTimestamp": strconv.FormatInt(time.Now().UnixMilli(), 10), "fileFormat": "CSV",
		"fileSchema": "Bucket, Key, Size, LastModifiedDate, ETag, IsMultipartUploaded, EncryptionStatus",
		"files":      []map[string]any{{"key": "inv/bkt/cfg/data/0.csv.gz", "size": gz.Len(), "MD5checksum": hex.EncodeToString(sum[:])}}})
	path := filepath.Join(dir, "inv/bkt/cfg/2026-11-27T00-00Z/manifest.json")
	writeTestFile(t, path, manifest)
	msum := md5.Sum(manifest)
	writeTestFile(t, filepath.Join(filepath.Dir(path), "manifest.checksum"), []byte(hex.EncodeToString(msum[:])))
	return path
}

// writeReport writes the completion report of a Compute checksum job
// (SHA-256, full object) of the objects of bkt under p/ named in sums,
// with the ETag each was computed for, and returns its manifest.
func writeReport(t *testing.T, sums map[string][]byte, etags map[string]string) string {
	t.Helper()
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	for key, content := range sums {
		d := sha256.Sum256(content)
		msg, _ := json.Marshal(map[string]string{"checksum_base64": base64.StdEncoding.EncodeToString(d[:]), "checksum_hex": hex.EncodeToString(d[:]),
			"checksumAlgorithm": "SHA256", "checksumType": "FULL_OBJECT", "etag": etags[key]})
		w.Write([]string{"bkt", url.QueryEscape(key), "", "succeeded", "", "200", string(msg)})
	}
	w.Flush()
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "job-1/results/r.csv"), b.Bytes())
	sum := md5.Sum(b.Bytes())
	manifest, _ := json.Marshal(map[string]any{"Format": "Report_CSV_20180820", "ReportCreationDate": time.Now().UTC().Add(time.Minute).Format(time.RFC3339Nano),
		"Results":      []map[string]string{{"TaskExecutionStatus": "succeeded", "Bucket": "reports", "MD5Checksum": hex.EncodeToString(sum[:]), "Key": "job-1/results/r.csv"}},
		"ReportSchema": "Bucket, Key, VersionId, TaskStatus, ErrorCode, HTTPStatusCode, ResultMessage"})
	path := filepath.Join(dir, "job-1/manifest.json")
	writeTestFile(t, path, manifest)
	return path
}

func writeTestFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestInventoryDigests publishes a bucket from its S3 Inventory (a local
// manifest.json): the bucket is not listed; the objects a Compute
// checksum report has the digest of are not read, the others are, and a
// report computed for another ETag is not used. With DigestsJob, the
// objects that lack a digest are written as the job's manifest instead of
// read, and nothing is published.
func TestInventoryDigests(t *testing.T) {
	s := testenv.StartS3(t, false)
	useS3(t, s)
	createBucket(t, s)
	files := map[string][]byte{
		"reported.txt": []byte("the report has it\n"),
		"stale.txt":    []byte("the report has an older one\n"),
		"a b/read.txt": []byte("read from its bytes\n"),
	}
	for rel, content := range files {
		putObject(t, s, rel, content, "")
	}
	manifest := writeInventory(t, s)
	etag := func(key string) string {
		h, err := client(s).HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String("bkt"), Key: aws.String(key)})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Trim(aws.ToString(h.ETag), `"`)
	}
	report := writeReport(t, map[string][]byte{"reported.txt": files["reported.txt"], "stale.txt": []byte("before\n")},
		map[string]string{"reported.txt": etag("reported.txt"), "stale.txt": "0123456789abcdef0123456789abcdef"})
	s.Requests()

	out := t.TempDir()
	cfg := testConfig(t, manifest, out)
	cfg.Hashes = hashing.Set{hashing.SHA256}
	cfg.Digests = report
	if _, err := Build(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	_, entries := testenv.ReadList(t, filepath.Join(out, docsDir), "resourcelist.xml")
	if len(entries) != len(files) {
		t.Fatalf("%d entries, want %d", len(entries), len(files))
	}
	for _, e := range entries {
		rel, _ := cfg.BaseURL.base.RelPath(e.Loc)
		checkEntry(t, e, files[rel], cfg.Hashes, time.Time{})
	}
	reqs := strings.Join(s.Requests(), "\n")
	if strings.Contains(reqs, "list-type=2") || strings.Contains(reqs, "reported.txt") ||
		!strings.Contains(reqs, "GET /bkt/stale.txt") || !strings.Contains(reqs, "GET /bkt/a%20b/read.txt") {
		t.Errorf("requests:\n%s\nwant no listing, a GET of stale.txt and of read.txt, none of reported.txt", reqs)
	}

	// The job's manifest: the two the report does not give.
	job := filepath.Join(t.TempDir(), "job.csv")
	cfg.Out, cfg.DigestsJob = filepath.Join(t.TempDir(), "never"), job
	_, err := Build(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), "2 objects have no digest") {
		t.Fatalf("Build with DigestsJob: %v", err)
	}
	if data, _ := os.ReadFile(job); string(data) != "bkt,a%20b%2Fread.txt\nbkt,stale.txt\n" {
		t.Errorf("the job's manifest is %q", data)
	}
	if reqs := s.Requests(); len(reqs) != 0 {
		t.Errorf("writing the job's manifest sent %q", reqs)
	}
	if _, err := os.Stat(cfg.Out); err == nil {
		t.Error("a build that wrote the job's manifest published")
	}
}
