package generator

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/rsgen/rsgen/hashing"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/published/previous"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/internal/text/units"
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

// putObject uploads content as key of bkt, straight to the server (not
// through the counting proxy), with a stored checksum of alg ("" for
// none). The SDK, not the AWS CLI, which takes seconds to start; the
// tests of internal/inputs/bucket upload with the AWS CLI.
func putObject(t *testing.T, s *testenv.S3, key string, content []byte, alg types.ChecksumAlgorithm) {
	t.Helper()
	_, err := client(s).PutObject(t.Context(), &s3.PutObjectInput{
		Bucket: aws.String("bkt"), Key: aws.String(key), Body: bytes.NewReader(content), ChecksumAlgorithm: alg,
	})
	if err != nil {
		t.Fatal(err)
	}
}

// client is a client of the server of s, not through its proxy.
func client(s *testenv.S3) *s3.Client {
	return s3.New(s3.Options{
		BaseEndpoint: aws.String(s.Direct),
		Region:       testenv.S3Region,
		Credentials:  credentials.NewStaticCredentialsProvider(testenv.S3Key, testenv.S3Secret, ""),
		UsePathStyle: true,
	})
}

// createBucket creates the bucket bkt.
func createBucket(t *testing.T, s *testenv.S3) {
	t.Helper()
	if _, err := client(s).CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("bkt")}); err != nil {
		t.Fatal(err)
	}
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
// one change sends one; a listing that fails publishes nothing.
func TestBucketSource(t *testing.T) {
	s := testenv.StartS3(t, false)
	useS3(t, s)
	createBucket(t, s)
	files := map[string][]byte{
		"sum.txt":             []byte("stored sha-256\n"),
		"plain.txt":           []byte("no stored checksum\n"),
		"dir/a b+c%&=?#ü.txt": []byte("awkward key\n"),
		"data/big.bin":        bytes.Repeat([]byte("0123456789"), 100_000),
		"sha1.txt":            []byte("stored sha-1\n"),
		// The longest key S3 takes, 1,024 bytes: "p/" and 1,022 more.
		strings.Repeat("k", 200) + "/" + strings.Repeat("ü", 100) + "/" + strings.Repeat("l", 200) + "/" + strings.Repeat("m", 200) + "/" + strings.Repeat("n", 214) + ".txt": []byte("a long key\n"),
	}
	for rel, content := range files {
		var alg types.ChecksumAlgorithm
		switch rel {
		case "sum.txt", "data/big.bin":
			alg = types.ChecksumAlgorithmSha256
		case "sha1.txt":
			alg = types.ChecksumAlgorithmSha1
		}
		putObject(t, s, "p/"+rel, content, alg)
	}
	putObject(t, s, "p/dir/", nil, "")                   // a folder marker: skipped silently
	putObject(t, s, "p/ctl\tkey.txt", []byte("x\n"), "") // a control character: a problem
	// As long, of characters that escaping lengthens (a posix store keeps
	// a segment in a file name: at most 255 bytes): its URL is longer
	// than a <loc> may be, a problem.
	putObject(t, s, "p/"+strings.Repeat(strings.Repeat("%+ ü", 50)+"/", 4)+"%+ ü%+ ü%+ü.txt", []byte("a long awkward key\n"), "")
	putObject(t, s, "other/x.txt", []byte("outside\n"), "") // not under the prefix

	out := t.TempDir()
	cache := filepath.Join(t.TempDir(), "cache")
	cfg := testConfig(t, "s3://bkt/p/", out)
	cfg.Cache = cache
	cfg.Hashes = hashing.Set{hashing.SHA256, hashing.MD5}
	rep, err := Build(t.Context(), cfg)
	if err != nil || len(rep.Problems) != 2 || !strings.Contains(rep.Problems[0].Error(), "%+ ü%+ü.txt: URL longer than the 2,048 characters") ||
		!strings.Contains(rep.Problems[1].Error(), "control character") {
		t.Fatalf("Build: %v, report %+v; want the bad keys as problems", err, rep)
	}
	_, entries := testenv.ReadList(t, filepath.Join(out, docsDir), "resourcelist.xml")
	if len(entries) != len(files) {
		t.Fatalf("%d entries, want %d", len(entries), len(files))
	}
	base := mustBaseURL(t, "https://example.org/")
	for _, e := range entries {
		rel, ok := base.base.RelPath(e.Loc)
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
		rel, _ := base.base.RelPath(e.Loc)
		checkEntry(t, e, files[rel], cfg.Hashes, time.Time{})
	}
	// A listing that fails publishes nothing.
	s.Fault(func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.Contains(r.URL.RawQuery, "list-type=2") {
			return false
		}
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
		return true
	})
	cfg.Out = filepath.Join(t.TempDir(), "never")
	if _, err := Build(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "AccessDenied") {
		t.Errorf("Build after a failed listing: %v", err)
	}
	if _, err := os.Stat(cfg.Out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a build whose listing failed wrote %s", cfg.Out)
	}
}

