package inventory_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/parquet-go/parquet-go"

	"github.com/rsgen/rsgen/internal/inputs/inventory"
	"github.com/rsgen/rsgen/internal/testenv"
)

// An entry is a row of a test inventory.
type entry struct {
	key, version, etag   string
	latest, deleteMarker bool
	size                 int64
	modified             time.Time
	multipart            bool
	encryption, checksum string
}

var t0 = time.Date(2026, 11, 1, 10, 0, 0, 123_000_000, time.UTC)

// entries is a versioned bucket's inventory, in no order: older versions,
// a delete marker, a folder marker, keys that need URL-encoding, a key
// outside the prefix.
var entries = []entry{
	{key: "data/b.txt", version: "v2", latest: true, size: 3, modified: t0, etag: "900150983cd24fb0d6963f7d28e17f72", encryption: "SSE-S3", checksum: "SHA256"},
	{key: "data/b.txt", version: "v1", size: 2, modified: t0.Add(-time.Hour), etag: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", encryption: "SSE-S3"},
	{key: "other/x", version: "v1", latest: true, size: 1, modified: t0, etag: "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", encryption: "NOT-SSE"},
	{key: "data/gone", version: "v3", latest: true, deleteMarker: true, modified: t0},
	{key: "data/gone", version: "v2", size: 5, modified: t0.Add(-time.Hour), etag: "cccccccccccccccccccccccccccccccc", encryption: "NOT-SSE"},
	{key: "data/a b+c/é%.txt", version: "v1", latest: true, size: 7, modified: t0.Add(time.Minute), etag: "dddddddddddddddddddddddddddddddd", encryption: "SSE-KMS"},
	{key: "data/big.bin", version: "v1", latest: true, size: 1 << 33, modified: t0, etag: "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee-3", multipart: true, encryption: "NOT-SSE", checksum: "SHA256"},
	{key: "data/dir/", version: "v1", latest: true, size: 0, modified: t0, etag: "d41d8cd98f00b204e9800998ecf8427e", encryption: "NOT-SSE"},
	{key: "data/a.txt", version: "v1", latest: true, size: 1, modified: t0, etag: "0cc175b9c0f1b6a831c399e269772661", encryption: "NOT-SSE"},
}

// want is what List gives of entries under "data/".
var want = []string{
	"data/a b+c/é%.txt a b+c/é%.txt 7 dddddddddddddddddddddddddddddddd 2026-11-01T10:01:00.123Z v1 md5=false sha256=false",
	"data/a.txt a.txt 1 0cc175b9c0f1b6a831c399e269772661 2026-11-01T10:00:00.123Z v1 md5=true sha256=false",
	"data/b.txt b.txt 3 900150983cd24fb0d6963f7d28e17f72 2026-11-01T10:00:00.123Z v2 md5=true sha256=true",
	"data/big.bin big.bin 8589934592 eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee-3 2026-11-01T10:00:00.123Z v1 md5=false sha256=true",
}

const csvSchema = "Bucket, Key, VersionId, IsLatest, IsDeleteMarker, Size, LastModifiedDate, ETag, StorageClass, IsMultipartUploaded, EncryptionStatus, ChecksumAlgorithm"

// csvFile returns entries as a gzip CSV data file of csvSchema's columns.
func csvFile(t testing.TB, es []entry) []byte {
	var raw bytes.Buffer
	w := csv.NewWriter(&raw)
	for _, e := range es {
		size, mod := "", ""
		if !e.deleteMarker {
			size, mod = strconv.FormatInt(e.size, 10), e.modified.Format("2006-01-02T15:04:05.000Z")
		}
		w.Write([]string{"src", strings.ReplaceAll(url.QueryEscape(e.key), "+", "%20"), e.version, strconv.FormatBool(e.latest),
			strconv.FormatBool(e.deleteMarker), size, mod, e.etag, "STANDARD", strconv.FormatBool(e.multipart), e.encryption, e.checksum})
	}
	w.Flush()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return gz.Bytes()
}

// pqRow is a row of a Parquet inventory, as AWS names its columns.
type pqRow struct {
	Bucket         string  `parquet:"bucket"`
	Key            string  `parquet:"key"`
	VersionID      *string `parquet:"version_id,optional"`
	IsLatest       *bool   `parquet:"is_latest,optional"`
	IsDeleteMarker *bool   `parquet:"is_delete_marker,optional"`
	Size           *int64  `parquet:"size,optional"`
	LastModified   *int64  `parquet:"last_modified_date,optional,timestamp(millisecond)"`
	ETag           *string `parquet:"e_tag,optional"`
	StorageClass   *string `parquet:"storage_class,optional"`
	Multipart      *bool   `parquet:"is_multipart_uploaded,optional"`
	Encryption     *string `parquet:"encryption_status,optional"`
	Checksum       *string `parquet:"checksum_algorithm,optional"`
}

const pqSchema = "message s3.inventory { required binary bucket (STRING); required binary key (STRING); optional binary version_id (STRING); optional boolean is_latest; optional boolean is_delete_marker; optional int64 size; optional int64 last_modified_date (TIMESTAMP(MILLIS,true)); optional binary e_tag (STRING); optional binary storage_class (STRING); optional boolean is_multipart_uploaded; optional binary encryption_status (STRING); optional binary checksum_algorithm (STRING);}"

// parquetFile returns entries as a Parquet data file.
func parquetFile(t testing.TB, es []entry) []byte {
	var b bytes.Buffer
	w := parquet.NewGenericWriter[pqRow](&b)
	for _, e := range es {
		r := pqRow{Bucket: "src", Key: e.key, VersionID: &e.version, IsLatest: &e.latest, IsDeleteMarker: &e.deleteMarker,
			StorageClass: ptr("STANDARD"), Multipart: &e.multipart, Encryption: &e.encryption}
		if !e.deleteMarker {
			r.Size, r.LastModified, r.ETag = &e.size, ptr(e.modified.UnixMilli()), &e.etag
		}
		if e.checksum != "" {
			r.Checksum = &e.checksum
		}
		if _, err := w.Write([]pqRow{r}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func ptr[T any](v T) *T { return &v }

// An inv is a test inventory laid out as in its destination bucket,
// synced into a folder: inv/src/cfg/TIMESTAMP/manifest.json and
// inv/src/cfg/data/….
type inv struct {
	root, manifest string
	format, schema string
	files          map[string][]byte // by key in the destination bucket
	md5s           map[string]string // replaces a file's MD5 in the manifest
}

func newInv(t testing.TB, format string, parts ...[]entry) *inv {
	in := &inv{root: t.TempDir(), format: format, schema: csvSchema, files: map[string][]byte{}, md5s: map[string]string{}}
	for i, p := range parts {
		if format == "CSV" {
			in.files[fmt.Sprintf("inv/src/cfg/data/%d.csv.gz", i)] = csvFile(t, p)
		} else {
			in.schema = pqSchema
			in.files[fmt.Sprintf("inv/src/cfg/data/%d.parquet", i)] = parquetFile(t, p)
		}
	}
	return in
}

// write writes the files and the manifest, with its manifest.checksum,
// and returns the manifest's path.
func (in *inv) write(t testing.TB) string {
	m := map[string]any{
		"sourceBucket": "src", "destinationBucket": "arn:aws:s3:::dst", "version": "2016-11-30",
		"creationTimestamp": strconv.FormatInt(t0.Add(time.Hour).UnixMilli(), 10),
		"fileFormat":        in.format, "fileSchema": in.schema,
	}
	var files []map[string]any
	for _, key := range slices.Sorted(mapsKeys(in.files)) {
		data := in.files[key]
		sum := md5.Sum(data)
		h := hex.EncodeToString(sum[:])
		if r, ok := in.md5s[key]; ok {
			h = r
		}
		files = append(files, map[string]any{"key": key, "size": len(data), "MD5checksum": h})
		writeFile(t, filepath.Join(in.root, key), data)
	}
	m["files"] = files
	data, _ := json.MarshalIndent(m, "", "  ")
	in.manifest = filepath.Join(in.root, "inv/src/cfg/2026-11-01T11-00Z/manifest.json")
	writeFile(t, in.manifest, data)
	sum := md5.Sum(data)
	writeFile(t, filepath.Join(filepath.Dir(in.manifest), "manifest.checksum"), []byte(hex.EncodeToString(sum[:])+"\n"))
	return in.manifest
}

func mapsKeys(m map[string][]byte) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// list lists the inventory at loc under prefix, each object as a line.
func list(t testing.TB, loc, prefix string) ([]string, error) {
	in, err := inventory.Open(context.Background(), loc)
	if err != nil {
		return nil, err
	}
	var got []string
	err = in.List(context.Background(), prefix, t.TempDir(), func(o *inventory.Object) error {
		got = append(got, fmt.Sprintf("%s %s %d %s %s %s md5=%t sha256=%t", o.Key, o.Rel, o.Size, o.ETag,
			o.Modified.Format("2006-01-02T15:04:05.000Z"), o.VersionID, o.MD5, o.SHA256))
		return nil
	})
	return got, err
}

func TestList(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"CSV", "Parquet"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			// Two data files, their rows in no order, a key's versions in both.
			in := newInv(t, format, entries[:4], entries[4:])
			got, err := list(t, in.write(t), "data/")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			all, err := list(t, in.manifest, "")
			if err != nil || len(all) != len(want)+1 || all[len(all)-1] != "other/x other/x 1 bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb 2026-11-01T10:00:00.123Z v1 md5=true sha256=false" {
				t.Errorf("without a prefix: %v\n%s", err, strings.Join(all, "\n"))
			}
		})
	}
}

// TestListCopy: a manifest copied with its data files only (the manifest
// beside data/, as `aws s3 cp --recursive` of the inventory's folder
// leaves them) is read too.
func TestListCopy(t *testing.T) {
	t.Parallel()
	in := newInv(t, "CSV", entries)
	in.write(t)
	dir := t.TempDir()
	os.Rename(filepath.Join(in.root, "inv/src/cfg/data"), filepath.Join(dir, "data"))
	os.Rename(filepath.Dir(in.manifest), filepath.Join(dir, "2026-11-01T11-00Z"))
	got, err := list(t, filepath.Join(dir, "2026-11-01T11-00Z/manifest.json"), "data/")
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("%v\n%s", err, strings.Join(got, "\n"))
	}
}

