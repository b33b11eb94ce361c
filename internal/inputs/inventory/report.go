package inventory

import (
	"bufio"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/rsgen/rsgen/internal/inputs/bucket"
	"github.com/rsgen/rsgen/internal/storage/extsort"
)

// reportManifest is the manifest.json of a Batch Operations completion
// report, as AWS documents it.
type reportManifest struct {
	Format             string `json:"Format"` // Report_CSV_20180820
	ReportCreationDate string `json:"ReportCreationDate"`
	ReportSchema       string `json:"ReportSchema"` // Bucket, Key, VersionId, TaskStatus, ErrorCode, HTTPStatusCode, ResultMessage
	Results            []struct {
		TaskExecutionStatus string `json:"TaskExecutionStatus"` // succeeded or failed
		Bucket              string `json:"Bucket"`
		Key                 string `json:"Key"`
		MD5Checksum         string `json:"MD5Checksum"`
	} `json:"Results"`
}

// Digests are the digests of a Compute checksum job's completion report,
// sorted by key, to be looked up in the order of the keys (Find).
type Digests struct {
	loc     string
	created time.Time // ReportCreationDate: an object written after it is not the one the job read
	sorter  *extsort.Sorter
	it      *extsort.Iter
	cur     []digest // the records of the key at the cursor
	curKey  string
	pending bool // the iterator is on a record not yet in cur
}

// A digest is what the report says of one object.
type digest struct {
	version, etag string
	alg           byte // algSHA256, algSHA1, algMD5
	sum           []byte
}

// The algorithms of a digest rsgen takes from a report.
const (
	algSHA256 byte = iota + 1
	algSHA1
	algMD5
)

// OpenReport reads the completion report of a Compute checksum job whose
// manifest is at loc (a local path or s3://BUCKET/KEY), each result file
// checked against the manifest's MD5, and sorts its digests by key into
// tmp. Only full-object checksums of SHA-256, SHA-1 and MD5 are kept: a
// composite one is not the digest of the bytes, and rsgen publishes no
// CRC.
func OpenReport(ctx context.Context, loc, tmp string, opts ...func(*config.LoadOptions) error) (*Digests, error) {
	if strings.HasPrefix(loc, Scheme) {
		return nil, fmt.Errorf("%s: a report is named by s3:// or a path, not %s", loc, Scheme)
	}
	data, st, err := openManifest(ctx, loc, opts)
	if err != nil {
		return nil, err
	}
	var m reportManifest
	if err := json.Unmarshal(data, &m); err != nil || !strings.HasPrefix(m.Format, "Report_CSV") {
		return nil, fmt.Errorf("%s: not the manifest.json of a Batch Operations completion report (Format Report_CSV_…)", loc)
	}
	d := &Digests{loc: loc, sorter: extsort.New(tmp, 0)}
	if d.created, err = time.Parse(time.RFC3339Nano, m.ReportCreationDate); err != nil {
		return nil, fmt.Errorf("%s: ReportCreationDate: %w", loc, err)
	}
	cols := strings.Split(m.ReportSchema, ",")
	for i := range cols {
		cols[i] = column(cols[i])
	}
	kept := 0
	for _, res := range m.Results {
		if res.TaskExecutionStatus != "succeeded" {
			continue // the failed tasks' file: no digests
		}
		n, err := d.read(ctx, st, res.Key, res.MD5Checksum, cols)
		if err != nil {
			d.Close()
			return nil, err
		}
		kept += n
	}
	if kept == 0 {
		d.Close()
		return nil, fmt.Errorf("%s: no full-object SHA-256, SHA-1 or MD5 in the report: is it the report of a Compute checksum job (ChecksumType FULL_OBJECT)?", loc)
	}
	if d.it, err = d.sorter.Iter(); err != nil {
		d.Close()
		return nil, err
	}
	d.pending = d.it.Next()
	if !d.pending && d.it.Err() != nil {
		d.Close()
		return nil, d.it.Err()
	}
	return d, nil
}

// read adds the digests of the result file at key, checked against its
// MD5, and returns how many it kept.
func (d *Digests) read(ctx context.Context, st store, key, sum string, cols []string) (int, error) {
	name := st.name(key)
	r, err := st.open(ctx, key, -1)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", name, err)
	}
	defer r.Close()
	c := &checked{r: r, h: md5.New()}
	n, err := d.readCSV(c, cols)
	if _, cerr := io.Copy(io.Discard, c); err == nil {
		err = cerr
	}
	if got := hex.EncodeToString(c.h.Sum(nil)); got != strings.ToLower(sum) {
		return 0, fmt.Errorf("%s: its MD5 is %s, not the report manifest's %s: the file is damaged or not the report's; nothing is published", name, got, sum)
	}
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", name, err)
	}
	return n, nil
}

