package hosting_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/generator"
	"github.com/rsgen/rsgen/hosting"
	"github.com/rsgen/rsgen/internal/documents/rsxml"
	"github.com/rsgen/rsgen/internal/testenv"
	"github.com/rsgen/rsgen/internal/text/units"
)

const (
	s3Key, s3Secret, s3Region = testenv.S3Key, testenv.S3Secret, testenv.S3Region
	s3Bucket, s3Prefix        = "rsgen-site", "mirror"
)

// TestS3ScriptMirrors deploys two builds with resourcesync-s3.sh and the
// real AWS CLI to an S3 server (versitygw) on the loopback interface, and
// checks after each that the bucket holds exactly the output directory:
// every object, its bytes and Content-Type, and nothing more (removed
// content and a dropped dump package are gone).
func TestS3ScriptMirrors(t *testing.T) {
	t.Parallel()
	env, endpoint, s3 := startS3(t)

	site := t.TempDir()
	files := map[string]string{
		"index.html":                "<!doctype html><title>home</title>",
		"notes.txt":                 "kept as it is\n",
		"old.txt":                   "deleted by the second build\n",
		"data/records.jsonl":        "{\"id\":1}\n",
		"docs/annual report/README": "no extension: typed explicitly\n",
		"odd [1]*?.txt":             "a name that is a glob\n",
		"-rf":                       "a name that is an option\n",
		".hidden":                   "never uploaded\n",
		"images/logo.png":           "\x89PNG\r\n\x1a\n",
	}
	for name, content := range files {
		write(t, site, name, content)
	}
	// A symbolic link, which anyone who commits to the site may add, to a
	// file outside it: not published, never uploaded.
	outside := t.TempDir()
	write(t, outside, "credentials", "SECRET\n")
	if err := os.Symlink(filepath.Join(outside, "credentials"), filepath.Join(site, "leak.txt")); err != nil {
		t.Fatal(err)
	}
	t1 := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	cfg := generator.Config{Source: site, Hosts: []string{hosting.S3}, At: t1, FixedTime: true}
	cfg.BaseURL, _ = generator.ParseBaseURL("https://example.org/")
	cfg.Dump.Enabled = true
	if _, err := generator.Build(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	deploy(t, env, site, endpoint)
	s3.checkMirror(t, site)
	if _, ok := s3.objects(t)["resourcesync/resourcedump-00001.zip"]; !ok {
		t.Fatal("the first build's dump package was not uploaded")
	}

	// Add, update, delete; drop the Resource Dump, publish a Change Dump,
	// and the archives of the Change Lists and of the Change Dump, whose
	// documents are in a folder of their own (resourcesync/archive/).
	prev := t.TempDir()
	copyDir(t, site, prev)
	write(t, site, "new/page.html", "<!doctype html><title>new</title>")
	write(t, site, "notes.txt", "updated, and longer than before\n")
	if err := os.Remove(filepath.Join(site, "old.txt")); err != nil {
		t.Fatal(err)
	}
	cfg.At = t1.Add(24 * time.Hour)
	cfg.Dump.Enabled = false
	cfg.Changes = generator.Changes{Previous: prev, Dump: true, Drop: []string{"resourcedump"}, Archive: generator.Archive{Keep: units.Duration(365 * 24 * time.Hour)}}
	if _, err := generator.Build(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	deploy(t, env, site, endpoint)
	s3.checkMirror(t, site)
	got := s3.objects(t)
	for _, gone := range []string{"old.txt", "resourcesync/resourcedump.xml", "resourcesync/resourcedump-00001.zip", "resourcesync/resourcedump-00001.manifest.xml"} {
		if _, ok := got[gone]; ok {
			t.Errorf("%s is still in the bucket after the build that removed it was deployed", gone)
		}
	}
	for _, there := range []string{"resourcesync/changelist-archive.xml", "resourcesync/archive/changelist-20240602T000000Z.xml",
		"resourcesync/changedump-archive.xml", "resourcesync/archive/changedump-20240602T000000Z.xml"} {
		if _, ok := got[there]; !ok {
			t.Errorf("%s was not uploaded", there)
		}
	}
}

// The upload script of several resource sets mirrors the output into a
// bucket as that of one set does: every set's documents, its pages and
// packages, and the content of every set, each with its type.
func TestS3ScriptMirrorsSets(t *testing.T) {
	t.Parallel()
	env, endpoint, s3 := startS3(t)

	site := t.TempDir()
	for name, content := range map[string]string{
		"articles/one.html":     "<!doctype html><title>one</title>",
		"articles/notes/README": "no extension: typed explicitly\n",
		"data/records.jsonl":    "{\"id\":1}\n",
		"data/index.html":       "a set's page name, as content",
		"about.txt":             "in no set, still the site's\n",
	} {
		write(t, site, name, content)
	}
	docs, _ := generator.ParseBaseURL("https://example.org/")
	set := func(name, dir string, dump bool) generator.Config {
		c := generator.Config{Set: name, Source: filepath.Join(site, dir), At: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), FixedTime: true}
		c.BaseURL, _ = generator.ParseBaseURL("https://example.org/" + dir + "/")
		c.Dump.Enabled = dump
		return c
	}
	s := generator.Site{Out: site, DocsURL: docs, Hosts: []string{hosting.S3},
		Sets: []generator.Config{set("articles", "articles", true), set("data", "data", false)}}
	if _, err := generator.BuildSite(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	types := resourceTypes(t, site)
	types["about.txt"] = "text/plain" // in no Resource List: the AWS CLI's guess
	deploy(t, env, site, endpoint)
	got := s3.objects(t)
	for _, key := range []string{".well-known/resourcesync", "resourcesync/articles/capabilitylist.xml", "resourcesync/articles/resourcedump-00001.zip",
		"resourcesync/articles/index.html", "resourcesync/data/resourcelist.xml", "articles/notes/README", "data/index.html", "about.txt"} {
		if _, ok := got[key]; !ok {
			t.Errorf("%s was not uploaded", key)
		}
	}
	if o := got["articles/notes/README"]; o.contentType != types["articles/notes/README"] {
		t.Errorf("articles/notes/README: Content-Type %q, want %q", o.contentType, types["articles/notes/README"])
	}
	for _, key := range []string{".well-known/resourcesync", "resourcesync/data/capabilitylist.xml"} {
		if o := got[key]; o.contentType != "application/xml" {
			t.Errorf("%s: Content-Type %q", key, o.contentType)
		}
	}
}

// startS3 starts an S3 server with a bucket for the upload scripts, and
// returns the environment of the AWS CLI, the server's URL and a client;
// the test is a long one, and needs the AWS CLI and versitygw.
func startS3(t *testing.T) ([]string, string, *s3Client) {
	t.Helper()
	if !(testenv.Long() || testenv.CI()) {
		t.Skip("a long test: RSGEN_LONG_TESTS=1 runs it")
	}
	// Debian's /usr/bin/aws first: a pyenv shim named aws may be on PATH.
	aws := testenv.Tool("RSGEN_AWS", "aws", "/usr/bin/aws")
	if aws == "" {
		testenv.Need(t, "the AWS CLI (aws)", "apt-get install awscli, or RSGEN_AWS=PATH")
	}
	gw := testenv.Tool("RSGEN_VERSITYGW", "versitygw")
	if gw == "" {
		testenv.Need(t, "versitygw", "go install github.com/versity/versitygw/cmd/versitygw@v1.8.0, or RSGEN_VERSITYGW=PATH")
	}
	endpoint := testenv.StartVersityGW(t, gw, false)
	env := awsEnv(t, aws)
	runAWS(t, env, "s3api", "create-bucket", "--bucket", s3Bucket, "--endpoint-url", endpoint)
	return env, endpoint, &s3Client{endpoint: endpoint}
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		write(t, dst, filepath.ToSlash(rel), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// awsEnv is the environment of the AWS CLI: aws first on PATH, the test
// server's credentials, and nothing of the user's configuration.
func awsEnv(t *testing.T, aws string) []string {
	bin := t.TempDir()
	if err := os.Symlink(aws, filepath.Join(bin, "aws")); err != nil {
		t.Fatal(err)
	}
	cfg := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") && !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"AWS_ACCESS_KEY_ID="+s3Key, "AWS_SECRET_ACCESS_KEY="+s3Secret, "AWS_DEFAULT_REGION="+s3Region,
		"AWS_CONFIG_FILE="+filepath.Join(cfg, "config"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(cfg, "credentials"),
		"AWS_EC2_METADATA_DISABLED=true", "AWS_PAGER=")
}

func runAWS(t *testing.T, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("aws", args...)
	cmd.Env = env
	cmd.Path = lookPathIn(t, env)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("aws %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func lookPathIn(t *testing.T, env []string) string {
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			return filepath.Join(filepath.SplitList(p)[0], "aws")
		}
	}
	t.Fatal("no PATH")
	return ""
}

// deploy runs the upload script of the build in site.
func deploy(t *testing.T, env []string, site, endpoint string) {
	t.Helper()
	cmd := exec.Command("sh", filepath.Join(site, hosting.S3Script), "s3://"+s3Bucket+"/"+s3Prefix+"/", "--endpoint-url", endpoint, "--only-show-errors")
	cmd.Env = env
	cmd.Dir = t.TempDir() // the script finds its directory itself
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sh %s: %v\n%s", hosting.S3Script, err, out)
	}
}

// object is what the bucket holds under a key.
type object struct {
	data        []byte
	contentType string
}

// checkMirror checks that the bucket's prefix holds exactly the files of
// site that are published (all but hidden files and rsgen's configuration
// for hosts, and .well-known/resourcesync), with their bytes and types.
func (c *s3Client) checkMirror(t *testing.T, site string) {
	t.Helper()
	want := map[string]string{} // key → Content-Type
	types := resourceTypes(t, site)
	err := filepath.WalkDir(site, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(site, p)
		rel = filepath.ToSlash(rel)
		if d.Type()&fs.ModeSymlink != 0 {
			return nil // not published (no --follow-symlinks): not uploaded
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != ".well-known" && p != site {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case rel == ".well-known/resourcesync":
			want[rel] = "application/xml"
		case strings.HasPrefix(d.Name(), ".") || hosting.IsRootFile(rel):
		case strings.HasPrefix(rel, "resourcesync/") && strings.HasSuffix(rel, ".xml"):
			want[rel] = "application/xml"
		case strings.HasPrefix(rel, "resourcesync/"):
			want[rel] = map[string]string{".zip": "application/zip", ".html": "text/html", ".txt": "text/plain"}[path.Ext(rel)]
		default:
			typ, ok := types[rel]
			if !ok {
				t.Errorf("%s is not in the Resource List", rel)
			}
			want[rel] = typ
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := c.objects(t)
	for key, typ := range want {
		o, ok := got[key]
		if !ok {
			t.Errorf("%s is not in the bucket", key)
			continue
		}
		data, err := os.ReadFile(filepath.Join(site, filepath.FromSlash(key)))
		if err != nil {
			t.Fatal(err)
		}
		if string(o.data) != string(data) {
			t.Errorf("%s: the bucket holds other bytes than the output directory", key)
		}
		if o.contentType != typ {
			t.Errorf("%s: Content-Type %q, want %q", key, o.contentType, typ)
		}
	}
	for key := range got {
		if _, ok := want[key]; !ok {
			t.Errorf("%s is in the bucket, not in the output directory", key)
		}
	}
}

// resourceTypes reads the types the Resource List gives, by path.
func resourceTypes(t *testing.T, site string) map[string]string {
	lists, _ := filepath.Glob(filepath.Join(site, "resourcesync", "*", "resourcelist.xml")) // those of each set
	lists = append(lists, filepath.Join(site, "resourcesync", "resourcelist.xml"))
	types := map[string]string{}
	for _, l := range lists {
		f, err := os.Open(l)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		_, entries, err := rsxml.ReadAll(f, rsxml.ReadOptions{})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			u, err := url.Parse(e.Loc)
			if err != nil {
				t.Fatal(err)
			}
			types[strings.TrimPrefix(u.Path, "/")] = e.MD.Type
		}
	}
	return types
}

// s3Client reads a bucket with requests signed by AWS Signature Version
// 4: one GET per object, rather than one run of the AWS CLI (seconds) each.
type s3Client struct{ endpoint string }

// objects returns what the bucket holds under the prefix, by key relative
// to it.
func (c *s3Client) objects(t *testing.T) map[string]object {
	t.Helper()
	var list struct {
		Contents  []struct{ Key string }
		Truncated bool `xml:"IsTruncated"`
	}
	body, _ := c.get(t, "/"+s3Bucket, url.Values{"list-type": {"2"}, "prefix": {s3Prefix + "/"}})
	if err := xml.Unmarshal(body, &list); err != nil {
		t.Fatalf("listing the bucket: %v\n%s", err, body)
	}
	if list.Truncated {
		t.Fatal("the listing is truncated")
	}
	out := map[string]object{}
	for _, o := range list.Contents {
		data, typ := c.get(t, "/"+s3Bucket+"/"+o.Key, nil)
		out[strings.TrimPrefix(o.Key, s3Prefix+"/")] = object{data, typ}
	}
	return out
}

// get sends a signed GET and returns the body and Content-Type.
func (c *s3Client) get(t *testing.T, p string, query url.Values) ([]byte, string) {
	t.Helper()
	u, err := url.Parse(c.endpoint)
	if err != nil {
		t.Fatal(err)
	}
	u.Path, u.RawPath = p, uriEncode(p, false)
	u.RawQuery = strings.ReplaceAll(query.Encode(), "+", "%20")
	req, err := http.NewRequest(http.MethodGet, u.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sign(req, time.Now().UTC())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", u, resp.Status, body)
	}
	return body, resp.Header.Get("Content-Type")
}

// sign adds the headers of AWS Signature Version 4 to a request without
// a body.
func sign(req *http.Request, now time.Time) {
	const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	amzDate, day := now.Format("20060102T150405Z"), now.Format("20060102")
	req.Header.Set("X-Amz-Date", amzDate)
	req.Header.Set("X-Amz-Content-Sha256", emptySHA256)
	canonical := strings.Join([]string{
		req.Method,
		uriEncode(req.URL.Path, false),
		canonicalQuery(req.URL.Query()),
		"host:" + req.URL.Host + "\nx-amz-content-sha256:" + emptySHA256 + "\nx-amz-date:" + amzDate + "\n",
		"host;x-amz-content-sha256;x-amz-date",
		emptySHA256,
	}, "\n")
	scope := day + "/" + s3Region + "/s3/aws4_request"
	sum := sha256.Sum256([]byte(canonical))
	toSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(sum[:])
	key := []byte("AWS4" + s3Secret)
	for _, part := range []string{day, s3Region, "s3", "aws4_request"} {
		key = hmacSHA256(key, part)
	}
	req.Header.Set("Authorization", fmt.Sprintf("AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=%x",
		s3Key, scope, hmacSHA256(key, toSign)))
}

func hmacSHA256(key []byte, s string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(s))
	return h.Sum(nil)
}

func canonicalQuery(q url.Values) string {
	var parts []string
	for k, vs := range q {
		for _, v := range vs {
			parts = append(parts, uriEncode(k, true)+"="+uriEncode(v, true))
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, "&")
}

// uriEncode escapes s as Signature Version 4 does: every byte but the
// unreserved characters, and "/" unless slash.
func uriEncode(s string, slash bool) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~", c) >= 0 || c == '/' && !slash {
			sb.WriteByte(c)
		} else {
			fmt.Fprintf(&sb, "%%%02X", c)
		}
	}
	return sb.String()
}

// TestS3ScriptOrder runs the upload script of a build with a Change List
// and a Change Dump against a fake aws that records its calls, and checks
// their order: content, packages, the documents that are listed, the
// capability documents, the Capability List, the Source Description, the
// pages; deletions last.
func TestS3ScriptOrder(t *testing.T) {
	t.Parallel()
	site := t.TempDir()
	write(t, site, "a.txt", "a\n")
	write(t, site, "b", "no extension\n")
	t1 := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	cfg := generator.Config{Source: site, Hosts: []string{hosting.S3}, At: t1, FixedTime: true}
	cfg.BaseURL, _ = generator.ParseBaseURL("https://example.org/")
	if _, err := generator.Build(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	prev := t.TempDir()
	copyDir(t, site, prev)
	write(t, site, "a.txt", "changed\n")
	cfg.At = t1.Add(time.Hour)
	cfg.Changes = generator.Changes{Previous: prev, Dump: true}
	if _, err := generator.Build(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}

	bin := t.TempDir()
	calls := filepath.Join(t.TempDir(), "calls")
	fake := "#!/bin/sh\nfor a in \"$@\"; do printf '%s ' \"$a\"; done >> " + calls + "\necho >> " + calls + "\n"
	if err := os.WriteFile(filepath.Join(bin, "aws"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", filepath.Join(site, hosting.S3Script), "s3://bucket")
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	data, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	// What each step must do, in order: a substring of its call.
	steps := []string{
		"s3 sync . s3://bucket --exclude", // content
		"s3 cp ./b s3://bucket/b --content-type text/plain",
		"s3 sync resourcesync s3://bucket/resourcesync --exclude *.xml", // packages
		"--include *.xml --exclude resourcelist.xml --exclude changelist.xml --exclude changedump.xml --exclude capabilitylist.xml --content-type application/xml",
		"s3 cp resourcesync/resourcelist.xml",
		"s3 cp resourcesync/changelist.xml",
		"s3 cp resourcesync/changedump.xml",
		"s3 cp resourcesync/capabilitylist.xml",
		"s3 cp .well-known/resourcesync",
		"--include index.html --include robots.txt --include head.html",
		"s3 sync resourcesync s3://bucket/resourcesync --delete",
		"s3 sync . s3://bucket --delete",
	}
	i, firstDeletion := 0, len(steps)-2
	for _, line := range lines {
		if strings.Contains(line, "--delete") && i < firstDeletion {
			t.Errorf("a deletion before the pages are up: aws %s", line)
		}
		if i < len(steps) && strings.Contains(line, steps[i]) {
			i++
		}
	}
	if i < len(steps) {
		t.Errorf("no call %q after the ones before it; the calls:\n%s", steps[i], data)
	}
	if len(lines) != len(steps) {
		t.Errorf("%d calls, want %d:\n%s", len(lines), len(steps), data)
	}
}

// The upload script holds no base path: its keys are the output's own
// paths, whatever the URL (basePaths), so the hostile names of
// TestS3ScriptMirrors cover it.
func TestS3ScriptBasePaths(t *testing.T) {
	t.Parallel()
	_, out := buildAt(t, t.TempDir(), 8080, "/", hosting.S3)
	want, err := os.ReadFile(filepath.Join(out, hosting.S3Script))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range basePaths() {
		_, out := buildAt(t, t.TempDir(), 8080, p, hosting.S3)
		if got, err := os.ReadFile(filepath.Join(out, hosting.S3Script)); err != nil || string(got) != string(want) {
			t.Errorf("%s: the script differs from the one at /: %v\n%s", p, err, got)
		}
	}
}