func TestListBad(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, in *inv)
		want  string
	}{
		{"wrong MD5", func(t *testing.T, in *inv) {
			in.md5s["inv/src/cfg/data/1.csv.gz"] = "00000000000000000000000000000000"
		}, `1.csv.gz: \d+ bytes of MD5 [0-9a-f]{32}, not the manifest's \d+ bytes of MD5 0{32}: the file is damaged`},
		{"truncated gzip", func(t *testing.T, in *inv) {
			k := "inv/src/cfg/data/1.csv.gz"
			in.files[k] = in.files[k][:len(in.files[k])-12] // the manifest's MD5 is of the cut file
		}, `reading .*1.csv.gz: unexpected EOF`},
		{"damaged manifest", func(t *testing.T, in *inv) {
			in.write(t)
			data, _ := os.ReadFile(in.manifest)
			writeFile(t, in.manifest, bytes.Replace(data, []byte(`"src"`), []byte(`"srd"`), 1))
		}, `manifest.json: its MD5 is [0-9a-f]{32}, not [0-9a-f]{32} as manifest.checksum says`},
		{"key twice", func(t *testing.T, in *inv) {
			in.files["inv/src/cfg/data/2.csv.gz"] = csvFile(t, entries[8:])
		}, `the inventory lists "data/a.txt" twice`},
		{"no size", func(t *testing.T, in *inv) {
			in.schema = strings.Replace(csvSchema, "Size", "Sizes", 1)
		}, `the inventory has no size column: add Size, Last modified and ETag`},
		{"ORC", func(t *testing.T, in *inv) { in.format = "ORC" }, `an inventory in "ORC": rsgen reads CSV and Parquet`},
		{"missing file", func(t *testing.T, in *inv) {
			in.write(t)
			os.Remove(filepath.Join(in.root, "inv/src/cfg/data/1.csv.gz"))
		}, `reading .*1.csv.gz: open .*: no such file`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := newInv(t, "CSV", entries[:4], entries[4:])
			tc.setup(t, in)
			if in.manifest == "" {
				in.write(t)
			}
			got, err := list(t, in.manifest, "data/")
			if err == nil || !regexp.MustCompile(tc.want).MatchString(err.Error()) {
				t.Fatalf("got %v, %d objects; want an error matching %s", err, len(got), tc.want)
			}
			// A damaged file is found before any object is given; a key
			// twice in the sorted rows, as a listing's misorder is.
			if len(got) != 0 && tc.name != "key twice" {
				t.Errorf("%d objects given before the error", len(got))
			}
		})
	}
}

