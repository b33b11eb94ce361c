package inventory

import (
	"compress/gzip"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/rsgen/rsgen/internal/inputs/bucket"
	"github.com/rsgen/rsgen/internal/storage/confined"
)

// A row is what rsgen takes of a row of an inventory.
type row struct {
	key, version, etag   string
	latest, deleteMarker bool
	size                 int64
	haveSize, haveTime   bool
	modified             time.Time
	multipart            bool
	encryption           string // EncryptionStatus: NOT-SSE, SSE-S3, SSE-KMS, SSE-C…; "" if not listed
	checksum             string // ChecksumAlgorithm: SHA256, SHA1, CRC32…
}

// column names a field of an inventory the same way whether it is a CSV
// column (LastModifiedDate) or a Parquet one (last_modified_date).
func column(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "_", "")
}

// The columns rsgen reads, named by column.
const (
	colKey       = "key"
	colVersion   = "versionid"
	colLatest    = "islatest"
	colDeleted   = "isdeletemarker"
	colSize      = "size"
	colModified  = "lastmodifieddate"
	colETag      = "etag"
	colMultipart = "ismultipartuploaded"
	colEncrypted = "encryptionstatus"
	colChecksum  = "checksumalgorithm"
)

// set sets the field of column col from its text in a CSV file.
func (r *row) set(col, v string) error {
	var err error
	switch col {
	case colKey:
		r.key, err = url.QueryUnescape(v) // CSV inventories URL-encode the key
	case colVersion:
		r.version = v
	case colLatest:
		r.latest = v != "false"
	case colDeleted:
		r.deleteMarker = v == "true"
	case colSize:
		r.haveSize = v != ""
		if r.haveSize {
			r.size, err = strconv.ParseInt(v, 10, 64)
		}
	case colModified:
		r.haveTime = v != ""
		if r.haveTime {
			r.modified, err = time.Parse(time.RFC3339Nano, v)
		}
	case colETag:
		r.etag = strings.Trim(v, `"`)
	case colMultipart:
		r.multipart = v == "true"
	case colEncrypted:
		r.encryption = v
	case colChecksum:
		r.checksum = v
	}
	if err != nil {
		return fmt.Errorf("column %s: %w", col, err)
	}
	return nil
}

// check says what is wrong with a row of a current object that rsgen
// cannot publish from.
func (r *row) check() error {
	switch {
	case r.deleteMarker || !r.latest:
		return nil
	case !r.haveSize:
		return fmt.Errorf("%q has no size", r.key)
	case !r.haveTime:
		return fmt.Errorf("%q has no last modified date", r.key)
	}
	return nil
}

// Flags of a record of the sort.
const (
	flagMD5 = 1 << iota
	flagSHA256
	flagSHA1
)

// encode appends the record of r, all but its key, to b.
func (r *row) encode(b []byte) []byte {
	var flags byte
	if !r.multipart && (r.encryption == "NOT-SSE" || r.encryption == "SSE-S3") && (&bucket.Object{ETag: r.etag}).MayBeMD5() {
		flags |= flagMD5
	}
	switch strings.ToUpper(r.checksum) {
	case "SHA256":
		flags |= flagSHA256
	case "SHA1":
		flags |= flagSHA1
	}
	b = append(b, flags)
	b = binary.AppendVarint(b, r.size)
	b = binary.AppendVarint(b, r.modified.UnixNano())
	b = binary.AppendUvarint(b, uint64(len(r.etag)))
	b = append(b, r.etag...)
	return append(b, r.version...)
}