// TestBucketRecipe is docs/BUCKETS.md's recipe: a bucket as the source,
// its documents (with a Resource Dump and Change Lists) uploaded into the
// same bucket beside the data by the S3 deploy script, and each rebuild
// reading the previous build from that bucket (--previous s3://…, in a
// fresh output directory: the bucket is the only state), publishing the
// same objects and none of rsgen's own; after one object changes, the
// Change List has that change, and the dumps package its new bytes.
func TestBucketRecipe(t *testing.T) {
	testenv.LongTest(t, "the deploy script runs the AWS CLI a dozen times")
	s := testenv.StartS3(t, false)
	useS3(t, s)
	createBucket(t, s)
	files := map[string][]byte{
		"a.txt":        []byte("alpha\n"),
		"b/c.txt":      []byte("charlie\n"),
		"b/d data.csv": []byte("x,y\n1,2\n"),
	}
	for rel, content := range files {
		putObject(t, s, "data/"+rel, content, types.ChecksumAlgorithmSha256)
	}
	cfg := testConfig(t, "s3://bkt/data/", "")
	cfg.BaseURL = mustBaseURL(t, "https://example.org/data/")
	cfg.Hosts = []string{hosting.S3}
	cfg.Dump.Enabled = true
	cfg.Changes.Previous = "s3://bkt/data/"
	cfg.Changes.FirstBuildOK = true // the first time, nothing is in the bucket
	cfg.Changes.Dump = true
	cfg.Changes.Keep = units.Duration(30 * 24 * time.Hour) // the CLI's default: the Change Lists are carried forward
	// The clock, as in CI: the objects' LastModified are the clock's too.
	cfg.At, cfg.FixedTime = time.Time{}, false
	build := func() {
		t.Helper()
		cfg.Out = filepath.Join(t.TempDir(), "public")
		rep, err := Build(t.Context(), cfg)
		if err != nil || len(rep.Problems) > 0 {
			t.Fatalf("Build: %v, %v", err, rep)
		}
		_, entries := testenv.ReadList(t, filepath.Join(cfg.Out, docsDir), "resourcelist.xml")
		if len(entries) != len(files) {
			t.Fatalf("%d entries, want %d: %v", len(entries), len(files), entries)
		}
		for _, e := range entries {
			rel, _ := cfg.BaseURL.base.RelPath(e.Loc)
			checkEntry(t, e, files[rel], hashing.DefaultSet, time.Time{})
		}
		_, pkgs := testenv.ReadList(t, filepath.Join(cfg.Out, docsDir), "resourcedump.xml")
		if len(pkgs) == 0 {
			t.Fatal("no package in the Resource Dump")
		}
		deploy := exec.Command("sh", filepath.Join(cfg.Out, hosting.S3Script), "s3://bkt/data/", "--endpoint-url", s.URL, "--only-show-errors")
		deploy.Env = s.Env
		if msg, err := deploy.CombinedOutput(); err != nil {
			t.Fatalf("deploy: %v\n%s", err, msg)
		}
	}
	build()
	if listing := s.AWS(t, "s3api", "list-objects-v2", "--bucket", "bkt", "--prefix", "data/resourcesync/"); !strings.Contains(listing, "resourcelist.xml") {
		t.Fatalf("the documents were not uploaded: %s", listing)
	}

	build() // the same objects, none of the documents beside them
	files["a.txt"] = []byte("alpha, changed\n")
	putObject(t, s, "data/a.txt", files["a.txt"], "")
	build()
	_, changes := testenv.ReadList(t, filepath.Join(cfg.Out, docsDir), "changelist.xml")
	if len(changes) != 1 || !strings.HasSuffix(changes[0].Loc, "/data/a.txt") || changes[0].MD.Change != "updated" {
		t.Errorf("changes %+v, want a.txt updated", changes)
	}
	if _, pkgs := testenv.ReadList(t, filepath.Join(cfg.Out, docsDir), "changedump.xml"); len(pkgs) == 0 {
		t.Error("no package in the Change Dump")
	}
	// Another change: the Change Dump's package of the build before is
	// published again, read from the bucket.
	files["b/c.txt"] = []byte("charlie, changed\n")
	putObject(t, s, "data/b/c.txt", files["b/c.txt"], "")
	build()
	if _, changes := testenv.ReadList(t, filepath.Join(cfg.Out, docsDir), "changelist.xml"); len(changes) != 2 {
		t.Errorf("changes %+v, want a.txt and b/c.txt updated", changes)
	}
	if _, pkgs := testenv.ReadList(t, filepath.Join(cfg.Out, docsDir), "changedump.xml"); len(pkgs) != 2 {
		t.Errorf("the Change Dump has %d packages, want the one of the build before and this build's", len(pkgs))
	}
}