// TestListBucket reads an inventory from the bucket it was delivered to,
// by an s3-inventory:// URL: the manifest, its checksum and the data
// files, each checked.
func TestListBucket(t *testing.T) {
	t.Parallel()
	s := testenv.StartS3(t, false)
	in := newInv(t, "Parquet", entries[:4], entries[4:])
	in.write(t)
	c := s3.New(s3.Options{
		BaseEndpoint: aws.String(s.Direct), Region: testenv.S3Region, UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(testenv.S3Key, testenv.S3Secret, ""),
	})
	if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("bkt")}); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(in.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(in.root, p)
		data, _ := os.ReadFile(p)
		_, err = c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("bkt"), Key: aws.String(filepath.ToSlash(rel)), Body: bytes.NewReader(data)})
		if err != nil {
			t.Fatal(err)
		}
		return nil
	})
	opts := []func(*config.LoadOptions) error{
		config.WithBaseEndpoint(s.URL), config.WithRegion(testenv.S3Region),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(testenv.S3Key, testenv.S3Secret, "")),
		config.WithSharedConfigFiles([]string{}), config.WithSharedCredentialsFiles([]string{}),
	}
	i, err := inventory.Open(t.Context(), "s3-inventory://bkt/inv/src/cfg/2026-11-01T11-00Z/manifest.json", opts...)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = i.List(t.Context(), "data/", t.TempDir(), func(o *inventory.Object) error {
		got = append(got, o.Key)
		return nil
	})
	if err != nil || len(got) != len(want) {
		t.Fatalf("%v: %q", err, got)
	}
	// A data file replaced since the manifest was written.
	c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("bkt"), Key: aws.String("inv/src/cfg/data/1.parquet"), Body: strings.NewReader("PAR1")})
	err = i.List(t.Context(), "data/", t.TempDir(), func(*inventory.Object) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "s3://bkt/inv/src/cfg/data/1.parquet") {
		t.Errorf("a replaced data file: %v", err)
	}
	// A data file gone.
	c.DeleteObject(t.Context(), &s3.DeleteObjectInput{Bucket: aws.String("bkt"), Key: aws.String("inv/src/cfg/data/0.parquet")})
	err = i.List(t.Context(), "data/", t.TempDir(), func(*inventory.Object) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "s3://bkt/inv/src/cfg/data/0.parquet: no such file of") {
		t.Errorf("a data file gone: %v", err)
	}
	if _, err := inventory.Open(t.Context(), "s3-inventory://bkt/inv/src/cfg/none/manifest.json", opts...); err == nil || !strings.Contains(err.Error(), "no such object") {
		t.Errorf("no manifest: %v", err)
	}
}

