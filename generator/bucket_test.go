package generator

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/internal/testenv"
)

// useS3 points the AWS SDK of the build at s, through the environment as
// a user would (AWS_ENDPOINT_URL_S3): the test cannot run in parallel.
func useS3(t *testing.T, s *testenv.S3) {
	for _, kv := range s.Env {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "AWS_") {
			t.Setenv(k, v)
		}
	}
	t.Setenv("AWS_ENDPOINT_URL_S3", s.URL)
}

// putObject uploads content as key of bkt with the AWS CLI, with a stored
// checksum of alg ("" for none).
func putObject(t *testing.T, s *testenv.S3, key string, content []byte, alg string) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "body")
	if err := os.WriteFile(f, content, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"s3api", "put-object", "--bucket", "bkt", "--key", key, "--body", f}
	if alg != "" {
		args = append(args, "--checksum-algorithm", alg)
	}
	s.AWS(t, args...)
}

// perObject returns the requests of reqs that are about one object (not
// a listing of the bucket).
func perObject(reqs []string) []string {
	var out []string
	for _, r := range reqs {
		if !strings.Contains(r, "list-type=2") {
			out = append(out, r)
		}
	}
	return out
}

// TestBucketSource publishes a bucket's objects under a prefix: digests
// from stored checksums, from single-part ETags and from the bytes, every
// one right; a key that cannot be a resource is a problem (more in bucketscan's tests: a posix store cannot keep them). An unchanged
// rebuild with a hash cache sends no request per object; a rebuild after
// one change sends one.
func TestBucketSource(t *testing.T) {
	s := testenv.StartS3(t, false)
	useS3(t, s)
	s.AWS(t, "s3api", "create-bucket", "--bucket", "bkt")
	files := map[string][]byte{
		"sum.txt":             []byte("stored sha-256\n"),
		"plain.txt":           []byte("no stored checksum\n"),
		"dir/a b+c%&=?#ü.txt": []byte("awkward key\n"),
		"data/big.bin":        bytes.Repeat([]byte("0123456789"), 100_000),
		"sha1.txt":            []byte("stored sha-1\n"),
	}
	for rel, content := range files {
		alg := ""
		switch rel {
		case "sum.txt", "data/big.bin":
			alg = "SHA256"
		case "sha1.txt":
			alg = "SHA1"
		}
		putObject(t, s, "p/"+rel, content, alg)
	}
	putObject(t, s, "p/dir/", nil, "")                      // a folder marker: skipped silently
	putObject(t, s, "p/ctl\tkey.txt", []byte("x\n"), "")    // a control character: a problem
	putObject(t, s, "other/x.txt", []byte("outside\n"), "") // not under the prefix

	out := t.TempDir()
	cache := filepath.Join(t.TempDir(), "cache")
	cfg := testConfig(t, "s3://bkt/p/", out)
	cfg.Cache = cache
	cfg.Hashes = hashing.Set{hashing.SHA256, hashing.MD5}
	rep, err := Build(t.Context(), cfg)
	if err != nil || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Error(), "control character") {
		t.Fatalf("Build: %v, report %+v; want the bad key as a problem", err, rep)
	}
	_, entries := testenv.ReadList(t, filepath.Join(out, docsDir), "resourcelist.xml")
	if len(entries) != len(files) {
		t.Fatalf("%d entries, want %d", len(entries), len(files))
	}
	base := mustBaseURL(t, "https://example.org/")
	for _, e := range entries {
		rel, ok := base.RelPath(e.Loc)
		if !ok || files[rel] == nil {
			t.Fatalf("entry %s is no object's", e.Loc)
		}
		checkEntry(t, e, files[rel], cfg.Hashes, time.Time{})
	}
	first := perObject(s.Requests())
	if len(first) == 0 {
		t.Fatal("the first build sent no request per object")
	}

	// Unchanged: a listing, nothing more.
	cfg.Out = t.TempDir()
	if _, err := Build(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if reqs := perObject(s.Requests()); len(reqs) != 0 {
		t.Errorf("an unchanged rebuild sent %d requests per object: %q", len(reqs), reqs)
	}
	// One object changed: one request for it.
	files["plain.txt"] = []byte("changed\n")
	putObject(t, s, "p/plain.txt", files["plain.txt"], "")
	s.Requests()
	cfg.Out = t.TempDir()
	if _, err := Build(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if reqs := perObject(s.Requests()); len(reqs) != 1 || !strings.Contains(reqs[0], "/bkt/p/plain.txt") {
		t.Errorf("a rebuild after one change sent %q, want one request for it", reqs)
	}
	_, entries = testenv.ReadList(t, filepath.Join(cfg.Out, docsDir), "resourcelist.xml")
	for _, e := range entries {
		rel, _ := base.RelPath(e.Loc)
		checkEntry(t, e, files[rel], cfg.Hashes, time.Time{})
	}
}