// decode sets o from a record of the sort.
func (o *Object) decode(key, prefix string, b []byte) error {
	if len(b) < 1 {
		return errShort
	}
	flags := b[0]
	b = b[1:]
	size, n := binary.Varint(b)
	if n <= 0 {
		return errShort
	}
	b = b[n:]
	ns, n := binary.Varint(b)
	if n <= 0 {
		return errShort
	}
	b = b[n:]
	elen, n := binary.Uvarint(b)
	if n <= 0 || uint64(len(b)-n) < elen {
		return errShort
	}
	b = b[n:]
	*o = Object{
		Object: bucket.Object{
			Key: key, Rel: key[len(prefix):], Size: size, ETag: string(b[:elen]),
			Modified: time.Unix(0, ns).UTC(),
			SHA256:   flags&flagSHA256 != 0, SHA1: flags&flagSHA1 != 0,
		},
		VersionID: string(b[elen:]),
		MD5:       flags&flagMD5 != 0,
	}
	return nil
}

// readCSV calls add with each row of a gzip CSV data file whose columns
// are schema's, in order.
func readCSV(r io.Reader, schema string, add func(*row) error) error {
	cols := strings.Split(schema, ",")
	have := map[string]bool{}
	for i := range cols {
		cols[i] = column(cols[i])
		have[cols[i]] = true
	}
	for _, c := range []string{colKey, colSize, colModified} {
		if !have[c] {
			return errNoColumn(c)
		}
	}
	zr, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	cr := csv.NewReader(zr)
	cr.FieldsPerRecord = len(cols)
	cr.ReuseRecord = true
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		line, _ := cr.FieldPos(0)
		r := row{latest: true}
		for i, v := range rec {
			if err := r.set(cols[i], v); err != nil {
				return fmt.Errorf("line %d: %w", line, err)
			}
		}
		if err := r.check(); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if err := add(&r); err != nil {
			return err
		}
	}
}

// readParquet calls add with each row of a Parquet data file, which is
// read from its end: a local file as it is, once r has read it whole
// (for its MD5), another copied into a file in tmp first.
func readParquet(r *checked, tmp string, add func(*row) error) error {
	f, ok := r.r.(*os.File)
	if ok {
		if _, err := io.Copy(io.Discard, r); err != nil {
			return err
		}
	} else {
		var err error
		if f, err = spool(r, tmp); err != nil {
			return err
		}
		defer confined.Remove(f.Name())
		defer f.Close()
	}
	info, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(f, info.Size())
	if err != nil {
		return err
	}
	cols := map[int]string{} // leaf column index → column name
	for _, field := range pf.Schema().Fields() {
		if leaf, ok := pf.Schema().Lookup(field.Name()); ok {
			cols[leaf.ColumnIndex] = column(field.Name())
		}
	}
	have := map[string]bool{}
	for _, c := range cols {
		have[c] = true
	}
	for _, c := range []string{colKey, colSize, colModified} {
		if !have[c] {
			return errNoColumn(c)
		}
	}
	pr := parquet.NewReader(pf)
	defer pr.Close()
	rows := make([]parquet.Row, 256)
	n := 0
	for {
		k, err := pr.ReadRows(rows)
		for _, pv := range rows[:k] {
			n++
			r := row{latest: true}
			for _, v := range pv {
				r.setValue(cols[v.Column()], v)
			}
			if err := r.check(); err != nil {
				return fmt.Errorf("row %d: %w", n, err)
			}
			if err := add(&r); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// setValue sets the field of column col from its value in a Parquet file.
func (r *row) setValue(col string, v parquet.Value) {
	if v.IsNull() {
		return
	}
	switch col {
	case colKey:
		r.key = string(v.ByteArray())
	case colVersion:
		r.version = string(v.ByteArray())
	case colLatest:
		r.latest = v.Boolean()
	case colDeleted:
		r.deleteMarker = v.Boolean()
	case colSize:
		r.size, r.haveSize = v.Int64(), true
	case colModified:
		r.modified, r.haveTime = time.UnixMilli(v.Int64()).UTC(), true // TIMESTAMP_MILLIS
	case colETag:
		r.etag = strings.Trim(string(v.ByteArray()), `"`)
	case colMultipart:
		r.multipart = v.Boolean()
	case colEncrypted:
		r.encryption = string(v.ByteArray())
	case colChecksum:
		r.checksum = string(v.ByteArray())
	}
}