func TestIsSource(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]bool{
		"s3-inventory://dst/inv/src/cfg/2026-11-01T11-00Z/manifest.json": true,
		"inv/2026-11-01T11-00Z/manifest.json":                            true,
		"manifest.json":                                                  true,
		"s3://bkt/p/":                                                    false,
		"s3://bkt/p/manifest.json":                                       false, // a bucket's prefix is a folder
		"site/":                                                          false,
		"site.tar.gz":                                                    false,
	} {
		if got := inventory.IsSource(src); got != want {
			t.Errorf("IsSource(%q) = %t", src, got)
		}
	}
}

// TestListQuoted is internal/inputs/bucket's TestInventory, moved with the
// inventory: an inventory in a bucket whose CSV quotes every field and
// encodes a space as "+" (testenv.S3Inventory) lists the current objects
// in the order of their keys; a data file whose MD5 is not the
// manifest's fails the listing.
func TestListQuoted(t *testing.T) {
	t.Parallel()
	s := testenv.StartS3(t, false)
	c := s3.New(s3.Options{
		BaseEndpoint: aws.String(s.Direct), Region: testenv.S3Region, UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(testenv.S3Key, testenv.S3Secret, ""),
	})
	if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("inv")}); err != nil {
		t.Fatal(err)
	}
	rows := []testenv.InventoryRow{
		{Key: "z last.txt", Size: "3", ETag: "e1"},
		{Key: "a+b c.txt", Size: "5", ETag: "e2"},
		{Key: "old.txt", Size: "1", ETag: "e3", NotLatest: true},
		{Key: "gone.txt", Size: "0", DeleteMarker: true},
		{Key: "dir/", Size: "0", ETag: "e4"}, // a folder marker
		{Key: "dir/ü.txt", Size: "7", ETag: "e5-2"},
	}
	opts := []func(*config.LoadOptions) error{
		config.WithBaseEndpoint(s.URL), config.WithRegion(testenv.S3Region),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(testenv.S3Key, testenv.S3Secret, "")),
		config.WithSharedConfigFiles([]string{}), config.WithSharedCredentialsFiles([]string{}),
	}
	for _, corrupt := range []bool{false, true} {
		data, manifest := testenv.S3Inventory("src", "inv", "src/inv/data/0a1b2c.csv.gz", rows, corrupt)
		for key, body := range map[string][]byte{"src/inv/data/0a1b2c.csv.gz": data, "src/inv/2026-11-01T00-00Z/manifest.json": []byte(manifest)} {
			if _, err := c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("inv"), Key: aws.String(key), Body: bytes.NewReader(body)}); err != nil {
				t.Fatal(err)
			}
		}
		in, err := inventory.Open(t.Context(), "s3-inventory://inv/src/inv/2026-11-01T00-00Z/manifest.json", opts...)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		err = in.List(t.Context(), "", t.TempDir(), func(o *inventory.Object) error {
			got = append(got, fmt.Sprintf("%s %d %s", o.Rel, o.Size, o.ETag))
			return nil
		})
		if corrupt {
			if err == nil || !strings.Contains(err.Error(), "not the manifest's") {
				t.Errorf("a damaged data file: %v", err)
			}
			continue
		}
		want := []string{"a+b c.txt 5 e2", "dir/ü.txt 7 e5-2", "z last.txt 3 e1"}
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("listed %q, %v; want %q", got, err, want)
		}
		if in.Bucket != "src" {
			t.Errorf("the objects are read from %s", in.Bucket)
		}
	}
}
