package inventory

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/rsgen/rsgen/internal/inputs/bucket"
	"github.com/rsgen/rsgen/internal/storage/confined"
	"github.com/rsgen/rsgen/internal/storage/extsort"
)

// An Inventory is an S3 Inventory of a bucket, as its manifest.json
// describes it.
type Inventory struct {
	Bucket string // the bucket it lists (sourceBucket)

	loc    string // where its manifest is, as given to Open
	format string // CSV or Parquet
	schema string // the CSV's columns, in order; for Parquet, its message
	files  []file
	st     store
}

// A file is a data file of an inventory.
type file struct {
	Key  string `json:"key"` // in the destination bucket
	Size int64  `json:"size"`
	MD5  string `json:"MD5checksum"`
}

// manifest is manifest.json, as AWS documents it.
type manifest struct {
	SourceBucket      string `json:"sourceBucket"`
	DestinationBucket string `json:"destinationBucket"`
	FileFormat        string `json:"fileFormat"`
	FileSchema        string `json:"fileSchema"`
	Files             []file `json:"files"`
}

// Open reads the manifest of the inventory at loc: a local manifest.json,
// s3-inventory://BUCKET/KEY or s3://BUCKET/KEY (then read with a client
// set up as internal/inputs/bucket's, with opts added). A manifest.checksum
// beside it must be its MD5.
func Open(ctx context.Context, loc string, opts ...func(*config.LoadOptions) error) (*Inventory, error) {
	data, st, err := openManifest(ctx, loc, opts)
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: not an inventory's manifest.json: %w", loc, err)
	}
	inv := &Inventory{Bucket: m.SourceBucket, loc: loc, format: m.FileFormat, schema: m.FileSchema, files: m.Files, st: st}
	switch {
	case m.SourceBucket == "" || m.FileSchema == "":
		return nil, fmt.Errorf("%s: not an inventory's manifest.json: no sourceBucket or fileSchema", loc)
	case !strings.EqualFold(m.FileFormat, "CSV") && !strings.EqualFold(m.FileFormat, "Parquet"):
		return nil, fmt.Errorf("%s: an inventory in %q: rsgen reads CSV and Parquet; configure the inventory in one of them", loc, m.FileFormat)
	}
	for _, f := range m.Files {
		if f.Key == "" || len(f.MD5) != 32 {
			return nil, fmt.Errorf("%s: a file of the manifest has no key or no MD5checksum", loc)
		}
	}
	return inv, nil
}

// An Object is what the inventory says of one object: what a listing
// says, and the version and whether its ETag is its MD5.
type Object struct {
	bucket.Object
	VersionID string // "" unless the inventory lists versions
	// MD5 reports that the inventory shows the ETag to be the MD5 of the
	// bytes: uploaded in one part, not encrypted with SSE-KMS or SSE-C.
	MD5 bool
}

// List calls fn with the current version of each object of the inventory
// whose key is under prefix ("" or ending in "/"), in the order of their
// keys, until fn returns an error. Delete markers, older versions and
// folder markers are skipped. Every data file is read and checked before
// fn is first called; the sort spills its runs into tmp. A key listed
// twice is an error when the sort reaches it, as a listing's misordered
// key is: a Resource List made of it would be wrong.
// sortMemory is the memory of the sort of an inventory's rows: that of the
// sort of a tree's resources (spill.DefaultSortMemory), so that a build
// from an inventory stays in a tree's budget at any number of rows.
const sortMemory = 16 << 20

func (inv *Inventory) List(ctx context.Context, prefix, tmp string, fn func(*Object) error) error {
	s := extsort.New(tmp, sortMemory)
	defer s.Close()
	var rec []byte
	add := func(r *row) error {
		if r.deleteMarker || !r.latest || !strings.HasPrefix(r.key, prefix) {
			return nil
		}
		rel := r.key[len(prefix):]
		if rel == "" || strings.HasSuffix(rel, "/") && r.size == 0 {
			return nil // a folder marker
		}
		rec = r.encode(rec[:0])
		return s.Add([]byte(r.key), rec)
	}
	for _, f := range inv.files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := inv.read(ctx, f, tmp, add); err != nil {
			return err
		}
	}
	it, err := s.Iter()
	if err != nil {
		return err
	}
	last := ""
	var o Object
	for it.Next() {
		key := string(it.Key())
		if key == last && last != "" {
			return fmt.Errorf("%s: the inventory lists %q twice: it is damaged; nothing is published", inv.loc, key)
		}
		last = key
		if err := o.decode(key, prefix, it.Value()); err != nil {
			return fmt.Errorf("%s: %w", inv.loc, err)
		}
		if err := fn(&o); err != nil {
			return err
		}
	}
	return it.Err()
}

// read calls add with each row of the data file f, then checks its size
// and MD5: a file whose MD5 is not the manifest's is an error, whatever
// its rows.
func (inv *Inventory) read(ctx context.Context, f file, tmp string, add func(*row) error) error {
	name := inv.st.name(f.Key)
	r, err := inv.st.open(ctx, f.Key, f.Size)
	if errors.Is(err, bucket.ErrReplaced) || errors.Is(err, bucket.ErrDeleted) {
		return fmt.Errorf("reading %s: no such file of %d bytes, which the manifest names: the inventory is incomplete or was replaced", name, f.Size)
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", name, err)
	}
	defer r.Close()
	sum := &checked{r: r, h: md5.New()}
	if strings.EqualFold(inv.format, "CSV") {
		err = readCSV(sum, inv.schema, add)
	} else {
		err = readParquet(sum, tmp, add)
	}
	if _, cerr := io.Copy(io.Discard, sum); err == nil {
		err = cerr
	}
	if got := hex.EncodeToString(sum.h.Sum(nil)); got != strings.ToLower(f.MD5) || sum.n != f.Size {
		return fmt.Errorf("%s: %d bytes of MD5 %s, not the manifest's %d bytes of MD5 %s: the file is damaged or not the inventory's; nothing is published", name, sum.n, got, f.Size, f.MD5)
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", name, err)
	}
	return nil
}

// checked counts and hashes what is read through it.
type checked struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (c *checked) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	return n, err
}

// errNoColumn is the error of an inventory without a column rsgen needs.
func errNoColumn(name string) error {
	return fmt.Errorf("the inventory has no %s column: add Size, Last modified and ETag to its optional fields", name)
}

// spool copies r into a temporary file in tmp, which the caller removes.
func spool(r io.Reader, tmp string) (*os.File, error) {
	f, err := confined.CreateTemp(tmp, "inventory-*.parquet")
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		confined.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

var errShort = errors.New("a record of the sort is cut short")
