package inventory_test

import (
	"bufio"
	"compress/gzip"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/rsgen/rsgen/internal/inputs/inventory"
	"github.com/rsgen/rsgen/internal/testenv"
)

// tenMillion is the size of inventory issue 23 publishes in fixed memory.
const tenMillion = 10_000_000

// maxHeap is the heap List may use at tenMillion rows: the sort's chunk
// (sortMemory, 16 MiB) and its index, and slack for the collector (45 MiB
// measured for CSV); a Parquet file adds what parquet-go holds of a row
// group (the test's files are one row group of 2,000,000 rows: 135 MiB
// measured).
var maxHeap = map[string]uint64{"CSV": 64 << 20, "Parquet": 160 << 20}

// TestListTenMillion lists inventories of 10,000,000 rows (gzip CSV and
// Parquet, in five data files, in no order) and checks that the heap
// stays under maxHeap, whatever the number of rows: the rows are sorted
// on disk.
func TestListTenMillion(t *testing.T) {
	testenv.LongTest(t, "inventories of 10,000,000 rows")
	for _, format := range []string{"CSV", "Parquet"} {
		t.Run(format, func(t *testing.T) {
			manifest := bigInventory(t, format, tenMillion, 5)
			runtime.GC()
			stop := make(chan struct{})
			peak := testenv.HeapPeak(stop)
			in, err := inventory.Open(t.Context(), manifest)
			if err != nil {
				t.Fatal(err)
			}
			n, last := 0, ""
			err = in.List(t.Context(), "data/", t.TempDir(), func(o *inventory.Object) error {
				if o.Key <= last {
					return fmt.Errorf("%q after %q", o.Key, last)
				}
				last = o.Key
				n++
				return nil
			})
			close(stop)
			if err != nil {
				t.Fatal(err)
			}
			if n != tenMillion {
				t.Fatalf("%d objects listed", n)
			}
			p := <-peak
			t.Logf("%s: peak heap %d MiB", format, p>>20)
			if p > maxHeap[format] {
				t.Errorf("the heap reached %d MiB listing %d rows (at most %d MiB)", p>>20, n, maxHeap[format]>>20)
			}
		})
	}
}

// bigInventory writes an inventory of n rows in files data files, the
// keys spread over the files in no order, and returns its manifest.
func bigInventory(t *testing.T, format string, n, files int) string {
	dir := t.TempDir()
	var list []map[string]any
	for f := range files {
		name := fmt.Sprintf("data/%d.csv.gz", f)
		if format == "Parquet" {
			name = fmt.Sprintf("data/%d.parquet", f)
		}
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		h := md5.New()
		w := io.MultiWriter(out, h)
		var rows func(key string, i int)
		var done func() error
		if format == "CSV" {
			bw := bufio.NewWriterSize(w, 1<<20)
			zw, _ := gzip.NewWriterLevel(bw, gzip.BestSpeed)
			rows = func(key string, i int) {
				fmt.Fprintf(zw, "src,%s,%d,%s,%032x,false,SSE-S3\n", key, i%4096, t0.Add(time.Duration(i)*time.Millisecond).Format("2006-01-02T15:04:05.000Z"), i)
			}
			done = func() error {
				if err := zw.Close(); err != nil {
					return err
				}
				return bw.Flush()
			}
		} else {
			pw := parquet.NewGenericWriter[pqRow](w)
			buf := make([]pqRow, 0, 1024)
			flush := func() {
				if _, err := pw.Write(buf); err != nil {
					t.Fatal(err)
				}
				buf = buf[:0]
			}
			rows = func(key string, i int) {
				buf = append(buf, pqRow{Bucket: "src", Key: key, Size: ptr(int64(i % 4096)),
					LastModified: ptr(t0.Add(time.Duration(i) * time.Millisecond).UnixMilli()), ETag: ptr(fmt.Sprintf("%032x", i))})
				if len(buf) == cap(buf) {
					flush()
				}
				if i%(1<<20) == 0 {
					flush()
					pw.Flush() // a row group of about a million rows
				}
			}
			done = func() error {
				flush()
				return pw.Close()
			}
		}
		for i := f; i < n; i += files {
			// A permutation of 0…n-1: no file, and no run of a file, in order.
			k := (i * 7919) % n
			rows("data/"+strconv.Itoa(k), i)
		}
		if err := done(); err != nil {
			t.Fatal(err)
		}
		info, _ := out.Stat()
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
		list = append(list, map[string]any{"key": name, "size": info.Size(), "MD5checksum": hex.EncodeToString(h.Sum(nil))})
	}
	schema := "Bucket, Key, Size, LastModifiedDate, ETag, IsMultipartUploaded, EncryptionStatus"
	if format == "Parquet" {
		schema = pqSchema
	}
	data, _ := json.Marshal(map[string]any{"sourceBucket": "src", "destinationBucket": "arn:aws:s3:::dst", "version": "2016-11-30",
		"creationTimestamp": "1700000000000", "fileFormat": format, "fileSchema": schema, "files": list})
	manifest := filepath.Join(dir, "2026-11-01T11-00Z", "manifest.json")
	writeFile(t, manifest, data)
	return manifest
}
