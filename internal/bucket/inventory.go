package bucket

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/rsgen/rsgen/internal/extsort"
)

// InventoryScheme is the prefix of a source that is an S3 Inventory:
// s3-inventory://BUCKET/KEY/manifest.json.
const InventoryScheme = "s3-inventory://"

// An Inventory is an S3 Inventory report (CSV) of a bucket, as its
// manifest.json describes it: the objects of the bucket without a
// listing, for buckets too large to list in a build.
type Inventory struct {
	Bucket *Bucket // the bucket inventoried, whole, to read the objects from
	url    string
	dest   string // the bucket of the data files
	files  []inventoryFile
	schema map[string]int // column name → index
}

type inventoryFile struct {
	Key         string `json:"key"`
	Size        int64  `json:"size"`
	MD5checksum string `json:"MD5checksum"`
}

// maxManifest bounds the size of a manifest.json.
const maxManifest = 64 << 20

// OpenInventory reads the manifest at url (s3-inventory://BUCKET/KEY)
// with a client configured as Open's.
func OpenInventory(ctx context.Context, url string, opts ...func(*config.LoadOptions) error) (*Inventory, error) {
	rest, _ := strings.CutPrefix(url, InventoryScheme)
	name, key, _ := strings.Cut(rest, "/")
	if name == "" || key == "" {
		return nil, fmt.Errorf("%s: give the manifest as s3-inventory://BUCKET/KEY/manifest.json", Redact(url))
	}
	b, err := Open(ctx, Scheme+name+"/", opts...)
	if err != nil {
		return nil, err
	}
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(name), Key: aws.String(key)})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	defer out.Body.Close()
	data, err := io.ReadAll(io.LimitReader(out.Body, maxManifest))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	var m struct {
		SourceBucket      string          `json:"sourceBucket"`
		DestinationBucket string          `json:"destinationBucket"`
		FileFormat        string          `json:"fileFormat"`
		FileSchema        string          `json:"fileSchema"`
		Files             []inventoryFile `json:"files"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: not an S3 Inventory manifest: %w", url, err)
	}
	if m.FileFormat != "CSV" {
		return nil, fmt.Errorf("%s: the inventory's files are %q: rsgen reads CSV ones", url, m.FileFormat)
	}
	inv := &Inventory{
		Bucket: &Bucket{Name: m.SourceBucket, client: b.client},
		url:    url,
		dest:   strings.TrimPrefix(m.DestinationBucket, "arn:aws:s3:::"),
		files:  m.Files,
		schema: map[string]int{},
	}
	for i, col := range strings.Split(m.FileSchema, ",") {
		inv.schema[strings.TrimSpace(col)] = i
	}
	for _, col := range []string{"Key", "Size", "LastModifiedDate", "ETag"} {
		if _, ok := inv.schema[col]; !ok {
			return nil, fmt.Errorf("%s: the inventory has no %s column (fileSchema %q)", url, col, m.FileSchema)
		}
	}
	if m.SourceBucket == "" || inv.dest == "" {
		return nil, fmt.Errorf("%s: the manifest names no sourceBucket or destinationBucket", url)
	}
	return inv, nil
}

// List calls fn with each current object of the inventory in the order
// of their keys, sorted on disk in dir (an inventory's files are in no
// order): versions that are not the latest and delete markers are left
// out. A data file whose MD5 is not the manifest's, or a key listed
// twice, fails it before fn is called at all.
func (inv *Inventory) List(ctx context.Context, dir string, fn func(*Object) error) error {
	s := extsort.New(dir, 16<<20)
	defer s.Close()
	for _, f := range inv.files {
		if err := inv.read(ctx, f, s); err != nil {
			return err
		}
	}
	it, err := s.Iter()
	if err != nil {
		return err
	}
	defer it.Close()
	last := ""
	for it.Next() {
		o, err := decodeObject(string(it.Key()), it.Value())
		if err != nil {
			return fmt.Errorf("%s: %w", inv.url, err)
		}
		if last != "" && o.Key <= last {
			return fmt.Errorf("%s: the inventory lists %q twice", inv.url, o.Key)
		}
		last, o.Rel = o.Key, o.Key
		if o.Size == 0 && strings.HasSuffix(o.Key, "/") {
			continue // a folder marker
		}
		if err := fn(&o); err != nil {
			return err
		}
	}
	return it.Err()
}

// read adds the current objects of one data file to s, checking its
// bytes against the manifest's MD5: a file that is not what the manifest
// says is reported as such, whatever error reading it gave.
func (inv *Inventory) read(ctx context.Context, f inventoryFile, s *extsort.Sorter) error {
	name := Scheme + inv.dest + "/" + f.Key
	out, err := inv.Bucket.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(inv.dest), Key: aws.String(f.Key)})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer out.Body.Close()
	sum := md5.New()
	body := io.TeeReader(out.Body, sum)
	perr := inv.parse(body, s)
	if _, err := io.Copy(io.Discard, body); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if got := hex.EncodeToString(sum.Sum(nil)); got != strings.ToLower(f.MD5checksum) {
		return fmt.Errorf("%s: its MD5 is %s, the manifest says %s: the inventory is damaged; nothing is published", name, got, f.MD5checksum)
	}
	if perr != nil {
		return fmt.Errorf("%s: %w", name, perr)
	}
	return nil
}

// parse adds the current objects of a gzip CSV data file to s.
func (inv *Inventory) parse(gz io.Reader, s *extsort.Sorter) error {
	zr, err := gzip.NewReader(gz)
	if err != nil {
		return err
	}
	zr.Multistream(false) // one gzip member; what follows it fails the MD5
	r := csv.NewReader(zr)
	r.FieldsPerRecord = len(inv.schema)
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		o, keep, err := inv.object(rec)
		if err != nil {
			return err
		}
		if keep {
			if err := s.Add([]byte(o.Key), encodeObject(&o)); err != nil {
				return err
			}
		}
	}
}

// object returns the Object of a row, and whether it is a current one.
func (inv *Inventory) object(rec []string) (Object, bool, error) {
	col := func(name string) string {
		if i, ok := inv.schema[name]; ok {
			return rec[i]
		}
		return ""
	}
	if col("IsLatest") == "false" || col("IsDeleteMarker") == "true" {
		return Object{}, false, nil
	}
	key, err := url.QueryUnescape(col("Key")) // URL-encoded, spaces as "+"
	if err != nil {
		return Object{}, false, fmt.Errorf("key %q: %w", col("Key"), err)
	}
	size, err := strconv.ParseInt(col("Size"), 10, 64)
	if err != nil {
		return Object{}, false, fmt.Errorf("key %q: size: %w", key, err)
	}
	mod, err := time.Parse(time.RFC3339, col("LastModifiedDate"))
	if err != nil {
		return Object{}, false, fmt.Errorf("key %q: LastModifiedDate: %w", key, err)
	}
	o := Object{Key: key, Size: size, ETag: strings.Trim(col("ETag"), `"`), Modified: mod.UTC()}
	switch col("ChecksumAlgorithm") {
	case "SHA256":
		o.SHA256 = true
	case "SHA1":
		o.SHA1 = true
	}
	return o, true, nil
}

// encodeObject and decodeObject carry an Object through the sort.
func encodeObject(o *Object) []byte {
	return fmt.Appendf(nil, "%d %d %t %t %s", o.Size, o.Modified.UnixNano(), o.SHA256, o.SHA1, o.ETag)
}

func decodeObject(key string, b []byte) (Object, error) {
	o := Object{Key: key}
	var nanos int64
	if _, err := fmt.Fscan(bytes.NewReader(b), &o.Size, &nanos, &o.SHA256, &o.SHA1, &o.ETag); err != nil && !errors.Is(err, io.EOF) {
		return o, fmt.Errorf("a sorted row: %w", err)
	}
	o.Modified = time.Unix(0, nanos).UTC()
	return o, nil
}