// readCSV adds the digests of the rows of a result file.
func (d *Digests) readCSV(r io.Reader, cols []string) (int, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.FieldsPerRecord = len(cols)
	cr.ReuseRecord = true
	kept := 0
	var rec []byte
	for {
		fields, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return kept, nil
		}
		if err != nil {
			return 0, err
		}
		var key, status, msg string
		var dg digest
		for i, v := range fields {
			switch cols[i] {
			case colKey:
				key, err = url.QueryUnescape(v) // keys are URL-encoded, as in the job's manifest
			case colVersion:
				dg.version = v
			case "taskstatus":
				status = v
			case "resultmessage":
				msg = v
			}
		}
		if err != nil {
			line, _ := cr.FieldPos(0)
			return 0, fmt.Errorf("line %d: the key: %w", line, err)
		}
		if status != "succeeded" || !dg.parse(msg) {
			continue
		}
		rec = dg.encode(rec[:0])
		if err := d.sorter.Add([]byte(key), rec); err != nil {
			return 0, err
		}
		kept++
	}
}

// parse sets dg from the result message of a Compute checksum task, a
// JSON object, and reports whether it holds a full-object digest rsgen
// publishes. The names of its fields are compared as column does, so
// that checksum_base64, checksumBase64 and ChecksumBase64 are one.
func (dg *digest) parse(msg string) bool {
	var raw map[string]any
	if json.Unmarshal([]byte(msg), &raw) != nil {
		return false
	}
	f := map[string]string{}
	for k, v := range raw {
		if s, ok := v.(string); ok {
			f[strings.ReplaceAll(column(k), "-", "")] = s
		}
	}
	if t := f["checksumtype"]; t != "" && !strings.EqualFold(t, "FULL_OBJECT") {
		return false
	}
	var size int
	switch strings.ToUpper(strings.ReplaceAll(f["checksumalgorithm"], "-", "")) {
	case "SHA256":
		dg.alg, size = algSHA256, 32
	case "SHA1":
		dg.alg, size = algSHA1, 20
	case "MD5":
		dg.alg, size = algMD5, 16
	default:
		return false
	}
	var err error
	if v, ok := f["checksumhex"]; ok {
		dg.sum, err = hex.DecodeString(v)
	} else {
		dg.sum, err = base64.StdEncoding.DecodeString(f["checksumbase64"])
	}
	dg.etag = strings.Trim(f["etag"], `"`)
	return err == nil && len(dg.sum) == size
}

func (dg *digest) encode(b []byte) []byte {
	b = append(b, dg.alg, byte(len(dg.sum)))
	b = append(b, dg.sum...)
	b = binary.AppendUvarint(b, uint64(len(dg.etag)))
	b = append(b, dg.etag...)
	return append(b, dg.version...)
}

func decodeDigest(b []byte) (digest, error) {
	if len(b) < 2 || len(b) < 2+int(b[1]) {
		return digest{}, errShort
	}
	dg := digest{alg: b[0], sum: append([]byte(nil), b[2:2+b[1]]...)}
	b = b[2+b[1]:]
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return digest{}, errShort
	}
	dg.etag, dg.version = string(b[k:k+int(n)]), string(b[k+int(n):])
	return dg, nil
}

// Find returns the digests the report has of o (of version, if the bucket
// is versioned), each nil where it has none that is still o's: a digest
// computed of another ETag or version, or by a report older than o's
// LastModified, is not used. It is called with keys in ascending order.
// d may be nil.
func (d *Digests) Find(o *bucket.Object, version string) (bucket.Stored, error) {
	var st bucket.Stored
	if d == nil {
		return st, nil
	}
	for d.pending && d.curKey < o.Key {
		if err := d.next(); err != nil {
			return st, err
		}
	}
	if d.curKey != o.Key || o.Modified.After(d.created) {
		return st, nil
	}
	for _, dg := range d.cur {
		if dg.etag != "" && dg.etag != o.ETag || dg.version != "" && version != "" && dg.version != version {
			continue
		}
		switch dg.alg {
		case algSHA256:
			st.SHA256 = dg.sum
		case algSHA1:
			st.SHA1 = dg.sum
		case algMD5:
			st.MD5 = dg.sum
		}
	}
	return st, nil
}

// next moves the cursor to the records of the next key.
func (d *Digests) next() error {
	d.cur = d.cur[:0]
	d.curKey = string(d.it.Key())
	for d.pending && string(d.it.Key()) == d.curKey {
		dg, err := decodeDigest(d.it.Value())
		if err != nil {
			return fmt.Errorf("%s: %w", d.loc, err)
		}
		d.cur = append(d.cur, dg)
		d.pending = d.it.Next()
	}
	if !d.pending {
		return d.it.Err()
	}
	return nil
}

// Close removes the sorted digests. d may be nil.
func (d *Digests) Close() error {
	if d == nil {
		return nil
	}
	return d.sorter.Close()
}
