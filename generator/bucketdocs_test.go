package generator

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/rsgen/rsgen/generator/report"
	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/testenv"
)

// TestBucketOwnDocuments: objects with the URLs of rsgen's documents
// (PREFIX/resourcesync/…, PREFIX/.well-known/resourcesync) are left out
// and told, as a tree's files are (.well-known is a hidden folder).
func TestBucketOwnDocuments(t *testing.T) {
	s := testenv.StartS3(t, false)
	useS3(t, s)
	if _, err := client(s).CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("bkt")}); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"p/a.txt", "p/resourcesync/mine.xml", "p/.well-known/resourcesync"} {
		putObject(t, s, key, []byte("x\n"), "")
	}
	out := t.TempDir()
	cfg := testConfig(t, "s3://bkt/p/", out)
	var mu sync.Mutex
	var notices []string
	cfg.Notice = func(msg string) { mu.Lock(); notices = append(notices, msg); mu.Unlock() }
	if rep, err := Build(t.Context(), cfg); err != nil || len(rep.Problems) > 0 {
		t.Fatalf("Build: %v, %+v", err, rep)
	}
	_, entries := testenv.ReadList(t, filepath.Join(out, docsDir), "resourcelist.xml")
	if len(entries) != 1 || !strings.HasSuffix(entries[0].Loc, "/a.txt") {
		t.Errorf("entries %+v, want a.txt alone", entries)
	}
	// .well-known is a hidden folder, not published whatever it holds.
	if !slices.Contains(notices, "resourcesync: not published: its URL is that of rsgen's documents, which the output directory holds") {
		t.Errorf("no notice of resourcesync/ in %q", notices)
	}

	// Once a build is deployed there (a Capability List among them), they
	// are rsgen's own documents, found again by every build: left out
	// without a notice.
	putObject(t, s, "p/resourcesync/capabilitylist.xml", []byte("<urlset/>\n"), "")
	notices = nil
	if rep, err := Build(t.Context(), cfg); err != nil || len(rep.Problems) > 0 {
		t.Fatalf("Build: %v, %+v", err, rep)
	}
	_, entries = testenv.ReadList(t, filepath.Join(out, docsDir), "resourcelist.xml")
	if len(entries) != 1 || len(notices) > 0 {
		t.Errorf("entries %+v, notices %q; want a.txt alone and no notice", entries, notices)
	}
}

// TestBucketPrunes: a folder the filter excludes whole, or a hidden one,
// is not listed, as a walk of a tree does not enter it.
func TestBucketPrunes(t *testing.T) {
	s := testenv.StartS3(t, false)
	useS3(t, s)
	if _, err := client(s).CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("bkt")}); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"p/a.txt", "p/ex/b.txt", "p/.hidden/c.txt", "p/in/d.txt"} {
		putObject(t, s, key, []byte("x\n"), "")
	}
	out := t.TempDir()
	cfg := testConfig(t, "s3://bkt/p/", out)
	cfg.Filter.Exclude = []string{"ex/**"}
	if rep, err := Build(t.Context(), cfg); err != nil || len(rep.Problems) > 0 {
		t.Fatalf("Build: %v, %+v", err, rep)
	}
	_, entries := testenv.ReadList(t, filepath.Join(out, docsDir), "resourcelist.xml")
	if len(entries) != 2 {
		t.Errorf("%d entries, want a.txt and in/d.txt", len(entries))
	}
	reqs := s.Requests()
	for _, r := range reqs {
		if strings.Contains(r, "prefix=p%2Fex%2F") || strings.Contains(r, "prefix=p%2F.hidden%2F") {
			t.Errorf("an excluded folder listed: %s", r)
		}
	}
	if !slices.ContainsFunc(reqs, func(r string) bool { return strings.Contains(r, "prefix=p%2Fin%2F") }) {
		t.Errorf("in/ not listed: %q", reqs)
	}
}

// TestBucketReadCounted: the bytes of the objects read are counted as they
// come (Stats.Read), as a tree's: a stopped build's line told 0 B.
func TestBucketReadCounted(t *testing.T) {
	s := testenv.StartS3(t, false)
	useS3(t, s)
	if _, err := client(s).CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("bkt")}); err != nil {
		t.Fatal(err)
	}
	putObject(t, s, "p/big.bin", make([]byte, 300<<10), "")
	cfg := testConfig(t, "s3://bkt/p/", t.TempDir())
	cfg.Hashes = hashing.Set{hashing.SHA256}
	cfg.Stats = &report.Stats{}
	if rep, err := Build(t.Context(), cfg); err != nil || len(rep.Problems) > 0 {
		t.Fatalf("Build: %v, %+v", err, rep)
	}
	if n := cfg.Stats.Read.Load(); n != 300<<10 {
		t.Errorf("Stats.Read %d, want %d", n, 300<<10)
	}
}

// TestBucketDumpRace: an object whose bytes differ, when packaged, from
// those hashed is a problem that names the bucket, not a tree.
func TestBucketDumpRace(t *testing.T) {
	s := testenv.StartS3(t, false)
	useS3(t, s)
	if _, err := client(s).CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("bkt")}); err != nil {
		t.Fatal(err)
	}
	putObject(t, s, "p/a.txt", []byte("alpha\n"), "")
	sum := md5.Sum([]byte("alpha\n"))
	var gets atomic.Int32
	s.Fault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != "GET" || r.URL.Path != "/bkt/p/a.txt" || gets.Add(1) == 1 {
			return false
		}
		// The same ETag, other bytes: a store that serves what it stores.
		w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
		w.Header().Set("Content-Length", "6")
		fmt.Fprint(w, "ALPHA\n")
		return true
	})
	cfg := testConfig(t, "s3://bkt/p/", t.TempDir())
	cfg.Hashes = hashing.Set{hashing.SHA256}
	cfg.Dump.Enabled = true
	cfg.AllowEmpty = true
	rep, err := Build(t.Context(), cfg)
	if err != nil || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Error(), "publish again once the bucket is stable") {
		t.Fatalf("Build: %v, %+v; want a problem that names the bucket", err, rep)
	}
}