// TestBucketPreviousFails: a previous build that is not in the bucket,
// or that the store refuses to give, fails the build as an unreachable
// previous build over HTTP does (KindPrevious), naming the object, with
// nothing published.
func TestBucketPreviousFails(t *testing.T) {
	s := testenv.StartS3(t, false)
	useS3(t, s)
	createBucket(t, s)
	putObject(t, s, "data/a.txt", []byte("alpha\n"), "")
	cfg := testConfig(t, "s3://bkt/data/", "")
	cfg.Changes.Previous = "s3://bkt/site"
	if _, err := Build(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), `the prefix must end in "/"`) {
		t.Errorf("Build with --previous s3://bkt/site: %v", err)
	}
	cfg.Changes.Previous = "s3://bkt/site/"
	for _, tc := range []struct {
		name, want string
		forbid     bool
	}{
		{"missing", "s3://bkt/site/.well-known/resourcesync: no such object", false},
		{"forbidden", "s3://bkt/site/.well-known/resourcesync: operation error S3: GetObject", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.Fault(func(w http.ResponseWriter, r *http.Request) bool {
				if !tc.forbid || r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, "/bkt/site/") {
					return false
				}
				w.WriteHeader(http.StatusForbidden)
				fmt.Fprint(w, `<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
				return true
			})
			cfg.Out = filepath.Join(t.TempDir(), "never")
			_, err := Build(t.Context(), cfg)
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindPrevious || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Build: %v; want a KindPrevious error with %q", err, tc.want)
			}
			if got := errors.Is(err, previous.ErrNothingPublished); got == tc.forbid {
				t.Errorf("errors.Is(ErrNothingPublished) = %t", got)
			}
			if tc.forbid && !strings.Contains(err.Error(), "AccessDenied") {
				t.Errorf("Build: %v; want the store's AccessDenied", err)
			}
			if _, err := os.Stat(cfg.Out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a build whose previous build cannot be read wrote %s", cfg.Out)
			}
		})
	}
}

// TestBucketDump: a Resource Dump of a bucket packages the objects,
// streamed from the store and checked against the listing's digests; an
// object replaced between the listing and its read is a problem, not a
// wrong digest.
func TestBucketDump(t *testing.T) {
	s := testenv.StartS3(t, false)
	useS3(t, s)
	createBucket(t, s)
	files := map[string][]byte{
		"a.txt":     []byte("alpha\n"),
		"b/c.bin":   bytes.Repeat([]byte{0, 1, 2, 3}, 50_000),
		"b/d e.csv": []byte("x,y\n"),
	}
	for rel, content := range files {
		putObject(t, s, "p/"+rel, content, types.ChecksumAlgorithmSha256)
	}
	putObject(t, s, "p/replaced.txt", []byte("listed, then replaced\n"), "")
	s.Fault(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/bkt/p/replaced.txt" {
			return false
		}
		w.WriteHeader(http.StatusPreconditionFailed) // its ETag is no longer the listed one
		fmt.Fprint(w, `<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message></Error>`)
		return true
	})
	out := t.TempDir()
	cfg := testConfig(t, "s3://bkt/p/", out)
	cfg.Dump.Enabled = true
	rep, err := Build(t.Context(), cfg)
	if err != nil || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Error(), "replaced.txt: the object was replaced") {
		t.Fatalf("Build: %v, report %+v; want replaced.txt a problem", err, rep)
	}
	manifest := checkDump(t, out, hashing.DefaultSet)
	if len(manifest) != len(files) {
		t.Errorf("the dump packages %d objects, want %d", len(manifest), len(files))
	}
	for _, e := range manifest {
		rel, _ := cfg.BaseURL.base.RelPath(e.Loc)
		checkEntry(t, e, files[rel], hashing.DefaultSet, time.Time{})
	}
}

// TestInventorySource publishes a bucket from an S3 Inventory of it,
// without listing it: the objects the inventory names, current versions
// only, their digests from the store or their bytes.
func TestInventorySource(t *testing.T) {
	s := testenv.StartS3(t, false)
	useS3(t, s)
	c := client(s)
	for _, name := range []string{"src", "inv"} {
		if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string][]byte{"a.txt": []byte("alpha\n"), "dir/b c.txt": []byte("bravo charlie\n")}
	var rows []testenv.InventoryRow
	for key, content := range files {
		if _, err := c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("src"), Key: aws.String(key), Body: bytes.NewReader(content)}); err != nil {
			t.Fatal(err)
		}
		sum := md5.Sum(content)
		rows = append(rows, testenv.InventoryRow{Key: key, Size: fmt.Sprint(len(content)), ETag: hex.EncodeToString(sum[:])})
	}
	rows = append(rows, testenv.InventoryRow{Key: "deleted.txt", Size: "0", DeleteMarker: true})
	const dataKey, manifestKey = "src/inv/data/1.csv.gz", "src/inv/2026-11-01T00-00Z/manifest.json"
	data, manifest := testenv.S3Inventory("src", "inv", dataKey, rows, false)
	for key, body := range map[string][]byte{dataKey: data, manifestKey: []byte(manifest)} {
		if _, err := c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("inv"), Key: aws.String(key), Body: bytes.NewReader(body)}); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	cfg := testConfig(t, "s3-inventory://inv/"+manifestKey, out)
	cfg.Hashes = hashing.Set{hashing.SHA256, hashing.MD5}
	if rep, err := Build(t.Context(), cfg); err != nil || len(rep.Problems) > 0 {
		t.Fatalf("Build: %v, %+v", err, rep)
	}
	_, entries := testenv.ReadList(t, filepath.Join(out, docsDir), "resourcelist.xml")
	if len(entries) != len(files) {
		t.Fatalf("%d entries, want %d", len(entries), len(files))
	}
	for _, e := range entries {
		rel, _ := cfg.BaseURL.base.RelPath(e.Loc)
		checkEntry(t, e, files[rel], cfg.Hashes, time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC))
	}
}
