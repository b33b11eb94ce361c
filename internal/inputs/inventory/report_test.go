package inventory_test

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rsgen/rsgen/internal/inputs/bucket"
	"github.com/rsgen/rsgen/internal/inputs/inventory"
)

// A result is a row of a test completion report.
type result struct {
	key, version, status string
	msg                  map[string]string // the ResultMessage, as JSON; nil: none
}

// checksumMsg is the ResultMessage of a Compute checksum task.
func checksumMsg(alg, typ, etag string, sum []byte) map[string]string {
	return map[string]string{"checksum_base64": base64.StdEncoding.EncodeToString(sum), "checksum_hex": hex.EncodeToString(sum),
		"checksumAlgorithm": alg, "checksumType": typ, "etag": etag}
}

var reportDate = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// writeReport writes a completion report in the documented layout,
// job-ID/manifest.json and job-ID/results/*.csv, the succeeded tasks in
// one file and the failed ones in another, and returns its manifest.
// With badMD5, the manifest has a wrong MD5 for the first.
func writeReport(t testing.TB, ok, failed []result, badMD5 bool) string {
	dir := t.TempDir()
	var results []map[string]string
	for i, rs := range [][]result{ok, failed} {
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		for _, r := range rs {
			msg := ""
			if r.msg != nil {
				data, _ := json.Marshal(r.msg)
				msg = string(data)
			}
			code := "200"
			if r.status != "succeeded" {
				code = "403"
			}
			w.Write([]string{"src", strings.ReplaceAll(url.QueryEscape(r.key), "+", "%20"), r.version, r.status, "", code, msg})
		}
		w.Flush()
		key := fmt.Sprintf("job-1234/results/%x.csv", i)
		writeFile(t, filepath.Join(dir, key), b.Bytes())
		sum := md5.Sum(b.Bytes())
		h := hex.EncodeToString(sum[:])
		if badMD5 && i == 0 {
			h = strings.Repeat("0", 32)
		}
		results = append(results, map[string]string{"TaskExecutionStatus": []string{"succeeded", "failed"}[i], "Bucket": "reports", "MD5Checksum": h, "Key": key})
	}
	data, _ := json.Marshal(map[string]any{"Format": "Report_CSV_20180820", "ReportCreationDate": reportDate.Format("2006-01-02T15:04:05.000Z"),
		"Results": results, "ReportSchema": "Bucket, Key, VersionId, TaskStatus, ErrorCode, HTTPStatusCode, ResultMessage"})
	p := filepath.Join(dir, "job-1234/manifest.json")
	writeFile(t, p, data)
	return p
}

func sums(content string) (s256, s1, m5 []byte) {
	a, b, c := sha256.Sum256([]byte(content)), sha1.Sum([]byte(content)), md5.Sum([]byte(content))
	return a[:], b[:], c[:]
}

func TestDigests(t *testing.T) {
	t.Parallel()
	a256, _, _ := sums("a")
	_, b1, b5 := sums("b")
	c256, _, _ := sums("c")
	ok := []result{
		{key: "data/a b.txt", status: "succeeded", msg: checksumMsg("SHA256", "FULL_OBJECT", "etag-a", a256)},
		{key: "data/b", status: "succeeded", msg: checksumMsg("MD5", "FULL_OBJECT", "etag-b", b5)},
		{key: "data/b", status: "succeeded", msg: checksumMsg("SHA1", "FULL_OBJECT", "etag-b", b1)},
		{key: "data/changed", status: "succeeded", msg: checksumMsg("SHA256", "FULL_OBJECT", "old-etag", c256)},
		{key: "data/composite", status: "succeeded", msg: checksumMsg("SHA256", "COMPOSITE", "etag-d", c256)},
		{key: "data/crc", status: "succeeded", msg: checksumMsg("CRC64NVME", "FULL_OBJECT", "etag-e", []byte("12345678"))},
		{key: "data/later", status: "succeeded", msg: checksumMsg("SHA256", "FULL_OBJECT", "etag-f", c256)},
		{key: "data/v", version: "v1", status: "succeeded", msg: checksumMsg("SHA256", "FULL_OBJECT", "etag-g", c256)},
	}
	failed := []result{{key: "data/denied", status: "failed"}}
	d, err := inventory.OpenReport(t.Context(), writeReport(t, ok, failed, false), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	before := reportDate.Add(-time.Hour)
	for _, tc := range []struct {
		key, etag, version string
		modified           time.Time
		want               string // sha256 sha1 md5, hex, - for none
	}{
		{"data/0", "x", "", before, "- - -"}, // before every key of the report
		{"data/a b.txt", "etag-a", "", before, fmt.Sprintf("%x - -", a256)},
		{"data/b", "etag-b", "", before, fmt.Sprintf("- %x %x", b1, b5)},
		{"data/changed", "new-etag", "", before, "- - -"}, // another ETag: rewritten since
		{"data/composite", "etag-d", "", before, "- - -"},
		{"data/crc", "etag-e", "", before, "- - -"},
		{"data/denied", "x", "", before, "- - -"},
		{"data/later", "etag-f", "", reportDate.Add(time.Minute), "- - -"}, // written after the report
		{"data/v", "etag-g", "v2", before, "- - -"},                        // another version
		{"data/zzz", "x", "", before, "- - -"},                             // after every key
	} {
		st, err := d.Find(&bucket.Object{Key: tc.key, ETag: tc.etag, Modified: tc.modified}, tc.version)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join([]string{hexOr(st.SHA256), hexOr(st.SHA1), hexOr(st.MD5)}, " ")
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.key, got, tc.want)
		}
	}
}

func hexOr(b []byte) string {
	if b == nil {
		return "-"
	}
	return hex.EncodeToString(b)
}

func TestDigestsVersion(t *testing.T) {
	t.Parallel()
	c256, _, _ := sums("c")
	ok := []result{{key: "k", version: "v1", status: "succeeded", msg: checksumMsg("SHA256", "FULL_OBJECT", "e", c256)}}
	d, err := inventory.OpenReport(t.Context(), writeReport(t, ok, nil, false), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if st, _ := d.Find(&bucket.Object{Key: "k", ETag: "e"}, "v1"); st.SHA256 == nil {
		t.Error("the digest of the same version is not used")
	}
}

func TestDigestsBad(t *testing.T) {
	t.Parallel()
	c256, _, _ := sums("c")
	ok := []result{{key: "k", status: "succeeded", msg: checksumMsg("SHA256", "FULL_OBJECT", "e", c256)}}
	_, err := inventory.OpenReport(t.Context(), writeReport(t, ok, nil, true), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "0.csv: its MD5 is") || !strings.Contains(err.Error(), "not the report manifest's 00000000000000000000000000000000") {
		t.Errorf("a wrong MD5: %v", err)
	}
	crc := []result{{key: "k", status: "succeeded", msg: checksumMsg("CRC32", "FULL_OBJECT", "e", []byte("1234"))}}
	_, err = inventory.OpenReport(t.Context(), writeReport(t, crc, nil, false), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "no full-object SHA-256, SHA-1 or MD5 in the report") {
		t.Errorf("a report of CRCs: %v", err)
	}
	// An inventory's manifest is not a report's.
	in := newInv(t, "CSV", entries)
	_, err = inventory.OpenReport(t.Context(), in.write(t), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "not the manifest.json of a Batch Operations completion report") {
		t.Errorf("an inventory for a report: %v", err)
	}
}

func TestJob(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	j := inventory.NewJob(&b, "src")
	j.Add("data/a b+c/é,x.txt", "")
	j.Add("data/plain", "3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY")
	if err := j.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "src,data%2Fa%20b%2Bc%2F%C3%A9%2Cx.txt\nsrc,data%2Fplain,3HL4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY\n"
	if b.String() != want || j.N != 2 {
		t.Errorf("got %q (%d), want %q", b.String(), j.N, want)
	}
	// What the job's manifest names, its report names back.
	cr := csv.NewReader(&b)
	cr.FieldsPerRecord = -1 // a version or none
	rows, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := url.QueryUnescape(rows[0][1]); k != "data/a b+c/é,x.txt" {
		t.Errorf("the key decodes to %q", k)
	}
}

// TestSource: an inventory and a report together, as a bucket's scan
// takes them: the report's digests where they are still the object's,
// the MD5 of an ETag the inventory shows to be one.
func TestSource(t *testing.T) {
	t.Parallel()
	b256, _, _ := sums("b")
	ok := []result{
		{key: "data/b.txt", version: "v2", status: "succeeded", msg: checksumMsg("SHA256", "FULL_OBJECT", "900150983cd24fb0d6963f7d28e17f72", b256)},
		{key: "data/big.bin", version: "v0", status: "succeeded", msg: checksumMsg("SHA256", "FULL_OBJECT", "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee-3", b256)},
	}
	d, err := inventory.OpenReport(t.Context(), writeReport(t, ok, nil, false), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	in, err := inventory.Open(t.Context(), newInv(t, "CSV", entries).write(t))
	if err != nil {
		t.Fatal(err)
	}
	src := &inventory.Source{Inventory: in, Digests: d, Prefix: "data/", Tmp: t.TempDir()}
	var got []string
	err = src.List(t.Context(), func(o *bucket.Object) error {
		st, err := src.Known(o)
		got = append(got, fmt.Sprintf("%s %s %s", o.Rel, hexOr(st.SHA256), hexOr(st.MD5)))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a b+c/é%.txt - -", // SSE-KMS: its ETag is no MD5
		"a.txt - 0cc175b9c0f1b6a831c399e269772661",
		fmt.Sprintf("b.txt %x 900150983cd24fb0d6963f7d28e17f72", b256),
		"big.bin - -", // the report's digest is of another version
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
